/**
 * The watchdog against the sandbox: what it reports after changes whose deliveries never arrived (the
 * sandbox's delivery fault drops them all and its delivery log keeps what they carried), what it reads to
 * find them, and what it keeps in the trigger's memory (memory.ts) across watchdog runs and restarts.
 *
 * The sandbox's clock stands still unless a test moves it; the provider's does not, so a test moves it on
 * between the record of activation and the changes it makes after it.
 */
import type { IDataObject } from 'n8n-workflow';

import {
	changeOf,
	eventKeyOf,
	parseEvent,
	type WebhookEvent,
} from '../../../nodes/BackgroundCheckTrigger/event';
import { TriggerMemory } from '../../../nodes/BackgroundCheckTrigger/memory';
import {
	WATCHDOG_BUDGET,
	type WatchdogEvent,
} from '../../../nodes/BackgroundCheckTrigger/watchdog';
import {
	readChanges,
	recordAllCases,
	type CaseApi,
	type WatchdogReport,
} from '../../../nodes/BackgroundCheckTrigger/watchdogReads';
import {
	WATCHDOG_INTERVALS,
	watchdogSchedule,
	type WatchdogInterval,
} from '../../../nodes/BackgroundCheckTrigger/watchdogSchedule';
import { startSandbox, type Sandbox } from '../../../sandbox';
import {
	caseOrder,
	sandboxCaseApi,
	sandboxToken,
	type CountingCaseApi,
} from '../../helpers/sandboxCaseApi';

let sandbox: Sandbox;
let api: CountingCaseApi;
const ALL = { cases: true, caseData: true };
const LIST = 'GET /case/list';
const LIST_ONLY = [LIST];
/** Only the cases that changed are read. */
const CHANGED_ONLY = { ...WATCHDOG_BUDGET, unchangedCases: 0 };
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** What the delivery of each case data and of each case status change carries in its eventObject. */
const CASE_EVENT_FIELDS = [
	...['id', 'caseStatusId', 'caseStatus', 'secondaryCaseStatusId', 'secondaryStatus'],
	...['resultType', 'candidateId', 'packageId', 'groupProfileId', 'modStamp'],
].sort();
const CASE_DATA_EVENT_FIELDS = [
	...['id', 'caseId', 'groupProfileId', 'serviceId', 'serviceName', 'serviceTypeId'],
	...['status', 'statusId', 'pendingStatus', 'pendingStatusId', 'modStamp'],
].sort();

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0, timeScale: 0 });
});

beforeEach(async () => {
	await sandbox.admin.idle();
	sandbox.admin.reset();
	// Every event is published (the delivery log has what it carried) and none arrives.
	const subscription = sandbox.admin.createSubscription({ url: 'http://127.0.0.1:9/nowhere' });
	sandbox.admin.injectDeliveryFault({ subscriptionId: subscription.id, dropRate: 1 });
	api = await sandboxCaseApi(sandbox);
});

afterEach(() => {
	// Every read the watchdog made, and every answer it got, is one the API reference defines.
	expect(api.contractProblems).toEqual([]);
});

afterAll(async () => {
	await sandbox.stop();
});

let candidates = 0;

/** POST to the API as the first demo group. */
async function post(path: string, body: unknown): Promise<Response> {
	return await fetch(`${sandbox.url}${path}`, {
		method: 'POST',
		headers: {
			'content-type': 'application/json',
			authorization: `Bearer ${await sandboxToken(sandbox)}`,
		},
		body: JSON.stringify(body),
	});
}

/**
 * A case of the East group with `services` services, each finished by the first transition of processing,
 * whose lifecycle moves only when a test advances it.
 */
async function createCase(services = 2, order: IDataObject = {}): Promise<string> {
	const email = `watchdog-${++candidates}@example.com`;
	sandbox.admin.scriptCandidate(email, { holdAtStep: 1 });
	const { packageId, excludeServices } = caseOrder(services);
	const response = await post('/case/create', {
		packageId,
		email,
		givenName: 'Ada',
		familyName: 'Lovelace',
		...(excludeServices.length > 0 && { excludeServices }),
		...order,
	});
	const created = (await response.json()) as { caseId: string };
	expect(response.status).toBe(200);
	await sandbox.admin.idle();
	return created.caseId;
}

