/** Spec 3.1-3.3: case progress on the sandbox clock, and scripting it, read as the API reference answers it. */
import {
	CASE_DATA_STATUSES,
	CASE_STATUSES,
	CASE_STATUS_SEQUENCE,
	REFERENCE_PENDING_STATUSES,
	SECONDARY_CASE_STATUSES,
	SERVICE_TYPES,
} from '../../nodes/shared/catalog';
import { caseBody, orderOf, tokenFor, useReceiver, useSandboxClient } from '../helpers/sandbox';

const STEP_SECONDS = 300;
const DRUG_PANEL = 'service-drug-10-panel';
const TB_TEST = 'service-ohs-tb-quantiferon-gold';
const SSN_TRACE = '29cd44ab-a8f0-4b27-868e-dc4be88ff541';
const EMPLOYMENT = '9ac65633-b4c4-4062-875c-3556db9d2a08';
const EDUCATION = '85307784-1f84-471a-8596-c8ea088c3a62';
const COUNTY = 'fa226cb7-1214-4cdf-9296-6120a7376926';
const SCREENING = SERVICE_TYPES.find((type) => type.name === 'Screening')!.id;
const IDENTITY = SERVICE_TYPES.find((type) => type.name === 'Identity')!.id;

const client = useSandboxClient({ stepSeconds: STEP_SECONDS });
const receiver = useReceiver();
beforeEach(() => client.admin.createSubscription({ url: receiver.url }));

const statusIdOf = (status: string) =>
	CASE_DATA_STATUSES.find((entry) => entry.status === status)!.statusId;
/** A case data (or search record) status with its ID from the spec table. */
const withStatus = (status: string) => ({ status, statusId: statusIdOf(status) });
const pendingNameOf = (id: string) =>
	REFERENCE_PENDING_STATUSES.find((entry) => entry.id === id)!.name;
const idOf = (list: ReadonlyArray<{ name: string; id: string }>, name: string) =>
	list.find((entry) => entry.name === name)!.id;

const withServices = (...ids: string[]) => caseBody(orderOf(...ids));

const fetchCase = (caseId: string) => client.getCase(caseId);

/** The search records of a case data: the reference's `details` is a string, the JSON of them. */
const searchesOf = (caseData: { details: string }) => JSON.parse(caseData.details);

/** Runs every transition of the case, one step of sandbox time at a time, until it is complete. */
async function runToCompletion(caseId: string) {
	for (let guard = 0; guard < 20 && (await fetchCase(caseId)).caseStatus !== 'Complete'; guard++) {
		await client.admin.advanceClock(STEP_SECONDS);
	}
	await client.admin.idle();
}

/** The event objects received for `event`, of one service when `serviceId` is given. */
const eventsOf = (event: string, serviceId?: string) =>
	receiver.received
		.map((hook) => hook.json)
		.filter(
			(json) => json.event === event && (!serviceId || json.eventObject.serviceId === serviceId),
		)
		.map((json) => json.eventObject);
const caseEvents = () => eventsOf('case.statuschange');
const caseDataEvents = (serviceId: string) => eventsOf('casedata.statuschange', serviceId);

