/**
 * Case data (one per service in a case): how a new one looks, and which services carry search records
 * (employment / education per-record `statusId` and `searchId`, county criminal `jurisdictions`) or walk
 * through pending statuses (drug screening, OHS).
 */
import { randomUUID } from 'crypto';

import { SERVICES, findService, isDrugPanelServiceId } from '../nodes/shared/catalog';
import { SANDBOX_SCREENING_SERVICE_TYPE_ID, serviceName } from './fixtures';
import { isPlainObject } from '../nodes/shared/values';
import type { CaseDataDetails, CaseDataRecord, SearchRecord } from './state';
import { caseDataStatusFields, pendingStatusFields } from './statuses';

const DRUG_SCREENING_SUBCATEGORY = 'service-subcat-drug';
const OHS_CATEGORY = 'service-cat-ohs';
const VERIFICATION_CATEGORY = 'service-cat-verification';
const TB_SKIN_TESTS = [
	'service-ohs-tb-skintest',
	'service-ohs-tb-ppd-test-1',
	'service-ohs-tb-ppd-test-2',
];

function serviceIdNamed(name: string): string {
	const service = SERVICES.find((candidate) => candidate.name === name);
	if (!service) throw new Error(`The catalog has no service named ${name}`);
	return service.id;
}

const COUNTY_CRIMINAL_SEARCH = serviceIdNamed('County Criminal Search');

export const DEFAULT_JURISDICTION = { county: 'Travis', state: 'TX' } as const;

function classification(serviceId: string) {
	const service = findService(serviceId);
	if (!service && isDrugPanelServiceId(serviceId)) {
		return {
			categoryId: OHS_CATEGORY,
			subcategoryId: DRUG_SCREENING_SUBCATEGORY,
			typeId: undefined,
		};
	}
	return {
		categoryId: service?.categoryId,
		subcategoryId: service?.subcategoryId,
		typeId: service?.typeId,
	};
}

export function isDrugScreening(serviceId: string): boolean {
	return classification(serviceId).subcategoryId === DRUG_SCREENING_SUBCATEGORY;
}

/** The pending statuses a service walks through before its result when no script says otherwise. */
export function defaultPendingPath(serviceId: string): string[] {
	if (isDrugScreening(serviceId)) {
		return [
			'drugtest-appointment-scheduled',
			'drugtest-sent',
			'drugtest-received',
			'drugtest-review',
		];
	}
	if (classification(serviceId).categoryId !== OHS_CATEGORY) return [];
	if (TB_SKIN_TESTS.includes(serviceId)) {
		return ['pending-status-scheduled', 'pending-status-suspended', 'pending-status-pending'];
	}
	return ['pending-status-scheduled', 'pending-status-pending'];
}

function ownOrderData(
	serviceId: string,
	orderData: Record<string, unknown>[],
): Record<string, unknown>[] {
	return orderData.filter((entry) => entry.serviceId === serviceId);
}

function searchRecord(fields: Record<string, unknown>): SearchRecord {
	const details = { ...fields };
	delete details.serviceId;
	return { ...details, searchId: randomUUID(), ...caseDataStatusFields('pending') };
}

function initialDetails(serviceId: string, orderData: Record<string, unknown>[]): CaseDataDetails {
	const entries = ownOrderData(serviceId, orderData);
	if (classification(serviceId).categoryId === VERIFICATION_CATEGORY) {
		const records = entries.length > 0 ? entries : [{ source: 'candidate onboarding' }];
		return { records: records.map(searchRecord) };
	}
	if (serviceId === COUNTY_CRIMINAL_SEARCH) {
		const requested = entries.flatMap((entry) =>
			Array.isArray(entry.jurisdictions) ? entry.jurisdictions : [],
		);
		const jurisdictions = requested.length > 0 ? requested : [DEFAULT_JURISDICTION];
		return {
			jurisdictions: jurisdictions.map((jurisdiction) =>
				searchRecord(isPlainObject(jurisdiction) ? jurisdiction : { county: String(jurisdiction) }),
			),
		};
	}
	return {};
}

export function buildCaseData(
	caseId: string,
	serviceId: string,
	orderData: Record<string, unknown>[],
	now: string,
): CaseDataRecord {
	const { categoryId, subcategoryId, typeId } = classification(serviceId);
	return {
		id: randomUUID(),
		caseId,
		serviceId,
		serviceName: serviceName(serviceId),
		serviceTypeId: typeId ?? SANDBOX_SCREENING_SERVICE_TYPE_ID,
		categoryId: categoryId ?? null,
		subcategoryId: subcategoryId ?? null,
		...caseDataStatusFields('pending'),
		...pendingStatusFields(null),
		details: initialDetails(serviceId, orderData),
		crStamp: now,
		modStamp: now,
	};
}

/** Every search record of a case data, whatever kind of service it is. */
export function searchRecordsOf(caseData: CaseDataRecord): SearchRecord[] {
	return [...(caseData.details.records ?? []), ...(caseData.details.jurisdictions ?? [])];
}
