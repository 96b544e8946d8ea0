/**
 * The watchdog against the sandbox: what it reports after changes whose deliveries never arrived (the
 * sandbox's delivery fault drops them all and its delivery log keeps what they carried), what it reads to
 * find them, and what it keeps in the trigger's memory (memory.ts) across looks and restarts.
 */
import type { IDataObject } from 'n8n-workflow';

import {
	changeOf,
	contentKey,
	parseEvent,
	type WebhookEvent,
} from '../../../nodes/BackgroundCheckTrigger/event';
import { TriggerMemory } from '../../../nodes/BackgroundCheckTrigger/memory';
import {
	look,
	lookSchedule,
	recordActivation,
	LOOK_INTERVALS,
	type CaseApi,
	type Look,
	type LookInterval,
	type ReconciledEvent,
} from '../../../nodes/BackgroundCheckTrigger/watchdog';
import { startSandbox, type Sandbox } from '../../../sandbox';
import { sandboxCaseApi, type CountingCaseApi } from '../../helpers/sandboxCaseApi';

let sandbox: Sandbox;
let api: CountingCaseApi;
const ALL = { cases: true, caseData: true };
const SERVICES = ['service-idv-id', 'service-bankruptcy'];
const LIST_ONLY = ['GET /case/list?page=0&pageSize=100'];
const nowSeconds = () => Math.floor(Date.now() / 1000);

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

afterAll(async () => {
	await sandbox.stop();
});

let candidates = 0;

/** A case of the East group whose lifecycle moves only when a test advances it. */
async function createCase(services = SERVICES, order: IDataObject = {}): Promise<string> {
	const email = `watchdog-${++candidates}@example.com`;
	sandbox.admin.scriptCandidate(email, { holdAtStep: 1 });
	const response = await fetch(`${sandbox.url}/case/create`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', authorization: `Bearer ${await token()}` },
		body: JSON.stringify({
			candidate: { firstName: 'Ada', lastName: 'Lovelace', email },
			services: services.map((id) => ({ id })),
			...order,
		}),
	});
	const created = (await response.json()) as { id: string };
	await sandbox.admin.idle();
	return created.id;
}

async function token(): Promise<string> {
	const { apiKey, clientAccessToken } = sandbox.demoCredentials[0];
	const response = await fetch(`${sandbox.url}/auth/api`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ apiKey, clientAccessToken }),
	});
	return ((await response.json()) as { token: string }).token;
}

async function advance(caseId: string): Promise<void> {
	sandbox.admin.advanceCase(caseId);
	await sandbox.admin.idle();
}

/** The events the sandbox published (and dropped) for a case since `after` attempts, one per message. */
function published(caseId: string, after = 0) {
	const messages = new Map<string, unknown>();
	for (const attempt of sandbox.admin.deliveryLog({ caseId }).slice(after))
		messages.set(attempt.messageId, attempt.payload);
	return [...messages.values()].map((payload) => parseEvent(Buffer.from(JSON.stringify(payload)))!);
}

const publishedKeys = (caseId: string, after = 0) => published(caseId, after).map(contentKey);

const keysOf = (events: ReconciledEvent[]) => events.map(({ event }) => contentKey(event));

/** What the executions of a look's events record when they run (latestCase.ts, watchdogSchedule.ts). */
function runAll(memory: TriggerMemory, { events }: Look): Look['events'] {
	for (const { event } of events) memory.record(changeOf(event), nowSeconds(), { found: true });
	return events;
}

/** A new case, and a memory holding the watchdog's record of activation since. */
async function watchedCase(): Promise<{ caseId: string; memory: TriggerMemory }> {
	const caseId = await createCase();
	const memory = new TriggerMemory();
	await recordActivation(memory, api);
	return { caseId, memory };
}

/** The API with each page's list of cases passed through `edit`. */
const listEdited = (edit: (entries: IDataObject[]) => unknown[]): CaseApi => ({
	...api,
	listPage: async (page) => {
		const body = (await api.listPage(page)) as IDataObject;
		return { ...body, caseList: edit(body.caseList as IDataObject[]) };
	},
});