describe('case status sequence', () => {
	it("walks the four steps of spec 3.3 with the reference's status IDs, emitting case.statuschange at each", async () => {
		const created = await client.createCase();
		expect(created).toMatchObject({
			caseStatus: 'Pending',
			caseStatusId: idOf(CASE_STATUSES, 'Pending'),
			secondaryStatus: 'Waiting for Authorization',
			secondaryCaseStatusId: idOf(SECONDARY_CASE_STATUSES, 'Waiting for Authorization'),
			resultType: 'Open',
		});

		await runToCompletion(created.id);

		const sequence = caseEvents().map((event) => [event.caseStatus, event.secondaryStatus]);
		expect(sequence).toEqual(
			CASE_STATUS_SEQUENCE.map((step) => [step.caseStatus, step.secondaryStatus]),
		);
		for (const event of caseEvents()) {
			expect(event.id).toBe(created.id);
			expect(event.caseStatusId).toBe(idOf(CASE_STATUSES, event.caseStatus));
			expect(event.secondaryCaseStatusId).toBe(
				event.secondaryStatus === null
					? null
					: idOf(SECONDARY_CASE_STATUSES, event.secondaryStatus),
			);
			expect(event.modStamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
		}
		const finished = await fetchCase(created.id);
		expect(finished).toMatchObject({
			caseStatus: 'Complete',
			caseStatusId: idOf(CASE_STATUSES, 'Complete'),
		});
		// A case without a secondary status leaves it out.
		expect(finished.secondaryStatus).toBeUndefined();
		expect(finished.secondaryCaseStatusId).toBeUndefined();
		expect(finished.modStamp).toBe(caseEvents()[3].modStamp);
	});

	it('does not move while the clock stands still', async () => {
		const created = await client.createCase();
		await client.admin.advanceClock(STEP_SECONDS - 1);
		expect((await fetchCase(created.id)).secondaryStatus).toBe('Waiting for Authorization');
		await client.admin.advanceClock(1);
		expect((await fetchCase(created.id)).secondaryStatus).toBe('Authorization in Progress');
	});
});

describe('case data', () => {
	it('goes from pending through the pending statuses of 3.2 (drug, OHS) to clear, with IDs from the spec tables', async () => {
		const created = await client.createCase(withServices(SSN_TRACE, DRUG_PANEL, TB_TEST));
		const initial = await client.getCaseData(created.id);
		expect(initial.map((caseData) => caseData.serviceId)).toEqual([SSN_TRACE, TB_TEST, DRUG_PANEL]);
		for (const caseData of initial) {
			expect(caseData).toMatchObject({ ...withStatus('pending'), statusDisplayName: 'Pending' });
			expect(caseData.pendingStatus).toBeUndefined();
		}

		await runToCompletion(created.id);

		const drug = caseDataEvents(DRUG_PANEL);
		expect(drug.map((event) => event.pendingStatusId)).toEqual([
			'drugtest-appointment-scheduled',
			'drugtest-sent',
			'drugtest-received',
			'drugtest-review',
			null,
		]);
		for (const event of drug.slice(0, -1)) {
			expect(event.status).toBe('pending');
			expect(event.pendingStatus).toBe(pendingNameOf(event.pendingStatusId));
			expect(event.caseId).toBe(created.id);
		}
		expect(drug.at(-1)).toMatchObject({ ...withStatus('clear'), pendingStatus: null });
		expect(caseDataEvents(TB_TEST).map((event) => event.pendingStatusId)).toEqual([
			'pending-status-scheduled',
			'pending-status-pending',
			null,
		]);
		expect(caseDataEvents(SSN_TRACE).map((event) => event.status)).toEqual(['clear']);
		const final = await client.getCaseData(created.id);
		expect(final.map((caseData) => caseData.status)).toEqual(['clear', 'clear', 'clear']);
		expect(final.map((caseData) => caseData.id)).toEqual(initial.map((caseData) => caseData.id));
	});

	it('carries per-record searchId / statusId for verifications and jurisdictions for county criminal', async () => {
		const employers = ['Acme Logistics', 'Harbor Point Clinic'];
		const created = await client.createCase(
			caseBody({
				...orderOf(EMPLOYMENT),
				orderData: employers.map((employer) => ({
					caseOrderDataTypeId: 'codt-employment',
					serviceId: EMPLOYMENT,
					metadata: {
						employer,
						position: 'Nurse',
						city: 'Dallas',
						state: 'TX',
						country: 'US',
						monthBegin: '01',
						yearBegin: '2020',
						current: false,
						monthEnd: '12',
						yearEnd: '2022',
					},
				})),
			}),
		);
		const added = await client.call('POST', `/case/id/${created.id}/add/services`, {
			body: {
				services: [{ id: COUNTY }],
				orderData: [
					{
						caseOrderDataTypeId: 'codt-jurisdiction-county',
						serviceId: COUNTY,
						metadata: { county: 'Cook', state: 'IL' },
					},
				],
			},
		});
		expect(added.status).toBe(200);

		const screening = await client.call('GET', `/case/id/${created.id}/data/${SCREENING}`);
		expect(screening.status).toBe(200);
		const [employmentData, countyData] = screening.body.data;
		expect(employmentData).toMatchObject({ serviceId: EMPLOYMENT, serviceTypeId: SCREENING });
		expect(searchesOf(employmentData).records).toEqual(
			employers.map((employer) =>
				expect.objectContaining({
					employer,
					searchId: expect.any(String),
					statusId: statusIdOf('pending'),
				}),
			),
		);
		expect(searchesOf(countyData).jurisdictions).toEqual([
			expect.objectContaining({
				county: 'Cook',
				state: 'IL',
				searchId: expect.any(String),
				status: 'pending',
			}),
		]);

		// Case data are read per service type: the case has no identity service; a service ID is no type.
		expect((await client.call('GET', `/case/id/${created.id}/data/${IDENTITY}`)).body).toEqual({
			data: [],
		});
		expect((await client.call('GET', `/case/id/${created.id}/data/${EMPLOYMENT}`)).status).toBe(
			400,
		);
	});

	it('cancels one search record; a case data whose searches are all canceled ends canceled', async () => {
		const created = await client.createCase(
			caseBody({
				...orderOf(EDUCATION),
				orderData: [
					{
						caseOrderDataTypeId: 'codt-education',
						serviceId: EDUCATION,
						metadata: {
							institution: 'Valley State University',
							city: 'Fresno',
							state: 'CA',
							country: 'US',
							current: false,
							monthEnd: '05',
							yearEnd: '2019',
						},
					},
				],
			}),
		);
		const [education] = await client.getCaseData(created.id);
		const caseDataId = education.id;
		const searchId = searchesOf(education).records[0].searchId;
		const cancel = (search: string, token = client.token) =>
			client.call('POST', `/case/data/id/${caseDataId}/search/id/${search}/cancel`, { token });

		const result = await cancel(searchId);
		expect(result.status).toBe(200);
		const [canceled] = await client.getCaseData(created.id);
		expect(searchesOf(canceled).records[0]).toMatchObject(withStatus('canceled'));
		expect(canceled).toMatchObject(withStatus('canceled'));
		// The event goes out by webhook: wait until its delivery has its outcome.
		await client.admin.idle();
		expect(caseDataEvents(EDUCATION).at(-1)).toMatchObject({
			id: caseDataId,
			...withStatus('canceled'),
		});

		expect((await cancel(searchId)).status).toBe(400);
		expect((await cancel('nope')).status).toBe(404);
		expect((await cancel(searchId, await tokenFor(client.sandbox, 1))).status).toBe(403);
	});
});

describe('scripting', () => {
	it('ends a scripted candidate with consider (admin script by email)', async () => {
		const body = caseBody();
		client.admin.scriptCandidate(String(body.email), { finalStatus: 'consider' });
		const created = await client.createCase(body);

		await runToCompletion(created.id);

		expect((await client.getCaseData(created.id))[0]).toMatchObject(withStatus('consider'));
		expect((await fetchCase(created.id)).caseStatus).toBe('Complete');
	});

	it('reads a final status tag from the email (jane+not_found@...)', async () => {
		const created = await client.createCase(caseBody({}, '+not_found'));
		await runToCompletion(created.id);
		expect((await client.getCaseData(created.id))[0].status).toBe('not_found');
	});

	it('holds a case at a step until advanced, and scripts single services and pending paths', async () => {
		const created = await client.createCase(withServices(SSN_TRACE, DRUG_PANEL));
		client.admin.scriptCase(created.id, {
			holdAtStep: 1,
			services: {
				[DRUG_PANEL]: {
					finalStatus: 'consider',
					pendingStatusIds: ['pending-status-medical-review'],
				},
			},
		});

		await client.admin.advanceClock(10 * STEP_SECONDS);
		expect((await fetchCase(created.id)).secondaryStatus).toBe('Waiting for Authorization');

		const advance = () => client.admin.advanceCase(created.id);
		expect(advance().case.secondaryStatus).toBe('Authorization in Progress');
		expect(advance().case.secondaryStatus).toBeUndefined();
		const { caseData } = advance().case;
		expect(caseData.map((data) => [data.status, data.pendingStatusId])).toEqual([
			['clear', undefined],
			['pending', 'pending-status-medical-review'],
		]);
		const done = advance();
		expect(done.case.caseStatus).toBe('Complete');
		expect(done.case.caseData[1].status).toBe('consider');
		expect(advance().advanced).toBe(false);
		expect((await client.getCaseData(created.id)).map((data) => data.status)).toEqual([
			'clear',
			'consider',
		]);
	});

	it('rejects scripts with statuses that are not in the spec or the reference', async () => {
		const created = await client.createCase();
		expect(() => client.admin.scriptCase(created.id, { finalStatus: 'great' as never })).toThrow(
			/finalStatus/,
		);
		for (const pendingStatusId of ['not-a-status', 'pending-status-followup-required']) {
			const response = await client.adminCall('POST', `/cases/${created.id}/script`, {
				services: { [SSN_TRACE]: { pendingStatusIds: [pendingStatusId] } },
			});
			expect(response.status).toBe(400);
		}
	});
});

describe('adding services', () => {
	it('reopens a complete case: back to Pending / no secondary status, then Complete again', async () => {
		const created = await client.createCase();
		await runToCompletion(created.id);

		const result = await client.call('POST', `/case/id/${created.id}/add/services`, {
			body: { services: [{ id: SSN_TRACE }, { id: 'service-bankruptcy' }] },
		});
		expect(result.status).toBe(200);
		expect(result.body).toBe('');
		const reopened = await fetchCase(created.id);
		expect(reopened.caseStatus).toBe('Pending');
		expect(reopened.secondaryStatus).toBeUndefined();
		const services = await client.call('GET', `/case/id/${created.id}/services`);
		expect(
			services.body.serviceGroupServices.map((service: { serviceId: string }) => service.serviceId),
		).toEqual([SSN_TRACE, 'service-bankruptcy']);

		await runToCompletion(created.id);
		expect((await client.getCaseData(created.id)).map((data) => data.status)).toEqual([
			'clear',
			'clear',
		]);
	});
});