async function advance(caseId: string, times = 1): Promise<void> {
	for (let step = 0; step < times; step++) {
		sandbox.admin.advanceCase(caseId);
		await sandbox.admin.idle();
	}
}

/** Time passes for the provider (see the top of this file). */
const later = async () => void (await sandbox.admin.advanceClock(1));

/** The events the sandbox published (and dropped) for a case since `after` attempts, one per message. */
function published(caseId: string, after = 0) {
	const messages = new Map<string, unknown>();
	for (const attempt of sandbox.admin.deliveryLog({ caseId }).slice(after))
		messages.set(attempt.messageId, attempt.payload);
	return [...messages.values()].map((payload) => parseEvent(Buffer.from(JSON.stringify(payload)))!);
}

const publishedKeys = (caseId: string, after = 0) => published(caseId, after).map(eventKeyOf);

const keysOf = (events: WatchdogEvent[]) => events.map(({ event }) => eventKeyOf(event));
const namesOf = (events: WatchdogEvent[]) => events.map(({ event }) => event.event);

/** What the executions of a watchdog run's events record when they run (latestCase.ts, watchdogSchedule.ts). */
function runAll(memory: TriggerMemory, { events }: WatchdogReport): WatchdogReport['events'] {
	for (const { event } of events)
		memory.remember(changeOf(event), nowSeconds(), { fromWatchdog: true });
	return events;
}

/** A new case, and a memory holding the watchdog's record of activation since. */
async function watchedCase(services = 2): Promise<{ caseId: string; memory: TriggerMemory }> {
	const caseId = await createCase(services);
	const memory = new TriggerMemory();
	await recordAllCases(memory.state, api);
	await later();
	return { caseId, memory };
}

/** The case IDs whose services or data a watchdog run read, in the order it read them first. */
const casesRead = (calls: string[]) => [
	...new Set(
		calls.flatMap((call) => /^GET \/case\/id\/([^/]+)\/(services|data)/.exec(call)?.[1] ?? []),
	),
];

/** The data reads of a case, one per service type of its order. */
const dataReads = (caseId: string, services: number) =>
	caseOrder(services).serviceTypeIds.map((type) => `GET /case/id/${caseId}/data/${type}`);

/** The API with the entries of its list passed through `edit`. */
const listEdited = (edit: (entries: IDataObject[]) => unknown[]): CaseApi => ({
	...api,
	listCases: async () => {
		const body = (await api.listCases()) as IDataObject;
		return { ...body, cases: edit(body.cases as IDataObject[]) };
	},
});

/** The API with `caseId` left out of the list, as a case archived and restored in between would be. */
const listWithout = (caseId: string) =>
	listEdited((entries) => entries.filter((entry) => entry.id !== caseId));

/** The body a delivery of `event` carried, without its message ID (a watchdog run has none). */
function bodyWithoutMessageId({ body }: WebhookEvent) {
	const copy = { ...body };
	delete copy.messageId;
	return copy;
}