/** The API with `caseId` left out of the list, as a list that shifts while it is paged over would. */
const listWithout = (caseId: string) =>
	listEdited((entries) => entries.filter((entry) => entry.id !== caseId));

/** The body a delivery of `event` carried, without its message ID (a look has none). */
function bodyWithoutMessageId({ body }: WebhookEvent) {
	const copy = { ...body };
	delete copy.messageId;
	return copy;
}

describe('the watchdog', () => {
	it('records the cases at activation and reports nothing: no history is replayed', async () => {
		const caseId = await createCase();
		await advance(caseId);
		const memory = new TriggerMemory();
		expect(await recordActivation(memory, api)).toBe(1);
		expect(memory.recorded).toBe(true);
		expect(memory.statusOf(`case:${caseId}`)).toBeDefined();
		expect(api.calls).toEqual(LIST_ONLY);
		expect(await look(memory, api, ALL)).toEqual({ cases: 1, events: [], failures: [] });
	});

	it('reports each case and case data change no delivery reported, as the delivery would have carried it (same content key)', async () => {
		const { caseId, memory } = await watchedCase();
		const logged = sandbox.admin.deliveryLog({ caseId }).length;
		// Step 2, then step 3, then the services change (the case completes when they are all done).
		for (let step = 0; step < 2; step++) {
			await advance(caseId);
			const events = runAll(memory, await look(memory, api, ALL));
			expect(keysOf(events)).toEqual(publishedKeys(caseId, logged + step));
			expect(events.map(({ event }) => event.event)).toEqual(['case.statuschange']);
		}
		await advance(caseId);
		const before = sandbox.admin.deliveryLog({ caseId }).length;
		const events = runAll(memory, await look(memory, api, ALL));
		expect(events.map(({ event }) => event.event).sort()).toEqual([
			'case.statuschange',
			'casedata.statuschange',
			'casedata.statuschange',
		]);
		expect(keysOf(events).sort()).toEqual(publishedKeys(caseId, before - 3).sort());
		const caseEvent = events.find(({ event }) => event.event === 'case.statuschange')!;
		expect(caseEvent.event.eventObject).toMatchObject({ id: caseId, caseStatus: 'Complete' });
		expect(caseEvent.latestCase).toMatchObject({ id: caseId, caseStatus: 'Complete' });
		// Nothing changed since: nothing to report, and only the list is read.
		api.calls.length = 0;
		expect((await look(memory, api, ALL)).events).toEqual([]);
		expect(api.calls).toEqual(LIST_ONLY);
	});

	it('learns nothing of what it reports: until an execution records the change, every look reports it again', async () => {
		const { caseId, memory } = await watchedCase();
		await advance(caseId);
		const first = await look(memory, api, ALL);
		expect(first.events).toHaveLength(1);
		expect(keysOf((await look(memory, api, ALL)).events)).toEqual(keysOf(first.events));
		runAll(memory, first);
		expect((await look(memory, api, ALL)).events).toEqual([]);
	});

	it('does not report what a delivery already reported', async () => {
		const { caseId, memory } = await watchedCase();
		const logged = sandbox.admin.deliveryLog({ caseId }).length;
		await advance(caseId);
		const [delivered] = published(caseId, logged);
		expect(memory.record(changeOf(delivered), nowSeconds())).toBe(true);
		api.calls.length = 0;
		expect((await look(memory, api, ALL)).events).toEqual([]);
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
		memory.record(changeOf(newer), nowSeconds());
		memory.record(changeOf(older), nowSeconds());
		api.calls.length = 0;
		expect((await look(memory, api, ALL)).events).toEqual([]);
		expect(api.calls).toEqual(LIST_ONLY);
	});

	it('keeps a case missing from one look: listed again, its old status is not reported again', async () => {
		const { caseId, memory } = await watchedCase();
		await advance(caseId);
		runAll(memory, await look(memory, api, ALL));
		expect((await look(memory, listWithout(caseId), ALL)).events).toEqual([]);
		api.calls.length = 0;
		expect(await look(memory, api, ALL)).toEqual({ cases: 1, events: [], failures: [] });
		expect(api.calls).toEqual(LIST_ONLY);
	});

	it('reports a new case; a new service only once it has left its first status', async () => {
		const memory = new TriggerMemory();
		await recordActivation(memory, api);
		const caseId = await createCase(['service-idv-id']);
		const events = runAll(memory, await look(memory, api, ALL));
		expect(keysOf(events)).toEqual(publishedKeys(caseId));
		expect(events[0].event.eventObject).toMatchObject({
			id: caseId,
			caseStatus: 'Pending',
			secondaryStatus: 'Waiting for Authorization',
		});

		// Services added to the case: new, at their first status, no event.
		await fetch(`${sandbox.url}/case/id/${caseId}/add/services`, {
			method: 'POST',
			headers: { 'content-type': 'application/json', authorization: `Bearer ${await token()}` },
			body: JSON.stringify({ services: [{ id: 'service-bankruptcy' }] }),
		});
		expect((await look(memory, api, ALL)).events).toEqual([]);
	});

	it('reads the case and case data only of the cases that changed', async () => {
		const cases = [];
		for (let index = 0; index < 12; index++) cases.push(await createCase());
		const memory = new TriggerMemory();
		await recordActivation(memory, api);
		for (const caseId of cases.slice(0, 3)) {
			await advance(caseId);
			await advance(caseId);
			await advance(caseId);
		}
		api.calls.length = 0;
		const { events } = await look(memory, api, ALL);
		expect(events).toHaveLength(3 * 3);
		const changed = cases.slice(0, 3);
		expect(api.calls.filter((call) => call.startsWith('GET /case/list'))).toHaveLength(1);
		expect(api.calls.filter((call) => /^GET \/case\/id\/[^/]+$/.test(call)).sort()).toEqual(
			changed.map((caseId) => `GET /case/id/${caseId}`).sort(),
		);
		expect(
			api.calls
				.filter((call) => call.includes('/data/'))
				.every((call) => changed.some((caseId) => call.includes(caseId))),
		).toBe(true);
	});

	it('with only case status changes wanted, follows the services without reading them', async () => {
		const { caseId, memory } = await watchedCase();
		for (let step = 0; step < 3; step++) await advance(caseId);
		api.calls.length = 0;
		const { events } = await look(memory, api, { cases: true, caseData: false });
		expect(events.map(({ event }) => event.event)).toEqual(['case.statuschange']);
		expect(api.calls.some((call) => call.includes('/data/'))).toBe(false);
	});

	it('keeps what it knows through the saved memory: changes made while n8n was down are reported after a restart', async () => {
		const caseId = await createCase();
		const before = new TriggerMemory();
		await recordActivation(before, api);
		const saved = JSON.parse(JSON.stringify({ memory: before.serialize() })).memory as string;
		await advance(caseId);
		const after = new TriggerMemory();
		after.absorb(saved, nowSeconds());
		expect(after.recorded).toBe(true);
		const { events } = await look(after, api, ALL);
		expect(events.map(({ event }) => event.eventObject.secondaryStatus)).toEqual([
			'Authorization in Progress',
		]);
	});

	it('reports a case it could not read as a failure and compares it again next time', async () => {
		const { caseId, memory } = await watchedCase();
		await advance(caseId);
		sandbox.admin.injectFault({
			kind: 'status',
			status: 503,
			method: 'GET',
			pathPrefix: `/case/id/${caseId}`,
			times: 1,
		});
		const failed = await look(memory, api, ALL);
		expect(failed.events).toEqual([]);
		expect(failed.failures).toEqual([
			{ caseId, error: expect.objectContaining({ message: expect.stringContaining('503') }) },
		]);
		expect((await look(memory, api, ALL)).events).toHaveLength(1);
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
		await expect(recordActivation(memory, api)).rejects.toThrow('500');
		expect(memory.recorded).toBe(false);
	});

	it('looks at 500 cases with 10 changed in 5 list pages and 1 read of each changed case', async () => {
		const cases = [];
		for (let index = 0; index < 500; index++) cases.push(await createCase(['service-idv-id']));
		const memory = new TriggerMemory();
		expect(await recordActivation(memory, api)).toBe(500);
		for (const caseId of cases.slice(0, 10)) await advance(caseId);
		api.calls.length = 0;
		const { events } = await look(memory, api, { cases: true, caseData: false });
		expect(events).toHaveLength(10);
		expect(api.calls).toEqual([
			...[0, 1, 2, 3, 4].map((page) => `GET /case/list?page=${page}&pageSize=100`),
			...cases.slice(0, 10).map((caseId) => `GET /case/id/${caseId}`),
		]);
	}, 60_000);

	it('reads every page of the list', async () => {
		for (let index = 0; index < 5; index++) await createCase();
		const small = await sandboxCaseApi(sandbox, 0, 2);
		expect(await recordActivation(new TriggerMemory(), small)).toBe(5);
		expect(small.calls).toEqual([0, 1, 2].map((page) => `GET /case/list?page=${page}&pageSize=2`));
	});

	it('reports the changes of one look oldest first, each with the body its delivery carried, field for field', async () => {
		const order = { apiTrackingCode: 'HR-7', apiTrackingUser: 'recruiter@example.com' };
		const [first, second] = [await createCase(SERVICES, order), await createCase(SERVICES, order)];
		const memory = new TriggerMemory();
		await recordActivation(memory, api);
		await advance(second);
		await sandbox.admin.advanceClock(10);
		await advance(first);
		const { events } = await look(memory, api, ALL);
		const delivered = [second, first].map((caseId) => published(caseId).at(-1)!);
		expect(events.map(({ event }) => event.body)).toEqual(delivered.map(bodyWithoutMessageId));
		// Case data changes too: the services' last step completes the case.
		runAll(memory, { cases: 2, events, failures: [] });
		for (let step = 0; step < 2; step++) await advance(first);
		const before = sandbox.admin.deliveryLog({ caseId: first }).length;
		const byKey = new Map(published(first, before - 3).map((event) => [contentKey(event), event]));
		const later = (await look(memory, api, ALL)).events.map(({ event }) => event);
		expect(later.filter(({ event }) => event === 'casedata.statuschange')).toHaveLength(2);
		for (const event of later)
			expect(event.body).toEqual(bodyWithoutMessageId(byKey.get(contentKey(event))!));
	});

	it("passes over list entries and services it cannot use (no case ID, not an object), and finds a service's type in the case when the list leaves it out", async () => {
		const { caseId, memory } = await watchedCase();
		for (let step = 0; step < 3; step++) await advance(caseId);
		const untyped = listEdited((entries) => [
			{ id: '' },
			{ caseStatus: 'Complete' },
			...entries.map((entry) => ({
				...entry,
				services: [
					'not a service',
					{ status: 'Complete' },
					...(entry.services as IDataObject[]).map((service) => {
						const copy = { ...service };
						delete copy.serviceTypeId;
						return copy;
					}),
				],
			})),
		]);
		const { cases, events, failures } = await look(memory, untyped, ALL);
		expect([cases, failures]).toEqual([1, []]);
		expect(events.map(({ event }) => event.event).sort()).toEqual([
			'case.statuschange',
			'casedata.statuschange',
			'casedata.statuschange',
		]);
	});
});

describe('lookSchedule', () => {
	it("gives n8n a six-field cron expression for each interval, its second, minute and hour taken from the node's ID", () => {
		const expressions = Object.fromEntries(
			(Object.keys(LOOK_INTERVALS) as LookInterval[]).map((interval) => [
				interval,
				lookSchedule(interval, 'node-1'),
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
		expect(lookSchedule('10s', 'a')).toBe('*/10 * * * * *');
		const seconds = new Set(
			['a', 'b', 'c', 'd', 'e', 'f'].map((node) => lookSchedule('30m', node).split(' ')[0]),
		);
		expect(seconds.size).toBeGreaterThan(1);
		expect(lookSchedule('30m', 'a')).toMatch(/^\d{1,2} \*\/30 \* \* \* \*$/);
		expect(lookSchedule('6h', 'a')).toMatch(/^\d{1,2} \d{1,2} \*\/6 \* \* \*$/);
	});
});
