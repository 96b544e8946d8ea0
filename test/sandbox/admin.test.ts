/** The sandbox's admin side: fault injection, reset, the clock controls and the summary, in-process and over HTTP. */
import { createHash } from 'crypto';

import { FaultInjector } from '../../sandbox/faults';
import { caseBody, createCase, tokenFor, useSandboxClient } from '../helpers/sandbox';

// No sign-in before each test: several tests read the whole request log.
const client = useSandboxClient({}, { signIn: false });

const adminStatus = async (method: string, path: string, body?: unknown) =>
	(await client.adminCall(method, path, body)).status;

describe('faults', () => {
	it('answers matching requests with the injected status for the given number of times', async () => {
		const token = await tokenFor(client.sandbox);
		const fault = client.admin.injectFault({
			kind: 'status',
			status: 502,
			method: 'GET',
			pathPrefix: '/case/',
			times: 2,
		});

		for (let attempt = 0; attempt < 2; attempt++) {
			const result = await client.call('GET', '/case/list', { token });
			expect(result.status).toBe(502);
			expect(result.body).toMatchObject({ error: 'Bad Gateway', statusCode: 502 });
		}
		expect((await client.call('GET', '/case/list', { token })).status).toBe(200);
		expect(client.admin.listFaults()).toEqual([]);
		expect(client.admin.requestLog().filter((entry) => entry.faultId === fault.id)).toHaveLength(2);
	});

	it('drops the connection without an answer', async () => {
		client.admin.injectFault({ kind: 'drop', pathPrefix: '/auth/api', times: 1 });
		const [{ apiKey, clientAccessToken }] = client.sandbox.demoCredentials;
		const east = { apiKey, clientAccessToken };
		await expect(client.call('POST', '/auth/api', { body: east })).rejects.toThrow();
		expect(client.admin.requestLog()[0]).toMatchObject({ path: '/auth/api', status: null });
		expect((await client.call('POST', '/auth/api', { body: east })).status).toBe(200);
	});

	it.each(['status', 'drop'] as const)(
		'with afterHandling, a %s fault lets the route run first: the case exists although the answer is lost',
		async (kind) => {
			const token = await tokenFor(client.sandbox);
			const status = kind === 'status' ? 502 : undefined;
			client.admin.injectFault({ kind, status, afterHandling: true, times: 1 });
			const sent = client.call('POST', '/case/create', { token, body: caseBody({}, '-after') });
			if (kind === 'status') expect((await sent).status).toBe(502);
			else await expect(sent).rejects.toThrow();
			const [entry] = client.admin.requestLog().filter((logged) => logged.path === '/case/create');
			expect(entry).toMatchObject({ status: status ?? null, handledStatus: 200 });
			expect(client.admin.summary().counts.cases).toBe(1);
		},
	);

	it('a status fault before the route creates nothing, and can carry Retry-After', async () => {
		const token = await tokenFor(client.sandbox);
		client.admin.injectFault({ kind: 'status', status: 503, retryAfterSeconds: 2, times: 1 });
		const result = await client.call('POST', '/case/create', { token, body: caseBody() });
		expect(result).toMatchObject({ status: 503, retryAfter: '2' });
		expect(client.admin.requestLog().at(-1)).toMatchObject({ handledStatus: null });
		expect(client.admin.summary().counts.cases).toBe(0);
	});

	it('refuses afterHandling on other kinds or with Retry-After, and Retry-After off a status fault', async () => {
		for (const rule of [
			{ kind: 'latency', latencyMs: 1, afterHandling: true },
			{ kind: 'status', afterHandling: 'yes' },
			{ kind: 'status', afterHandling: true, retryAfterSeconds: 1 },
			{ kind: 'drop', retryAfterSeconds: 1 },
			{ kind: 'status', retryAfterSeconds: -1 },
		])
			expect(await adminStatus('POST', '/faults', rule)).toBe(400);
	});

	it('adds latency and then answers normally', async () => {
		const fault = client.admin.injectFault({ kind: 'latency', latencyMs: 20 });
		const token = await tokenFor(client.sandbox);
		expect((await client.call('GET', '/shipment/mask/list', { token })).status).toBe(200);
		expect(client.admin.requestLog().every((entry) => entry.faultId === fault.id)).toBe(true);
		client.admin.removeFault(fault.id);
		expect(client.admin.listFaults()).toEqual([]);
	});

	it('limits each token to N requests per second, answering the rest 429 with Retry-After', async () => {
		const east = await tokenFor(client.sandbox, 0);
		const west = await tokenFor(client.sandbox, 1);
		const limit = { kind: 'rateLimit', perSecond: 3 } as const;
		const fault = client.admin.injectFault({ ...limit, method: 'GET', pathPrefix: '/shipment/' });
		const masks = (token: string) => client.call('GET', '/shipment/mask/list', { token });
		const results = await Promise.all(Array.from({ length: 5 }, () => masks(east)));
		expect(results.map((result) => result.status).sort()).toEqual([200, 200, 200, 429, 429]);
		const refused = results.find((result) => result.status === 429)!;
		expect(refused.retryAfter).toBe('1');
		expect(refused.body).toMatchObject({ statusCode: 429 });
		// Another token has its own allowance; other paths are not limited.
		expect((await masks(west)).status).toBe(200);
		expect((await client.call('GET', '/case/list', { token: east })).status).toBe(200);
		expect(client.admin.requestLog().filter((entry) => entry.faultId === fault.id)).toHaveLength(2);
		expect(client.admin.listFaults()).toEqual([expect.objectContaining(limit)]);
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
		for (const [rule, status] of [
			[{ kind: 'rateLimit' }, 400],
			[{ kind: 'rateLimit', perSecond: 0.5 }, 400],
			[{ kind: 'rateLimit', perSecond: 5, times: 2 }, 400],
			[{ kind: 'rateLimit', perSecond: 5 }, 200],
		] as const)
			expect(await adminStatus('POST', '/faults', rule)).toBe(status);
	});

	it('rejects malformed rules over HTTP with 400', async () => {
		expect(await adminStatus('POST', '/faults', { kind: 'explode' })).toBe(400);
	});

	it('never applies to the admin interface', async () => {
		client.admin.injectFault({ kind: 'status', status: 500 });
		expect(await adminStatus('GET', '/clock')).toBe(200);
	});
});

