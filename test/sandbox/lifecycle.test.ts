/** Spec 3.1-3.3: case progress on the sandbox clock, and scripting it. */
import {
	CASE_DATA_STATUSES,
	CASE_STATUS_SEQUENCE,
	PENDING_STATUSES,
} from '../../nodes/shared/catalog';
import { caseBody, tokenFor, useReceiver, useSandboxClient } from '../helpers/sandbox';

const STEP_SECONDS = 300;
const DRUG_PANEL = 'service-drug-10-panel';
const TB_TEST = 'service-ohs-tb-quantiferon-gold';
const SSN_TRACE = '29cd44ab-a8f0-4b27-868e-dc4be88ff541';

const client = useSandboxClient({ stepSeconds: STEP_SECONDS });
const receiver = useReceiver();
beforeEach(() => client.admin.createSubscription({ url: receiver.url }));

const statusIdOf = (status: string) =>
	CASE_DATA_STATUSES.find((entry) => entry.status === status)!.statusId;
/** A case data (or search record) status with its ID from the spec table. */
const withStatus = (status: string) => ({ status, statusId: statusIdOf(status) });
const pendingNameOf = (id: string) =>
	PENDING_STATUSES.find((entry) => entry.pendingStatusId === id)!.name;

const withServices = (...ids: string[]) => caseBody({ services: ids.map((id) => ({ id })) });

async function fetchCase(caseId: string) {
	return (await client.call('GET', `/case/id/${caseId}`)).body;
}

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
	it('walks the four steps of spec 3.3, emitting case.statuschange at each', async () => {
		const created = await client.createCase();
		expect(created).toMatchObject({
			caseStatus: 'Pending',
			secondaryStatus: 'Waiting for Authorization',
		});

		await runToCompletion(created.id);

		const sequence = caseEvents().map((event) => [event.caseStatus, event.secondaryStatus]);
		expect(sequence).toEqual(
			CASE_STATUS_SEQUENCE.map((step) => [step.caseStatus, step.secondaryStatus]),
		);
		for (const event of caseEvents()) {
			expect(event.id).toBe(created.id);
			expect(event.caseStatusId).toEqual(expect.any(String));
			expect(event.secondaryCaseStatusId === null).toBe(event.secondaryStatus === null);
			expect(event.modStamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
		}
		const finished = await fetchCase(created.id);
		expect(finished).toMatchObject({
			caseStatus: 'Complete',
			caseStatusId: 'case-status-complete',
			secondaryStatus: null,
		});
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
		for (const service of created.services) {
			expect(service).toMatchObject({ ...withStatus('pending'), pendingStatus: null });
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
		}
		expect(drug.at(-1)).toMatchObject({ ...withStatus('clear'), pendingStatus: null });
		expect(caseDataEvents(TB_TEST).map((event) => event.pendingStatusId)).toEqual([
			'pending-status-scheduled',
			'pending-status-pending',
			null,
		]);
		expect(caseDataEvents(SSN_TRACE).map((event) => event.status)).toEqual(['clear']);
	});

	it('carries per-record searchId / statusId for verifications and jurisdictions for county criminal', async () => {
		const employment = '9ac65633-b4c4-4062-875c-3556db9d2a08';
		const county = 'fa226cb7-1214-4cdf-9296-6120a7376926';
		const employers = ['Acme Logistics', 'Harbor Point Clinic'];
		const created = await client.createCase(
			caseBody({
				services: [{ id: employment }, { id: county }],
				orderData: [
					...employers.map((employerName) => ({ serviceId: employment, employerName })),
					{ serviceId: county, jurisdictions: [{ county: 'Cook', state: 'IL' }] },
				],
			}),
		);
		const dataOf = async (id: string) =>
			(await client.call('GET', `/case/id/${created.id}/data/${id}`)).body.caseDataList;
		const data = await dataOf(created.services[0].serviceTypeId);
		expect(data).toHaveLength(2);
		const [employmentData, countyData] = data;
		expect(employmentData.details.records).toEqual(
			employers.map((employerName) =>
				expect.objectContaining({
					employerName,
					searchId: expect.any(String),
					statusId: statusIdOf('pending'),
				}),
			),
		);
		expect(countyData.details.jurisdictions).toEqual([
			expect.objectContaining({
				county: 'Cook',
				state: 'IL',
				searchId: expect.any(String),
				status: 'pending',
			}),
		]);

		const byService = await dataOf(employment);
		expect(byService.map((entry: { serviceId: string }) => entry.serviceId)).toEqual([employment]);
	});

	it('cancels one search record; a case data whose searches are all canceled ends canceled', async () => {
		const education = '85307784-1f84-471a-8596-c8ea088c3a62';
		const created = await client.createCase(
			caseBody({
				services: [{ id: education }],
				orderData: [{ serviceId: education, schoolName: 'Valley State University' }],
			}),
		);
		const caseDataId = created.services[0].caseDataId;
		const detail = client.admin.getCase(created.id).caseData[0];
		const searchId = detail.details.records![0].searchId;
		const cancel = (search: string, token = client.token) =>
			client.call('POST', `/case/data/id/${caseDataId}/search/id/${search}/cancel`, { token });

		const result = await cancel(searchId);
		expect(result.status).toBe(200);
		expect(result.body.details.records[0]).toMatchObject(withStatus('canceled'));
		expect(result.body).toMatchObject(withStatus('canceled'));
		expect((await cancel(searchId)).status).toBe(400);
		expect((await cancel('nope')).status).toBe(404);
		expect((await cancel(searchId, await tokenFor(client.sandbox, 1))).status).toBe(403);
	});
});

