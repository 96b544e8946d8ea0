/** The sandbox's admin side: fault injection, reset, the clock controls and the summary, in-process and over HTTP. */
import type { Sandbox } from '../../sandbox';
import { FaultInjector } from '../../sandbox/faults';
import {
	adminCall,
	call,
	caseBody,
	createCase,
	startTestSandbox,
	tokenFor,
} from '../helpers/sandbox';

let sandbox: Sandbox;

beforeAll(async () => {
	sandbox = await startTestSandbox();
});
afterAll(() => sandbox.stop());
beforeEach(() => sandbox.admin.reset());

describe('faults', () => {
	it('answers matching requests with the injected status for the given number of times', async () => {
		const token = await tokenFor(sandbox);
		const fault = sandbox.admin.injectFault({
			kind: 'status',
			status: 502,
			method: 'GET',
			pathPrefix: '/case/',
			times: 2,
		});

		for (let attempt = 0; attempt < 2; attempt++) {
			const result = await call(sandbox, 'GET', '/case/list', { token });
			expect(result.status).toBe(502);
			expect(result.body).toMatchObject({ error: 'Bad Gateway', statusCode: 502 });
		}
		expect((await call(sandbox, 'GET', '/case/list', { token })).status).toBe(200);
		expect(sandbox.admin.listFaults()).toEqual([]);
		expect(sandbox.admin.requestLog().filter((entry) => entry.faultId === fault.id)).toHaveLength(
			2,
		);
	});

	it('drops the connection without an answer', async () => {
		sandbox.admin.injectFault({ kind: 'drop', pathPrefix: '/auth/api', times: 1 });
		const [east] = sandbox.demoCredentials;
		await expect(call(sandbox, 'POST', '/auth/api', { body: east })).rejects.toThrow();
		expect(sandbox.admin.requestLog()[0]).toMatchObject({ path: '/auth/api', status: null });
		expect((await call(sandbox, 'POST', '/auth/api', { body: east })).status).toBe(200);
	});

	it.each(['status', 'drop'] as const)(
		'with afterHandling, a %s fault lets the route run first: the case exists although the answer is lost',
		async (kind) => {
			const token = await tokenFor(sandbox);
			sandbox.admin.injectFault({
				kind,
				status: kind === 'status' ? 502 : undefined,
				afterHandling: true,
				times: 1,
			});
			const sent = call(sandbox, 'POST', '/case/create', { token, body: caseBody({}, '-after') });
			if (kind === 'status') expect((await sent).status).toBe(502);
			else await expect(sent).rejects.toThrow();
			const [entry] = sandbox.admin.requestLog().filter((logged) => logged.path === '/case/create');
			expect(entry).toMatchObject({ status: kind === 'status' ? 502 : null, handledStatus: 201 });
			expect(sandbox.admin.summary().counts.cases).toBe(1);
		},
	);

	it('a status fault before the route creates nothing, and can carry Retry-After', async () => {
		const token = await tokenFor(sandbox);
		sandbox.admin.injectFault({ kind: 'status', status: 503, retryAfterSeconds: 2, times: 1 });
		const result = await call(sandbox, 'POST', '/case/create', { token, body: caseBody() });
		expect(result).toMatchObject({ status: 503, retryAfter: '2' });
		expect(sandbox.admin.requestLog().at(-1)).toMatchObject({ handledStatus: null });
		expect(sandbox.admin.summary().counts.cases).toBe(0);
	});

	it('refuses afterHandling on other kinds or with Retry-After, and Retry-After off a status fault', async () => {
		for (const rule of [
			{ kind: 'latency', latencyMs: 1, afterHandling: true },
			{ kind: 'status', afterHandling: 'yes' },
			{ kind: 'status', afterHandling: true, retryAfterSeconds: 1 },
			{ kind: 'drop', retryAfterSeconds: 1 },
			{ kind: 'status', retryAfterSeconds: -1 },
		])
			expect((await adminCall(sandbox, 'POST', '/faults', rule)).status).toBe(400);
	});

	it('adds latency and then answers normally', async () => {
		const fault = sandbox.admin.injectFault({ kind: 'latency', latencyMs: 20 });
		expect(
			(await call(sandbox, 'GET', '/shipment/mask/list', { token: await tokenFor(sandbox) }))
				.status,
		).toBe(200);
		expect(sandbox.admin.requestLog().every((entry) => entry.faultId === fault.id)).toBe(true);
		sandbox.admin.removeFault(fault.id);
		expect(sandbox.admin.listFaults()).toEqual([]);
	});

	it('limits each token to N requests per second, answering the rest 429 with Retry-After', async () => {
		const east = await tokenFor(sandbox, 0);
		const west = await tokenFor(sandbox, 1);
		const fault = sandbox.admin.injectFault({
			kind: 'rateLimit',
			perSecond: 3,
			method: 'GET',
			pathPrefix: '/shipment/',
		});
		const results = await Promise.all(
			Array.from({ length: 5 }, () => call(sandbox, 'GET', '/shipment/mask/list', { token: east })),
		);
		expect(results.map((result) => result.status).sort()).toEqual([200, 200, 200, 429, 429]);
		const refused = results.find((result) => result.status === 429)!;
		expect(refused.retryAfter).toBe('1');
		expect(refused.body).toMatchObject({ statusCode: 429 });
		// Another token has its own allowance; other paths are not limited.
		expect((await call(sandbox, 'GET', '/shipment/mask/list', { token: west })).status).toBe(200);
		expect((await call(sandbox, 'GET', '/case/list', { token: east })).status).toBe(200);
		expect(sandbox.admin.requestLog().filter((entry) => entry.faultId === fault.id)).toHaveLength(
			2,
		);
		expect(sandbox.admin.listFaults()).toEqual([
			expect.objectContaining({ kind: 'rateLimit', perSecond: 3 }),
		]);
	});

	it("starts a token's allowance again after its one-second window", () => {
		const faults = new FaultInjector();
		faults.add({ kind: 'rateLimit', perSecond: 2 });
		const at = (ms: number) =>
			faults.rateLimited('GET', '/case/list', 'Bearer a', ms)?.retryAfterSeconds;
		expect([at(0), at(100), at(200), at(999)]).toEqual([undefined, undefined, 1, 1]);
		expect([at(1000), at(1500), at(1600)]).toEqual([undefined, undefined, 1]);
	});

	it('refuses a rate limit without a positive whole perSecond, or with times', async () => {
		expect((await adminCall(sandbox, 'POST', '/faults', { kind: 'rateLimit' })).status).toBe(400);
		expect(
			(await adminCall(sandbox, 'POST', '/faults', { kind: 'rateLimit', perSecond: 0.5 })).status,
		).toBe(400);
		expect(
			(await adminCall(sandbox, 'POST', '/faults', { kind: 'rateLimit', perSecond: 5, times: 2 }))
				.status,
		).toBe(400);
		expect(
			(await adminCall(sandbox, 'POST', '/faults', { kind: 'rateLimit', perSecond: 5 })).status,
		).toBe(200);
	});

	it('rejects malformed rules over HTTP with 400', async () => {
		expect((await adminCall(sandbox, 'POST', '/faults', { kind: 'explode' })).status).toBe(400);
	});

	it('never applies to the admin interface', async () => {
		sandbox.admin.injectFault({ kind: 'status', status: 500 });
		expect((await adminCall(sandbox, 'GET', '/clock')).status).toBe(200);
	});
});