describe('the watchdog', () => {
	it('records the cases at activation with one list read and reports nothing: no history is replayed, case data included', async () => {
		const caseId = await createCase();
		await advance(caseId, 3);
		expect(sandbox.admin.getCase(caseId).caseStatus).toBe('Complete');
		const memory = new TriggerMemory();
		expect(await recordAllCases(memory.state, api)).toBe(1);
		expect(memory.recorded).toBe(true);
		expect(memory.statusOf(`case:${caseId}`)).toBeDefined();
		expect(api.calls).toEqual(LIST_ONLY);
		// The case's data is read (round-robin): its services finished before the record.
		expect(await readChanges(memory.state, api, ALL)).toEqual({
			cases: 1,
			events: [],
			failures: [],
		});
		expect(casesRead(api.calls)).toEqual([caseId]);
	});

	it('reports each case and case data change no delivery reported, as the delivery would have carried it (same content key, the same fields)', async () => {
		const { caseId, memory } = await watchedCase();
		const logged = sandbox.admin.deliveryLog({ caseId }).length;
		// Step 2, then step 3, then the services change (the case completes when they are all done).
		for (let step = 0; step < 2; step++) {
			await advance(caseId);
			const events = runAll(memory, await readChanges(memory.state, api, ALL));
			expect(keysOf(events)).toEqual(publishedKeys(caseId, logged + step));
			expect(namesOf(events)).toEqual(['case.statuschange']);
		}
		await advance(caseId);
		const before = sandbox.admin.deliveryLog({ caseId }).length;
		const events = runAll(memory, await readChanges(memory.state, api, ALL));
		expect(namesOf(events).sort()).toEqual([
			'case.statuschange',
			'casedata.statuschange',
			'casedata.statuschange',
		]);
		expect(keysOf(events).sort()).toEqual(publishedKeys(caseId, before - 3).sort());
		for (const { event } of events)
			expect(Object.keys(event.eventObject).sort()).toEqual(
				event.event === 'case.statuschange' ? CASE_EVENT_FIELDS : CASE_DATA_EVENT_FIELDS,
			);
		const caseEvent = events.find(({ event }) => event.event === 'case.statuschange')!;
		expect(caseEvent.event.eventObject).toMatchObject({ id: caseId, caseStatus: 'Complete' });
		expect(caseEvent.latestCase).toMatchObject({ id: caseId, caseStatus: 'Complete' });
		for (const { event, latestCase } of events.filter(
			({ event }) => event.event === 'casedata.statuschange',
		)) {
			expect(event.eventObject).toMatchObject({ caseId, status: 'clear' });
			expect(latestCase).toMatchObject({ id: caseId });
		}
		// Nothing changed since: nothing to report; the case's data is read again round-robin, its types known.
		api.calls.length = 0;
		expect((await readChanges(memory.state, api, ALL)).events).toEqual([]);
		expect(api.calls).toEqual([LIST, ...dataReads(caseId, 2)]);
		api.calls.length = 0;
		expect((await readChanges(memory.state, api, ALL, CHANGED_ONLY)).events).toEqual([]);
		expect(api.calls).toEqual(LIST_ONLY);
	});

	it('learns nothing of what it reports: until an execution records the change, every watchdog run reports it again', async () => {
		const { caseId, memory } = await watchedCase();
		await advance(caseId);
		const first = await readChanges(memory.state, api, ALL);
		expect(first.events).toHaveLength(1);
		expect(keysOf((await readChanges(memory.state, api, ALL)).events)).toEqual(
			keysOf(first.events),
		);
		runAll(memory, first);
		expect((await readChanges(memory.state, api, ALL)).events).toEqual([]);
	});

	it('does not report what a delivery already reported, nor read the case for it', async () => {
		const { caseId, memory } = await watchedCase();
		const logged = sandbox.admin.deliveryLog({ caseId }).length;
		await advance(caseId);
		const [delivered] = published(caseId, logged);
		expect(memory.remember(changeOf(delivered), nowSeconds())).toBe(true);
		api.calls.length = 0;
		expect((await readChanges(memory.state, api, ALL, CHANGED_ONLY)).events).toEqual([]);
		expect(api.calls).toEqual(LIST_ONLY);
	});

	it('does not let an older delivery arriving after a newer one move the known status back', async () => {
		const { caseId, memory } = await watchedCase();
		await advance(caseId);
		await sandbox.admin.advanceClock(10);
		await advance(caseId);
		const [older, newer] = published(caseId).slice(-2);
		expect(Date.parse(String(older.eventObject.modStamp))).toBeLessThan(
			Date.parse(String(newer.eventObject.modStamp)),
		);
		// Both delivered, out of order, and both ran (Ignore Older Events off).
		memory.remember(changeOf(newer), nowSeconds());
		memory.remember(changeOf(older), nowSeconds());
		api.calls.length = 0;
		expect((await readChanges(memory.state, api, ALL, CHANGED_ONLY)).events).toEqual([]);
		expect(api.calls).toEqual(LIST_ONLY);
	});

	it('reads a case edited without a status change (a newer modStamp) once, its services again, not at every watchdog run', async () => {
		// A case of the first of two services of two types; the second is added later.
		const { excludeServices, serviceIds, serviceTypeIds } = caseOrder(2);
		expect(serviceTypeIds).toHaveLength(2);
		const caseId = await createCase(2, { excludeServices: [...excludeServices, serviceIds[1]] });
		const memory = new TriggerMemory();
		await recordAllCases(memory.state, api);
		await later();
		const reads = (types: string[]) => types.map((type) => `GET /case/id/${caseId}/data/${type}`);
		expect((await readChanges(memory.state, api, ALL)).events).toEqual([]);
		expect(api.calls.slice(-1)).toEqual(reads(serviceTypeIds.slice(0, 1)));
		// The service added: a newer modStamp, no status change, a case data at its first status.
		const added = await post(`/case/id/${caseId}/add/services`, {
			services: [{ id: serviceIds[1] }],
		});
		expect(added.status).toBe(200);
		api.calls.length = 0;
		expect((await readChanges(memory.state, api, ALL, CHANGED_ONLY)).events).toEqual([]);
		expect(api.calls).toEqual([LIST, `GET /case/id/${caseId}/services`, ...reads(serviceTypeIds)]);
		api.calls.length = 0;
		expect((await readChanges(memory.state, api, ALL, CHANGED_ONLY)).events).toEqual([]);
		expect(api.calls).toEqual(LIST_ONLY);
	});

	it('finds a case data change its case does not show (no new status or modStamp) by reading the case in its round, and reports it at every watchdog run until an execution records it', async () => {
		const { caseId, memory } = await watchedCase(1);
		const [serviceId] = caseOrder(1).serviceIds;
		sandbox.admin.scriptCase(caseId, {
			services: { [serviceId]: { pendingStatusIds: ['pending-status-scheduled'] } },
		});
		await advance(caseId, 2);
		runAll(memory, await readChanges(memory.state, api, ALL));
		const caseBefore = sandbox.admin.getCase(caseId);
		await sandbox.admin.advanceClock(1);
		await advance(caseId);
		// The service is scheduled; the case is where it was.
		expect(sandbox.admin.getCase(caseId)).toMatchObject({
			caseStatusId: caseBefore.caseStatusId,
			modStamp: caseBefore.modStamp,
		});
		api.calls.length = 0;
		expect((await readChanges(memory.state, api, ALL, CHANGED_ONLY)).events).toEqual([]);
		expect(api.calls).toEqual(LIST_ONLY);
		const [delivered] = published(caseId).slice(-1);
		const found = await readChanges(memory.state, api, ALL);
		expect(keysOf(found.events)).toEqual([eventKeyOf(delivered)]);
		expect(found.events[0].event.eventObject).toMatchObject({
			pendingStatusId: 'pending-status-scheduled',
			status: 'pending',
		});
		// Not run yet: found again, the case read as changed.
		expect(keysOf((await readChanges(memory.state, api, ALL, CHANGED_ONLY)).events)).toEqual(
			keysOf(found.events),
		);
		runAll(memory, found);
		api.calls.length = 0;
		expect((await readChanges(memory.state, api, ALL, CHANGED_ONLY)).events).toEqual([]);
		expect(api.calls).toEqual(LIST_ONLY);
	});

	it('keeps a case missing from one watchdog run: listed again, its old status is not reported again', async () => {
		const { caseId, memory } = await watchedCase();
		await advance(caseId);
		runAll(memory, await readChanges(memory.state, api, ALL));
		expect((await readChanges(memory.state, listWithout(caseId), ALL)).events).toEqual([]);
		api.calls.length = 0;
		expect(await readChanges(memory.state, api, ALL, CHANGED_ONLY)).toEqual({
			cases: 1,
			events: [],
			failures: [],
		});
		expect(api.calls).toEqual(LIST_ONLY);
	});

	it('reports a new case, and its services once past their first status; a service added at its first status is no change', async () => {
		const memory = new TriggerMemory();
		await recordAllCases(memory.state, api);
		const caseId = await createCase(1);
		const events = runAll(memory, await readChanges(memory.state, api, ALL));
		expect(keysOf(events)).toEqual(publishedKeys(caseId));
		expect(events[0].event.eventObject).toMatchObject({
			id: caseId,
			caseStatus: 'Pending',
			secondaryStatus: 'Waiting for Authorization',
		});

		// A service added to the case: new, at its first status, no event.
		const [spare] = caseOrder(1).spare;
		await post(`/case/id/${caseId}/add/services`, { services: [{ id: spare }] });
		expect((await readChanges(memory.state, api, ALL)).events).toEqual([]);

		// Both finished while every delivery was lost; the case's three changes come out as its last.
		const before = sandbox.admin.deliveryLog({ caseId }).length;
		await advance(caseId, 3);
		const finished = runAll(memory, await readChanges(memory.state, api, ALL));
		const sent = published(caseId, before);
		const lastOf = (name: string) => sent.filter(({ event }) => event === name).map(eventKeyOf);
		expect(keysOf(finished).sort()).toEqual(
			[...lastOf('case.statuschange').slice(-1), ...lastOf('casedata.statuschange')].sort(),
		);
		expect(namesOf(finished).filter((name) => name === 'casedata.statuschange')).toHaveLength(2);
	});

	it("reports case data changed after the record, also of a case whose data it has not read yet, and takes earlier ones as history (the record's time is saved)", async () => {
		const before = await createCase();
		await advance(before, 3);
		const after = await createCase();
		const recorded = new TriggerMemory();
		await recordAllCases(recorded.state, api);
		const memory = new TriggerMemory();
		memory.mergeSaved(recorded.serialize(), nowSeconds());
		await later();
		await advance(after, 3);
		const changed = await readChanges(memory.state, api, ALL, CHANGED_ONLY);
		expect(casesRead(api.calls)).toEqual([after]);
		expect(namesOf(changed.events).sort()).toEqual([
			'case.statuschange',
			'casedata.statuschange',
			'casedata.statuschange',
		]);
		runAll(memory, changed);
		expect((await readChanges(memory.state, api, ALL)).events).toEqual([]);
		expect(casesRead(api.calls)).toContain(before);
	});

	it('reads the data of the cases that changed, and of a fixed number of the others, oldest read first: every case within ceil(N / budget) watchdog runs', async () => {
		const cases = [];
		for (let index = 0; index < 12; index++) cases.push(await createCase());
		const memory = new TriggerMemory();
		await recordAllCases(memory.state, api);
		await later();
		const changed = cases.slice(0, 3);
		for (const caseId of changed) await advance(caseId, 3);
		const budget = { changedCases: 100, unchangedCases: 4 };
		const reads: string[][] = [];
		for (let runNumber = 0; runNumber < 3; runNumber++) {
			api.calls.length = 0;
			const found = runAll(memory, await readChanges(memory.state, api, ALL, budget));
			expect(found).toHaveLength(runNumber === 0 ? 3 * 3 : 0);
			expect(api.calls.filter((call) => call.startsWith(LIST))).toEqual(LIST_ONLY);
			reads.push(casesRead(api.calls));
		}
		expect(reads).toEqual([
			[...changed, ...cases.slice(3, 7)],
			cases.slice(7, 11),
			[cases[11], ...changed],
		]);
	});

	it('reads at most the budget of changed cases per watchdog run; the others at the next watchdog runs, oldest read first', async () => {
		const memory = new TriggerMemory();
		await recordAllCases(memory.state, api);
		const cases = [];
		for (let index = 0; index < 5; index++) cases.push(await createCase(1));
		const budget = { changedCases: 2, unchangedCases: 0 };
		const reads: string[][] = [];
		for (let runNumber = 0; runNumber < 3; runNumber++) {
			api.calls.length = 0;
			// Every case event is reported each time (none ran): the list is all it takes.
			expect((await readChanges(memory.state, api, ALL, budget)).events).toHaveLength(5);
			reads.push(casesRead(api.calls));
		}
		expect(reads).toEqual([cases.slice(0, 2), cases.slice(2, 4), [cases[4], cases[0]]]);
	});

	it('with only case status changes wanted, reads nothing but the list; case data changed meanwhile are history once they are wanted', async () => {
		const { caseId, memory } = await watchedCase();
		await advance(caseId, 3);
		api.calls.length = 0;
		const found = await readChanges(memory.state, api, { cases: true, caseData: false });
		expect(namesOf(found.events)).toEqual(['case.statuschange']);
		expect(api.calls).toEqual(LIST_ONLY);
		runAll(memory, found);
		expect((await readChanges(memory.state, api, ALL)).events).toEqual([]);
	});

	it('with only case data changes wanted, learns case status changes without reporting them: the case is read once for them', async () => {
		const { caseId, memory } = await watchedCase();
		await advance(caseId, 3);
		const caseDataOnly = { cases: false, caseData: true };
		const found = await readChanges(memory.state, api, caseDataOnly, CHANGED_ONLY);
		expect(namesOf(found.events)).toEqual(['casedata.statuschange', 'casedata.statuschange']);
		runAll(memory, found);
		api.calls.length = 0;
		expect((await readChanges(memory.state, api, caseDataOnly, CHANGED_ONLY)).events).toEqual([]);
		expect(api.calls).toEqual(LIST_ONLY);
	});

	it('keeps what it knows through the saved memory: changes made while n8n was down are reported after a restart', async () => {
		const caseId = await createCase();
		const before = new TriggerMemory();
		await recordAllCases(before.state, api);
		const saved = JSON.parse(JSON.stringify({ memory: before.serialize() })).memory as string;
		await later();
		await advance(caseId, 3);
		const after = new TriggerMemory();
		after.mergeSaved(saved, nowSeconds());
		expect(after.recorded).toBe(true);
		const { events } = await readChanges(after.state, api, ALL);
		expect(namesOf(events).sort()).toEqual([
			'case.statuschange',
			'casedata.statuschange',
			'casedata.statuschange',
		]);
		expect(
			events.find(({ event }) => event.event === 'case.statuschange')!.event.eventObject,
		).toMatchObject({ caseStatus: 'Complete' });
	});

	it("reports a case whose data it could not read as a failure and reads it at the next watchdog run; the case's own change is in the list", async () => {
		const { caseId, memory } = await watchedCase();
		await advance(caseId, 3);
		sandbox.admin.injectFault({
			kind: 'status',
			status: 503,
			method: 'GET',
			pathPrefix: `/case/id/${caseId}`,
			times: 1,
		});
		const failed = await readChanges(memory.state, api, ALL);
		expect(namesOf(failed.events)).toEqual(['case.statuschange']);
		expect(failed.failures).toEqual([
			{ caseId, error: expect.objectContaining({ message: expect.stringContaining('503') }) },
		]);
		runAll(memory, failed);
		const next = await readChanges(memory.state, api, ALL, CHANGED_ONLY);
		expect(namesOf(next.events)).toEqual(['casedata.statuschange', 'casedata.statuschange']);
		expect(next.failures).toEqual([]);
	});

	it('throws when the list cannot be read, and has recorded nothing from the attempt', async () => {
		const memory = new TriggerMemory();
		sandbox.admin.injectFault({
			kind: 'status',
			status: 500,
			method: 'GET',
			pathPrefix: '/case/list',
			times: 1,
		});
		await expect(recordAllCases(memory.state, api)).rejects.toThrow('500');
		expect(memory.recorded).toBe(false);
	});

	it('throws when the list is not the one the reference defines', async () => {
		const memory = new TriggerMemory();
		const unlike = { ...api, listCases: async () => ({ caseList: [] }) };
		await expect(recordAllCases(memory.state, unlike)).rejects.toThrow(
			'GET /case/list answered no "cases" list',
		);
		expect(memory.recorded).toBe(false);
	});

	it('reads 500 cases with 10 changed: 1 list read, and the data of the 10 and of 20 others (2 calls each)', async () => {
		const cases = [];
		for (let index = 0; index < 500; index++) cases.push(await createCase(1));
		const memory = new TriggerMemory();
		expect(await recordAllCases(memory.state, api)).toBe(500);
		expect(api.calls).toEqual(LIST_ONLY);
		await later();
		for (const caseId of cases.slice(0, 10)) await advance(caseId);
		const budget = WATCHDOG_BUDGET.unchangedCases;
		const perCase = (caseId: string) => [
			`GET /case/id/${caseId}/services`,
			...dataReads(caseId, 1),
		];
		api.calls.length = 0;
		const first = runAll(memory, await readChanges(memory.state, api, ALL));
		expect(first).toHaveLength(10);
		expect(api.calls).toEqual([LIST, ...cases.slice(0, 10 + budget).flatMap(perCase)]);
		// Nothing changed: the next cases of the round, their services not read yet.
		api.calls.length = 0;
		expect((await readChanges(memory.state, api, ALL)).events).toEqual([]);
		expect(api.calls).toEqual([
			LIST,
			...cases.slice(10 + budget, 10 + 2 * budget).flatMap(perCase),
		]);
		// Case status changes only: the list is all it reads.
		for (const caseId of cases.slice(10, 20)) await advance(caseId);
		api.calls.length = 0;
		expect(
			(await readChanges(memory.state, api, { cases: true, caseData: false })).events,
		).toHaveLength(10);
		expect(api.calls).toEqual(LIST_ONLY);
	}, 120_000);

	it('reports the changes of one watchdog run oldest first, each with the body its delivery carried, field for field', async () => {
		const order = { apiTrackingCode: 'HR-7', apiTrackingUser: 'recruiter@example.com' };
		const [first, second] = [await createCase(2, order), await createCase(2, order)];
		const memory = new TriggerMemory();
		await recordAllCases(memory.state, api);
		await later();
		await advance(second);
		await sandbox.admin.advanceClock(10);
		await advance(first);
		const { events } = await readChanges(memory.state, api, ALL);
		const delivered = [second, first].map((caseId) => published(caseId).at(-1)!);
		expect(events.map(({ event }) => event.body)).toEqual(delivered.map(bodyWithoutMessageId));
		// Case data changes too: the services' last step completes the case.
		runAll(memory, { cases: 2, events, failures: [] });
		await advance(first, 2);
		const before = sandbox.admin.deliveryLog({ caseId: first }).length;
		const byKey = new Map(published(first, before - 3).map((event) => [eventKeyOf(event), event]));
		const found = (await readChanges(memory.state, api, ALL)).events.map(({ event }) => event);
		expect(found.filter(({ event }) => event === 'casedata.statuschange')).toHaveLength(2);
		for (const event of found)
			expect(event.body).toEqual(bodyWithoutMessageId(byKey.get(eventKeyOf(event))!));
	});

	it('passes over list entries, services and case data it cannot use (no ID, not an object, a type the data read does not take)', async () => {
		const { caseId, memory } = await watchedCase();
		await advance(caseId, 3);
		const unusable: CaseApi = {
			...listEdited((entries) => [
				{ id: '' },
				'not a case',
				{ caseStatus: 'Complete' },
				...entries,
			]),
			getCaseServices: async (id) => {
				const { serviceGroupServices } = (await api.getCaseServices(id)) as IDataObject;
				return {
					serviceGroupServices: [
						'not a service',
						{ serviceId: 'no-type' },
						{ serviceId: 'other-type', serviceTypeId: 'service-type-unknown' },
						...(serviceGroupServices as IDataObject[]),
					],
				};
			},
			getCaseData: async (id, type) => {
				const { data } = (await api.getCaseData(id, type)) as IDataObject;
				return { data: ['not a record', { status: 'clear' }, ...(data as IDataObject[])] };
			},
		};
		const { cases, events, failures } = await readChanges(memory.state, unusable, ALL);
		expect([cases, failures]).toEqual([1, []]);
		expect(namesOf(events).sort()).toEqual([
			'case.statuschange',
			'casedata.statuschange',
			'casedata.statuschange',
		]);
		expect(api.calls.filter((call) => call.includes('/data/'))).toEqual(dataReads(caseId, 2));
	});
});