describe('reset', () => {
	it('forgets cases, tokens, subscriptions, logs and faults', async () => {
		const token = await tokenFor(client.sandbox);
		await createCase(client.sandbox, token);
		client.admin.createSubscription({ url: 'http://127.0.0.1:9/hooks' });
		client.admin.injectFault({ kind: 'latency', latencyMs: 1 });

		expect(await adminStatus('POST', '/reset')).toBe(204);

		expect(client.admin.summary().counts).toEqual({
			cases: 0,
			apiClients: 0,
			subscriptions: 0,
			deliveryAttempts: 0,
			requests: 0,
		});
		expect(client.admin.listFaults()).toEqual([]);
		expect((await client.call('GET', '/case/list', { token })).status).toBe(403);
	});
});

describe('clock', () => {
	it('advances and changes scale through the admin interface', async () => {
		const before = client.admin.clock();
		expect(before.timeScale).toBe(0);
		const advanced = (await client.adminCall('POST', '/clock/advance', { seconds: 90 })).body;
		expect(advanced.nowMs - before.nowMs).toBe(90_000);
		// The clock runs at 0 already: a change to 2 shows the PUT acts; back to 0 freezes it again.
		expect((await client.adminCall('PUT', '/clock', { timeScale: 2 })).body.timeScale).toBe(2);
		const scaled = (await client.adminCall('PUT', '/clock', { timeScale: 0 })).body;
		expect(scaled.timeScale).toBe(0);
		await expect(client.admin.advanceClock(-1)).rejects.toThrow();
	});

	it('stamps cases with sandbox time', async () => {
		await client.admin.advanceClock(3600);
		const created = await createCase(client.sandbox, await tokenFor(client.sandbox));
		expect(created.crStamp).toBe(client.admin.clock().now);
	});
});

describe('summary', () => {
	it('lists the demo credentials and their groups', async () => {
		const summary = (await client.adminCall('GET', '')).body;
		expect(summary.demoCredentials).toHaveLength(2);
		const companies = summary.demoCredentials.map(
			(credential: { companyId: string }) => credential.companyId,
		);
		expect(new Set(companies).size).toBe(1);
		expect(summary.webhookSettings).toEqual({
			standardEnabled: true,
			legacyEnabled: false,
			legacyHeaderName: 'sandbox-signature',
		});
	});
});

describe('demo inbox', () => {
	it('records what the example workflows post, per inbox, and forgets it on reset', async () => {
		expect(await adminStatus('POST', '/inbox/ats', { caseId: 'c1', result: 'clear' })).toBe(200);
		await client.adminCall('POST', '/inbox/onboarding', { caseId: 'c2' });
		const ats = await client.adminCall('GET', '/inbox/ats');
		expect(ats.body).toEqual([
			expect.objectContaining({ inbox: 'ats', body: { caseId: 'c1', result: 'clear' } }),
		]);
		expect(client.admin.inbox()).toHaveLength(2);
		client.admin.reset();
		expect(client.admin.inbox()).toEqual([]);
	});

	it('records a multipart upload as its fields and, for each file, its name, type, size and SHA-256', async () => {
		const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(70_000, 1)]);
		const form = new FormData();
		form.set('candidateEmail', 'ann@example.com');
		form.set('file', new Blob([pdf], { type: 'application/pdf' }), 'report.pdf');
		const response = await fetch(`${client.sandbox.adminUrl}/inbox/ats-documents`, {
			method: 'POST',
			body: form,
		});
		expect(response.status).toBe(200);
		const [entry] = client.admin.inbox('ats-documents');
		expect(entry.body).toEqual({
			fields: { candidateEmail: 'ann@example.com' },
			files: [
				{
					field: 'file',
					fileName: 'report.pdf',
					mimeType: 'application/pdf',
					size: pdf.length,
					sha256: createHash('sha256').update(pdf).digest('hex'),
					head: '%PDF-1.7',
				},
			],
		});
	});
});