describe('reset', () => {
	it('forgets cases, tokens, subscriptions, logs and faults', async () => {
		const token = await tokenFor(sandbox);
		await createCase(sandbox, token);
		sandbox.admin.createSubscription({ url: 'http://127.0.0.1:9/hooks' });
		sandbox.admin.injectFault({ kind: 'latency', latencyMs: 1 });

		expect((await adminCall(sandbox, 'POST', '/reset')).status).toBe(204);

		expect(sandbox.admin.summary().counts).toEqual({
			cases: 0,
			apiClients: 0,
			subscriptions: 0,
			deliveryAttempts: 0,
			requests: 0,
		});
		expect(sandbox.admin.listFaults()).toEqual([]);
		expect((await call(sandbox, 'GET', '/case/list', { token })).status).toBe(401);
	});
});

describe('clock', () => {
	it('advances and changes scale through the admin interface', async () => {
		const before = sandbox.admin.clock();
		expect(before.timeScale).toBe(0);
		const advanced = (await adminCall(sandbox, 'POST', '/clock/advance', { seconds: 90 })).body;
		expect(advanced.nowMs - before.nowMs).toBe(90_000);
		const scaled = (await adminCall(sandbox, 'PUT', '/clock', { timeScale: 0 })).body;
		expect(scaled.timeScale).toBe(0);
		await expect(sandbox.admin.advanceClock(-1)).rejects.toThrow();
	});

	it('stamps cases with sandbox time', async () => {
		await sandbox.admin.advanceClock(3600);
		const created = await createCase(sandbox, await tokenFor(sandbox));
		expect(created.crStamp).toBe(sandbox.admin.clock().now);
	});
});

describe('summary', () => {
	it('lists the demo credentials and their groups', async () => {
		const summary = (await adminCall(sandbox, 'GET', '')).body;
		expect(summary.demoCredentials).toHaveLength(2);
		expect(
			new Set(
				summary.demoCredentials.map((credential: { companyId: string }) => credential.companyId),
			).size,
		).toBe(1);
		expect(summary.webhookSettings).toEqual({
			standardEnabled: true,
			legacyEnabled: false,
			legacyHeaderName: 'sandbox-signature',
		});
	});
});

describe('demo inbox', () => {
	it('records what the example workflows post, per inbox, and forgets it on reset', async () => {
		expect(
			(await adminCall(sandbox, 'POST', '/inbox/ats', { caseId: 'c1', result: 'clear' })).status,
		).toBe(200);
		await adminCall(sandbox, 'POST', '/inbox/onboarding', { caseId: 'c2' });
		const ats = await adminCall(sandbox, 'GET', '/inbox/ats');
		expect(ats.body).toEqual([
			expect.objectContaining({ inbox: 'ats', body: { caseId: 'c1', result: 'clear' } }),
		]);
		expect(sandbox.admin.inbox()).toHaveLength(2);
		sandbox.admin.reset();
		expect(sandbox.admin.inbox()).toEqual([]);
	});
});