describe('watchdogSchedule', () => {
	it("gives n8n a six-field cron expression for each interval, its second, minute and hour taken from the node's ID", () => {
		const expressions = Object.fromEntries(
			(Object.keys(WATCHDOG_INTERVALS) as WatchdogInterval[]).map((interval) => [
				interval,
				watchdogSchedule(interval, 'node-1'),
			]),
		);
		// node-1's offset: second 39, minute 48, hour 15.
		expect(expressions).toEqual({
			'10s': '*/10 * * * * *',
			'30s': '*/30 * * * * *',
			'1m': '39 */1 * * * *',
			'5m': '39 */5 * * * *',
			'15m': '39 */15 * * * *',
			'30m': '39 */30 * * * *',
			'1h': '39 48 */1 * * *',
			'6h': '39 48 */6 * * *',
			'24h': '39 48 15 * * *',
		});
	});

	it('spreads the start of minute and longer schedules over the minute by node', () => {
		expect(watchdogSchedule('10s', 'a')).toBe('*/10 * * * * *');
		const seconds = new Set(
			['a', 'b', 'c', 'd', 'e', 'f'].map((node) => watchdogSchedule('30m', node).split(' ')[0]),
		);
		expect(seconds.size).toBeGreaterThan(1);
		expect(watchdogSchedule('30m', 'a')).toMatch(/^\d{1,2} \*\/30 \* \* \* \*$/);
		expect(watchdogSchedule('6h', 'a')).toMatch(/^\d{1,2} \d{1,2} \*\/6 \* \* \*$/);
	});
});
