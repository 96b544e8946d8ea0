import {
	CASE_DATA_STATUSES,
	CASE_STATUS_SEQUENCE,
	PENDING_STATUSES,
	SERVICES,
	WEBHOOK_RETRY_DELAYS_SECONDS,
	findCaseDataStatus,
	findPendingStatus,
	findService,
	isKnownServiceId,
	serviceGroupLabel,
} from '../../../nodes/shared/catalog';

describe('catalog generated from the spec', () => {
	it('holds every service of spec 2.4 once', () => {
		const ids = SERVICES.map((service) => service.id);
		expect(new Set(ids).size).toBe(ids.length);
		for (const id of [
			'service-idv-id',
			'29cd44ab-a8f0-4b27-868e-dc4be88ff541',
			'service-intelligent-document-process',
			'service-ohs-tb-quantiferon-gold',
			'service-vacc-var-2',
			'service-drug-12p-c',
		]) {
			expect(findService(id)).toBeDefined();
		}
		expect(SERVICES.filter((s) => s.subcategoryId === 'service-subcat-titer')).toHaveLength(9);
	});

	it('accepts the drug-panel ID patterns and nothing close to them', () => {
		for (const id of [
			'drug-service-65020N-panel',
			'service-drug-7000-panel',
			'service-drug-H17P-panel',
		])
			expect(isKnownServiceId(id)).toBe(true);
		for (const id of [
			'service-drug-abc-panel',
			'drug-service--panel',
			'service-unknown',
			'../service-idv-id',
		])
			expect(isKnownServiceId(id)).toBe(false);
	});

	it('labels services with the category and subcategory the spec gives', () => {
		expect(serviceGroupLabel(findService('service-ohs-tb-cxr')!)).toBe(
			'Occupational Health Screening / TB',
		);
		expect(serviceGroupLabel(findService('fa226cb7-1214-4cdf-9296-6120a7376926')!)).toBe(
			'Criminal Check',
		);
		expect(serviceGroupLabel(findService('service-social-media')!)).toBeUndefined();
	});

	it('maps status IDs to their names and meanings (3.1, 3.2)', () => {
		expect(CASE_DATA_STATUSES).toHaveLength(8);
		expect(findCaseDataStatus('f657c777-c38d-489b-ac26-dd9bf0a88724')).toMatchObject({
			status: 'consider',
			meaning: 'Done, needs review',
		});
		expect(PENDING_STATUSES).toHaveLength(26);
		expect(findPendingStatus('pending-status-no-show')).toMatchObject({
			name: 'Appointment No Show',
			appliesTo: 'OHS',
		});
	});

	it('keeps the case status sequence and the retry schedule of sections 3.3 and 8', () => {
		expect(CASE_STATUS_SEQUENCE.map((s) => [s.caseStatus, s.secondaryStatus])).toEqual([
			['Pending', 'Waiting for Authorization'],
			['Pending', 'Authorization in Progress'],
			['Pending', null],
			['Complete', null],
		]);
		expect(WEBHOOK_RETRY_DELAYS_SECONDS).toEqual([5, 300, 1800, 7200, 18000, 36000, 36000]);
	});
});
