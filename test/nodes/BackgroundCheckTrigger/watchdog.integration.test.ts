/**
 * The watchdog against the sandbox: what it reports after changes whose deliveries never arrived (the
 * sandbox's delivery fault drops them all and its delivery log keeps what they carried), what it reads to
 * find them, and what it keeps across a restart.
 */
import { contentKey, parseEvent } from '../../../nodes/BackgroundCheckTrigger/event';
import {
	Watchdog,
	lookSchedule,
	LOOK_INTERVALS,
	type LookInterval,
	type ReconciledEvent,
} from '../../../nodes/BackgroundCheckTrigger/watchdog';
import { startSandbox, type Sandbox } from '../../../sandbox';
import { sandboxCaseApi, type CountingCaseApi } from '../../helpers/sandboxCaseApi';

let sandbox: Sandbox;
let api: CountingCaseApi;
const ALL = { cases: true, caseData: true };
const SERVICES = ['service-idv-id', 'service-bankruptcy'];

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
async function createCase(services = SERVICES): Promise<string> {
	const email = `watchdog-${++candidates}@example.com`;
	sandbox.admin.scriptCandidate(email, { holdAtStep: 1 });
	const response = await fetch(`${sandbox.url}/case/create`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', authorization: `Bearer ${await token()}` },
		body: JSON.stringify({
			candidate: { firstName: 'Ada', lastName: 'Lovelace', email },
			services: services.map((id) => ({ id })),
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

/** The content keys of the events the sandbox published (and dropped) for a case since `after` attempts. */
function publishedKeys(caseId: string, after = 0): string[] {
	const messages = new Map<string, unknown>();
	for (const attempt of sandbox.admin.deliveryLog({ caseId }).slice(after))
		messages.set(attempt.messageId, attempt.payload);
	return [...messages.values()].map((payload) =>
		contentKey(parseEvent(Buffer.from(JSON.stringify(payload)))!),
	);
}

const keysOf = (events: ReconciledEvent[]) => events.map(({ event }) => contentKey(event));

/** A new case, and a watchdog that has made its first look (its record) since. */
async function watchedCase(): Promise<{ caseId: string; watchdog: Watchdog }> {
	const caseId = await createCase();
	const watchdog = new Watchdog();
	await watchdog.look(api, ALL);
	return { caseId, watchdog };
}

describe('Watchdog', () => {
	it('records the cases at its first look and reports nothing: no history is replayed', async () => {
		const caseId = await createCase();
		await advance(caseId);
		const watchdog = new Watchdog();
		const look = await watchdog.look(api, ALL);
		expect(look).toEqual({ compared: false, cases: 1, events: [], failures: [] });
		expect(watchdog.hasRecord).toBe(true);
		expect(watchdog.subjects).toBe(1 + SERVICES.length);
		expect(api.calls).toEqual(['GET /case/list?page=0&pageSize=100']);
	});

	it('reports each case and case data change no delivery reported, as the delivery would have carried it (same content key)', async () => {
		const { caseId, watchdog } = await watchedCase();
		const logged = sandbox.admin.deliveryLog({ caseId }).length;
		// Step 2, then step 3, then the services change (the case completes when they are all done).
		for (let step = 0; step < 2; step++) {
			await advance(caseId);
			const look = await watchdog.look(api, ALL);
			expect(keysOf(look.events)).toEqual(publishedKeys(caseId, logged + step));
			expect(look.events.map(({ event }) => event.event)).toEqual(['case.statuschange']);
		}
		await advance(caseId);
		const before = sandbox.admin.deliveryLog({ caseId }).length;
		const look = await watchdog.look(api, ALL);
		expect(look.events.map(({ event }) => event.event).sort()).toEqual([
			'case.statuschange',
			'casedata.statuschange',
			'casedata.statuschange',
		]);
		expect(keysOf(look.events).sort()).toEqual(publishedKeys(caseId, before - 3).sort());
		const caseEvent = look.events.find(({ event }) => event.event === 'case.statuschange')!;
		expect(caseEvent.event.eventObject).toMatchObject({ id: caseId, caseStatus: 'Complete' });
		expect(caseEvent.latestCase).toMatchObject({ id: caseId, caseStatus: 'Complete' });
		// Nothing changed since: nothing to report, and only the list is read.
		api.calls.length = 0;
		expect((await watchdog.look(api, ALL)).events).toEqual([]);
		expect(api.calls).toEqual(['GET /case/list?page=0&pageSize=100']);
	});

	it('does not report what a delivery already reported', async () => {
		const { caseId, watchdog } = await watchedCase();
		const logged = sandbox.admin.deliveryLog({ caseId }).length;
		await advance(caseId);
		const [delivered] = sandbox.admin.deliveryLog({ caseId }).slice(logged);
		expect(
			watchdog.noteDelivered(parseEvent(Buffer.from(JSON.stringify(delivered.payload)))!),
		).toBe(true);
		api.calls.length = 0;
		expect((await watchdog.look(api, ALL)).events).toEqual([]);
		expect(api.calls).toEqual(['GET /case/list?page=0&pageSize=100']);
	});

	it('reports a new case; a new service only once it has left its first status', async () => {
		const watchdog = new Watchdog();
		await watchdog.look(api, ALL);
		const caseId = await createCase(['service-idv-id']);
		const look = await watchdog.look(api, ALL);
		expect(keysOf(look.events)).toEqual(publishedKeys(caseId));
		expect(look.events[0].event.eventObject).toMatchObject({
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
		expect((await watchdog.look(api, ALL)).events).toEqual([]);
	});

	it('reads the case and case data only of the cases that changed', async () => {
		const cases = [];
		for (let index = 0; index < 12; index++) cases.push(await createCase());
		const watchdog = new Watchdog();
		await watchdog.look(api, ALL);
		for (const caseId of cases.slice(0, 3)) {
			await advance(caseId);
			await advance(caseId);
			await advance(caseId);
		}
		api.calls.length = 0;
		const look = await watchdog.look(api, ALL);
		expect(look.events).toHaveLength(3 * 3);
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
		const { caseId, watchdog } = await watchedCase();
		for (let step = 0; step < 3; step++) await advance(caseId);
		api.calls.length = 0;
		const look = await watchdog.look(api, { cases: true, caseData: false });
		expect(look.events.map(({ event }) => event.event)).toEqual(['case.statuschange']);
		expect(api.calls.some((call) => call.includes('/data/'))).toBe(false);
	});

	it('keeps what it knows through its saved copy: changes made while n8n was down are reported after a restart', async () => {
		const caseId = await createCase();
		const before = new Watchdog();
		await before.look(api, ALL);
		const saved = JSON.parse(JSON.stringify({ copy: before.persistedView })).copy as string;
		// The distinct statuses once, then 10 + 1 characters per case and per service.
		const [header, statuses, records] = saved.split('\n');
		expect(header).toMatch(/^w1 1 1 [0-9a-f]{8}$/);
		expect(before.wrote(saved)).toBe(true);
		expect(statuses.split('\t')).toHaveLength(2);
		expect(records).toHaveLength(before.subjects * 11);
		await advance(caseId);
		const after = new Watchdog();
		expect(after.wrote(saved)).toBe(false);
		after.absorb(saved);
		expect(after.hasRecord).toBe(true);
		const look = await after.look(api, ALL);
		expect(look.compared).toBe(true);
		expect(look.events.map(({ event }) => event.eventObject.secondaryStatus)).toEqual([
			'Authorization in Progress',
		]);
		expect(after.isBehind(saved)).toBe(true);
		expect(after.isBehind(after.toPersisted())).toBe(false);
	});

	it('reports a case it could not read as a failure and compares it again next time', async () => {
		const { caseId, watchdog } = await watchedCase();
		await advance(caseId);
		sandbox.admin.injectFault({
			kind: 'status',
			status: 503,
			method: 'GET',
			pathPrefix: `/case/id/${caseId}`,
			times: 1,
		});
		const failed = await watchdog.look(api, ALL);
		expect(failed.events).toEqual([]);
		expect(failed.failures).toEqual([
			{ caseId, error: expect.objectContaining({ message: expect.stringContaining('503') }) },
		]);
		expect((await watchdog.look(api, ALL)).events).toHaveLength(1);
	});

	it('throws when the list cannot be read, and has learnt nothing from the attempt', async () => {
		const watchdog = new Watchdog();
		sandbox.admin.injectFault({
			kind: 'status',
			status: 500,
			method: 'GET',
			pathPrefix: '/case/list',
			times: 1,
		});
		await expect(watchdog.look(api, ALL)).rejects.toThrow('500');
		expect(watchdog.hasRecord).toBe(false);
	});

	it('reads every page of the list', async () => {
		for (let index = 0; index < 5; index++) await createCase();
		const small = await sandboxCaseApi(sandbox, 0, 2);
		const watchdog = new Watchdog();
		expect((await watchdog.look(small, ALL)).cases).toBe(5);
		expect(small.calls).toEqual([0, 1, 2].map((page) => `GET /case/list?page=${page}&pageSize=2`));
	});

	it('ignores a saved copy it cannot read', () => {
		const watchdog = new Watchdog();
		for (const persisted of [undefined, 'x', 'w1 1 0\n\n', 'w9 1 1\na\nabcdefghij0', { a: 1 }])
			watchdog.absorb(persisted);
		expect(watchdog.hasRecord).toBe(false);
		expect(watchdog.subjects).toBe(0);
	});
});

describe('lookSchedule', () => {
	it.each(Object.keys(LOOK_INTERVALS) as LookInterval[])(
		'gives n8n a six-field cron expression for %s',
		(interval) => {
			const expression = lookSchedule(interval, 'node-1');
			expect(expression.split(' ')).toHaveLength(6);
			expect(lookSchedule(interval, 'node-1')).toBe(expression);
		},
	);

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