describe('scripting', () => {
	it('ends a scripted candidate with consider (admin script by email)', async () => {
		const body = caseBody();
		const { email } = body.candidate as { email: string };
		client.admin.scriptCandidate(email, { finalStatus: 'consider' });
		const created = await client.createCase(body);

		await runToCompletion(created.id);

		expect((await fetchCase(created.id)).services[0]).toMatchObject(withStatus('consider'));
		expect((await fetchCase(created.id)).caseStatus).toBe('Complete');
	});

	it('reads a final status tag from the email (jane+not_found@...)', async () => {
		const created = await client.createCase(caseBody({}, '+not_found'));
		await runToCompletion(created.id);
		expect((await fetchCase(created.id)).services[0].status).toBe('not_found');
	});

	it('holds a case at a step until advanced, and scripts single services and pending paths', async () => {
		const created = await client.createCase(withServices(SSN_TRACE, DRUG_PANEL));
		client.admin.scriptCase(created.id, {
			holdAtStep: 1,
			services: {
				[DRUG_PANEL]: {
					finalStatus: 'consider',
					pendingStatusIds: ['pending-status-followup-required'],
				},
			},
		});

		await client.admin.advanceClock(10 * STEP_SECONDS);
		expect((await fetchCase(created.id)).secondaryStatus).toBe('Waiting for Authorization');

		const advance = () => client.admin.advanceCase(created.id);
		expect(advance().case.secondaryStatus).toBe('Authorization in Progress');
		expect(advance().case.secondaryStatus).toBeNull();
		const { services } = advance().case;
		expect(services.map((service) => [service.status, service.pendingStatusId])).toEqual([
			['clear', null],
			['pending', 'pending-status-followup-required'],
		]);
		const done = advance();
		expect(done.case.caseStatus).toBe('Complete');
		expect(done.case.services[1].status).toBe('consider');
		expect(advance().advanced).toBe(false);
	});

	it('rejects scripts with statuses that are not in the spec', async () => {
		const created = await client.createCase();
		expect(() => client.admin.scriptCase(created.id, { finalStatus: 'great' as never })).toThrow(
			/finalStatus/,
		);
		const response = await client.adminCall('POST', `/cases/${created.id}/script`, {
			services: { [SSN_TRACE]: { pendingStatusIds: ['not-a-status'] } },
		});
		expect(response.status).toBe(400);
	});
});

describe('adding services', () => {
	it('reopens a complete case: back to Pending / null, then Complete again', async () => {
		const created = await client.createCase();
		await runToCompletion(created.id);

		const result = await client.call('POST', `/case/id/${created.id}/add/services`, {
			body: { services: [{ id: SSN_TRACE }, { id: 'service-bankruptcy' }] },
		});
		expect(result.status).toBe(200);
		expect(result.body).toMatchObject({ caseStatus: 'Pending', secondaryStatus: null });
		expect(result.body.services.map((service: { serviceId: string }) => service.serviceId)).toEqual(
			[SSN_TRACE, 'service-bankruptcy'],
		);

		await runToCompletion(created.id);
		expect(
			(await fetchCase(created.id)).services.map((service: { status: string }) => service.status),
		).toEqual(['clear', 'clear']);
	});
});
