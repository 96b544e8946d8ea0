/* eslint-disable @n8n/community-nodes/no-restricted-globals -- repository tooling: runs in Node.js, never inside n8n */
/**
 * The Background Check Trigger active in real n8n (the pinned runtime), receiving the sandbox's signed deliveries on its
 * production URL (`/webhook/<webhookId>/webhook`): one execution per event, 401 and no execution for
 * tampered, stale, unsigned or wrongly signed requests, duplicates and both-schemes deliveries run once,
 * a case's lifecycle, "Fetch latest case", and no webhook secret in what n8n saves or logs.
 *
 * One n8n and one sandbox (frozen clock, moved with advanceClock) for the file. The sandbox is reset
 * before each test, which also removes the previous test's subscriptions.
 */
import { randomUUID } from 'node:crypto';

import { generateWebhookSecret, signLegacyWebhook } from '../../nodes/shared/webhookSignature';
import { httpRequest } from '../harness/n8n/http';
import type { DeliveryAttempt, Sandbox, Subscription } from '../../sandbox';
import { postWebhook } from '../../sandbox/webhooks/post';
import {
	JWT_PATTERN,
	TRIGGER_NAME as TRIGGER,
	WEBHOOK_CREDENTIAL,
	createApiCredential,
	deployTriggerWorkflow,
	leakedSecrets,
	requestLine,
	requestsFrom,
	startTestSandbox,
} from '../harness/backgroundCheck';
import {
	callWebhook,
	nodeOutput,
	waitForWebhook,
	type Credential,
	type Execution,
	type WebhookResponse,
} from '../harness/n8nApi';
import { startTestN8n, type TestN8n } from '../harness/n8nInstance';
import { caseCompletedBody, signedHeaders } from '../helpers/deliveries';
import { orderOf } from '../helpers/sandbox';

let n8n: TestN8n;
let sandbox: Sandbox;
/** Webhook secrets and legacy body passwords handed out in this file. */
const secrets: Record<string, string> = {};

beforeAll(async () => {
	sandbox = await startTestSandbox();
	n8n = await startTestN8n('trigger');
}, 180_000);

beforeEach(async () => {
	await sandbox.admin.idle();
	sandbox.admin.reset();
	sandbox.admin.updateWebhookSettings({ standardEnabled: true, legacyEnabled: false });
});

afterAll(async () => {
	await sandbox?.admin.idle();
	await n8n?.stop();
	await sandbox?.stop();
});

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const STEP_SECONDS = 300;

// ---------------------------------------------------------------------------------------------
// The sandbox side: cases created through its API, the clock, the delivery log
// ---------------------------------------------------------------------------------------------

async function sandboxApi(method: string, path: string, body?: unknown): Promise<Json> {
	const [demo] = sandbox.demoCredentials;
	const auth = await httpRequest(`${sandbox.url}/auth/api`, {
		method: 'POST',
		body: { apiKey: demo.apiKey, clientAccessToken: demo.clientAccessToken },
	});
	const answer = await httpRequest(`${sandbox.url}${path}`, {
		method,
		body,
		headers: { authorization: `Bearer ${(auth.json as Json).token}` },
	});
	if (answer.status >= 300) throw new Error(`${method} ${path} -> ${answer.status} ${answer.text}`);
	return answer.json as Json;
}

/**
 * Creates a case in the East group (its first case.statuschange goes out at once), waits for the deliveries and
 * returns the case as the sandbox keeps it (its admin view, which is not in the request log).
 */
async function createCase(services = ['service-idv-id']): Promise<Json> {
	const { caseId } = await sandboxApi('POST', '/case/create', {
		...orderOf(...services),
		email: `ada-${randomUUID()}@example.com`,
		givenName: 'Ada',
		familyName: 'Lovelace',
		apiTrackingCode: 'HR-42',
	});
	await sandbox.admin.idle();
	return sandbox.admin.getCase(caseId as string) as unknown as Json;
}

/** Moves sandbox time one lifecycle step; every delivery that falls due is made and answered. */
async function step(): Promise<void> {
	await sandbox.admin.advanceClock(STEP_SECONDS);
	await sandbox.admin.idle();
}

const delivered = (subscription: Subscription): DeliveryAttempt[] =>
	sandbox.admin.deliveryLog({ subscriptionId: subscription.id });

const distinctMessages = (attempts: DeliveryAttempt[]) => [
	...new Set(attempts.map((attempt) => attempt.messageId)),
];

// ---------------------------------------------------------------------------------------------
// The n8n side: an active workflow whose only node is the trigger
// ---------------------------------------------------------------------------------------------

interface DeployedTrigger {
	workflowId: string;
	webhookId: string;
	/** The production URL the sandbox delivers to. */
	url: string;
	/** The secret a sentinel and hand-made deliveries are signed with. */
	signingSecret: string;
	/** POST a body with headers to the production URL (an array value is sent as that many header lines). */
	post(body: string, headers: Record<string, string | string[]>): Promise<WebhookResponse>;
	/**
	 * Send one more signed case.statuschange (Complete, so that it passes status filters), wait until its
	 * execution is finished, and return every execution of the workflow but the sentinels, oldest first. Anything
	 * received before the sentinel has its execution in n8n's database by then, so the count is exact.
	 */
	settle(caseId?: string, timeoutMs?: number): Promise<Execution[]>;
}

/** The sandbox's delivery log of one event answered 200 at the first attempt, and so never retried. */
const ANSWERED_AT_FIRST_ATTEMPT = [
	expect.objectContaining({
		attempt: 1,
		outcome: 'succeeded',
		statusCode: 200,
		nextAttemptAt: null,
	}),
];

let sentinelNumber = 0;

/**
 * Create the trigger's workflow with a fixed webhookId, let `subscribe` create the sandbox subscriptions
 * for its production URL and return the webhook credential's data, then activate it and wait until the
 * URL answers (an unsigned POST must get 401 and start nothing).
 */
async function deployTrigger(
	label: string,
	parameters: Record<string, unknown>,
	subscribe: (url: string) => { signingSecret: string; credentialData: Record<string, string> },
	apiCredential?: Credential,
	typeVersion?: number,
): Promise<DeployedTrigger> {
	const webhookId = randomUUID();
	const url = `${n8n.baseUrl}/webhook/${webhookId}/webhook`;
	const { signingSecret, credentialData } = subscribe(url);
	for (const [field, value] of Object.entries(credentialData)) secrets[`${label} ${field}`] = value;
	const credential = await n8n.api.createCredential({
		name: `webhook: ${label}`,
		type: WEBHOOK_CREDENTIAL,
		data: credentialData,
	});
	const { workflow } = await deployTriggerWorkflow(n8n, {
		name: `e2e trigger: ${label}`,
		webhookId,
		parameters,
		webhookCredential: credential,
		apiCredential,
		typeVersion,
	});

	const post = (body: string, headers: Record<string, string | string[]>) =>
		callWebhook(n8n.baseUrl, `${webhookId}/webhook`, { method: 'POST', body, headers });
	const settle = async (caseId = `sentinel-case-${randomUUID()}`, timeoutMs = 20_000) => {
		const messageId = `sentinel-${++sentinelNumber}`;
		const body = caseCompletedBody(messageId, caseId);
		const answer = await post(body, signedHeaders(signingSecret, messageId, body));
		expect(answer.status).toBe(200);
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const all = (
				await n8n.api.listExecutions({ workflowId: workflow.id, includeData: true, limit: 250 })
			).reverse();
			const finished = all.every(
				(execution) => !['new', 'running', 'waiting'].includes(execution.status),
			);
			const sentinel = finished
				? all.filter((execution) => triggerItem(execution).messageId === messageId)
				: [];
			if (sentinel.length === 1)
				return all.filter(
					(execution) => !String(triggerItem(execution).messageId).startsWith('sentinel-'),
				);
			if (Date.now() > deadline) {
				throw new Error(
					`sentinel ${messageId} not run in ${timeoutMs / 1000} s (${all.map((execution) => `${execution.id}:${execution.status}`).join(', ')})`,
				);
			}
			await new Promise((resolve) => setTimeout(resolve, 150));
		}
	};
	return { workflowId: workflow.id, webhookId, url, signingSecret, post, settle };
}

/** A standard subscription at company level for `url`, its secret in the credential. */
function standardSubscription(
	extra: Partial<Parameters<Sandbox['admin']['createSubscription']>[0]> = {},
) {
	return (url: string) => {
		const subscription = sandbox.admin.createSubscription({ url, ...extra });
		return {
			signingSecret: subscription.secret,
			credentialData: { signingSecret: subscription.secret },
			subscription,
		};
	};
}

/** The one item the trigger output in an execution, paired with the item its first step was given. */
function triggerItem(execution: Execution): Json {
	const items = nodeOutput(execution, TRIGGER) as Json[];
	expect(items).toHaveLength(1);
	const [output] = execution.data!.resultData.runData[TRIGGER][0].data!.main[0]!;
	expect((output as { pairedItem?: unknown }).pairedItem).toEqual({ item: 0 });
	return items[0];
}

// ---------------------------------------------------------------------------------------------

describe('deliveries from the sandbox', () => {
	test('each event runs exactly one execution, whose item is the event', async () => {
		let subscription!: Subscription;
		const trigger = await deployTrigger('every event', { event: 'any' }, (url) => {
			const made = standardSubscription()(url);
			subscription = made.subscription;
			return made;
		});
		const first = await createCase();
		const second = await createCase(['service-idv-id', '9a1aa5db-1292-423e-a17c-4a7ab380de58']);
		// Step 2, step 3, then the first case data changes.
		for (let steps = 0; steps < 3; steps++) await step();

		const attempts = delivered(subscription);
		expect(attempts.length).toBeGreaterThanOrEqual(6);
		expect(
			attempts.every(
				(attempt) =>
					attempt.outcome === 'succeeded' && attempt.statusCode === 200 && attempt.attempt === 1,
			),
		).toBe(true);
		const messages = distinctMessages(attempts);
		expect(messages).toHaveLength(attempts.length);

		const executions = await trigger.settle();
		expect(executions.map((execution) => execution.status)).toEqual(messages.map(() => 'success'));
		expect(executions.every((execution) => execution.mode === 'webhook')).toBe(true);
		const items = executions.map(triggerItem);
		expect(items.map((item) => item.messageId).sort()).toEqual([...messages].sort());
		for (const item of items) {
			const attempt = attempts.find((candidate) => candidate.messageId === item.messageId)!;
			expect(item).toMatchObject({
				event: attempt.event,
				deliveryId: attempt.messageId,
				signatureScheme: 'standard',
				apiTrackingCode: 'HR-42',
				eventObject: (attempt.payload as Json).eventObject,
			});
		}
		// Both kinds of event, for both cases.
		expect(new Set(items.map((item) => item.event))).toEqual(
			new Set(['case.statuschange', 'casedata.statuschange']),
		);
		const caseIds = new Set(items.map((item) => item.eventObject.caseId ?? item.eventObject.id));
		expect(caseIds).toEqual(new Set([first.id, second.id]));
	});

	test('tampered, stale, future, unsigned and wrongly signed requests get 401 and start no execution', async () => {
		const trigger = await deployTrigger('refusals', { event: 'any' }, standardSubscription());
		const now = Math.floor(Date.now() / 1000);
		const body = caseCompletedBody('msg-refused', 'case-refused');
		const signed = signedHeaders(trigger.signingSecret, 'msg-refused', body, now);

		const refusals: Array<[string, string, Record<string, string>]> = [
			['tampered body', body.replace('"Complete"', '"Pending"'), signed],
			[
				'stale timestamp',
				body,
				signedHeaders(trigger.signingSecret, 'msg-refused', body, now - 10 * 60),
			],
			[
				'future timestamp',
				body,
				signedHeaders(trigger.signingSecret, 'msg-refused', body, now + 10 * 60),
			],
			['signed timestamp replaced', body, { ...signed, 'webhook-timestamp': String(now - 1) }],
			['unsigned', body, { 'content-type': 'application/json' }],
			['signature header missing', body, { ...signed, 'webhook-signature': '' }],
			[
				'another endpoint secret',
				body,
				signedHeaders(generateWebhookSecret(), 'msg-refused', body, now),
			],
			[
				'legacy header on a standard trigger',
				body,
				{
					'content-type': 'application/json',
					'sandbox-signature': signLegacyWebhook('0123abcd', Date.now(), body),
				},
			],
		];
		for (const [reason, sentBody, headers] of refusals) {
			const answer = await trigger.post(sentBody, headers);
			expect({ reason, status: answer.status }).toEqual({ reason, status: 401 });
			expect(answer.text).toMatch(/Webhook signature rejected/);
		}
		// The same message, correctly signed, is accepted once.
		expect((await trigger.post(body, signed)).status).toBe(200);
		const executions = await trigger.settle();
		expect(executions.map((execution) => triggerItem(execution).messageId)).toEqual([
			'msg-refused',
		]);
	});

	test('several webhook-signature header lines: a valid signature in any line is accepted, however n8n joins them', async () => {
		const trigger = await deployTrigger('header lines', { event: 'any' }, standardSubscription());
		const other = generateWebhookSecret();
		const sent: string[] = [];
		for (const [messageId, lines] of [
			['msg-lines-first', (good: string, bad: string) => [good, bad]],
			['msg-lines-last', (good: string, bad: string) => [bad, good]],
			['msg-lines-middle', (good: string, bad: string) => [bad, `${bad} ${good}`, bad]],
		] as const) {
			const body = caseCompletedBody(messageId, `case-${messageId}`);
			const good = signedHeaders(trigger.signingSecret, messageId, body);
			const bad = signedHeaders(other, messageId, body, Number(good['webhook-timestamp']))[
				'webhook-signature'
			];
			const answer = await trigger.post(body, {
				...good,
				'webhook-signature': lines(good['webhook-signature'], bad),
			});
			expect({ messageId, status: answer.status }).toEqual({ messageId, status: 200 });
			sent.push(messageId);
		}
		// No line signed with the endpoint's secret: refused.
		const body = caseCompletedBody('msg-lines-none', 'case-lines-none');
		const headers = signedHeaders(other, 'msg-lines-none', body);
		const forged = await trigger.post(body, {
			...headers,
			'webhook-signature': [headers['webhook-signature'], headers['webhook-signature']],
		});
		expect(forged.status).toBe(401);
		const executions = await trigger.settle();
		expect(executions.map((execution) => triggerItem(execution).messageId).sort()).toEqual(
			sent.sort(),
		);
	});

	test('a trigger added before version 1.1 (workflows saved with typeVersion 1) refuses and runs the same way', async () => {
		const trigger = await deployTrigger(
			'version 1',
			{ event: 'any' },
			standardSubscription(),
			undefined,
			1,
		);
		const body = caseCompletedBody('msg-v1', 'case-v1');
		const signed = signedHeaders(trigger.signingSecret, 'msg-v1', body);
		expect((await trigger.post(body.replace('"Complete"', '"Pending"'), signed)).status).toBe(401);
		expect((await trigger.post(body, signed)).status).toBe(200);
		expect((await trigger.post(body, signed)).status).toBe(200);
		const executions = await trigger.settle();
		expect(executions.map((execution) => triggerItem(execution).messageId)).toEqual(['msg-v1']);
	});

	test('during a secret rotation both secrets sign and the credential with the old one keeps working; after the rotation ends it is refused', async () => {
		let subscription!: Subscription;
		const trigger = await deployTrigger('rotation', { event: 'case.statuschange' }, (url) => {
			const made = standardSubscription({ eventTypes: ['case.statuschange'] })(url);
			subscription = made.subscription;
			return made;
		});
		const rotated = sandbox.admin.rotateSubscriptionSecret(subscription.id);
		secrets['rotation new signingSecret'] = rotated.secret;
		const during = await createCase();
		const signedWithBoth = delivered(subscription);
		expect(signedWithBoth.map((attempt) => [attempt.outcome, attempt.statusCode])).toEqual([
			['succeeded', 200],
		]);
		expect(signedWithBoth[0].headers['webhook-signature'].split(' ')).toHaveLength(2);

		sandbox.admin.endSecretRotation(subscription.id);
		await createCase();
		const signedWithNewOnly = delivered(subscription).slice(signedWithBoth.length);
		expect(signedWithNewOnly.map((attempt) => [attempt.outcome, attempt.statusCode])).toEqual([
			['failed', 401],
		]);

		const executions = await trigger.settle();
		expect(executions.map((execution) => triggerItem(execution).eventObject.id)).toEqual([
			during.id,
		]);
	});

	test('duplicates (the sandbox quirk, a replay, a copy with a new ID) run once', async () => {
		let subscription!: Subscription;
		const trigger = await deployTrigger('duplicates', { event: 'any' }, (url) => {
			const made = standardSubscription({ quirks: { duplicate: true } })(url);
			subscription = made.subscription;
			return made;
		});
		await createCase();
		await step();
		const attempts = delivered(subscription);
		const copies = attempts.filter((attempt) => attempt.duplicate);
		expect(copies.length).toBeGreaterThan(0);
		expect(attempts.every((attempt) => attempt.outcome === 'succeeded')).toBe(true);
		const messages = distinctMessages(attempts);
		expect(copies.length).toBe(messages.length);

		// A replay of a delivered message (same webhook-id, signed afresh), and the same case event under a new ID.
		const original = attempts.find(
			(attempt) => attempt.event === 'case.statuschange' && !attempt.duplicate,
		)!;
		const replayBody = JSON.stringify(original.payload);
		const replay = await trigger.post(
			replayBody,
			signedHeaders(trigger.signingSecret, original.messageId, replayBody),
		);
		expect(replay.status).toBe(200);
		expect(replay.body).toMatchObject({ workflowStarted: false, reason: 'duplicate' });
		const copyBody = JSON.stringify({
			...(original.payload as Json),
			messageId: 'msg-new-id-same-event',
		});
		const copy = await trigger.post(
			copyBody,
			signedHeaders(trigger.signingSecret, 'msg-new-id-same-event', copyBody),
		);
		expect(copy.status).toBe(200);
		expect(copy.body).toMatchObject({ workflowStarted: false, reason: 'duplicate' });

		const executions = await trigger.settle();
		expect(executions.map((execution) => triggerItem(execution).messageId).sort()).toEqual(
			[...messages].sort(),
		);
	});

	test('a sender that hangs up after n8n took its delivery and before the answer: the event runs once, the next delivery is not held', async () => {
		const trigger = await deployTrigger('hang-ups', { event: 'any' }, standardSubscription());
		const signed = (messageId: string) => {
			const body = caseCompletedBody(messageId, `case-of-${messageId}`);
			return { messageId, body, headers: signedHeaders(trigger.signingSecret, messageId, body) };
		};
		const expected: string[] = [];
		let caught = 0;
		// The window between n8n running the trigger and answering is tens of ms: hang-ups at 0-150 ms, one at
		// a time, until three fall in it (the retry is a duplicate though the sender saw no answer).
		for (let attempt = 0; caught < 3 && attempt < 200; attempt++) {
			const hungUp = signed(`hang-up-${attempt}`);
			// The sandbox's sender, with a deadline of 0-150 ms: it closes the connection when that passes.
			const sent = await postWebhook(trigger.url, hungUp.body, hungUp.headers, (attempt * 7) % 150);
			const sawNoAnswer = sent.kind !== 'response';
			const retry = await trigger.post(hungUp.body, hungUp.headers);
			expect(retry.status).toBe(200);
			expected.push(hungUp.messageId);
			if (!sawNoAnswer || (retry.body as Json).reason !== 'duplicate') continue;
			caught++;
			// A new delivery right after: n8n's answer released the turn to save, though nobody received it.
			const next = signed(`after-hang-up-${attempt}`);
			const answer = await trigger.post(next.body, next.headers);
			// A started execution is answered with an empty 200; one still held after 10 s, with 503.
			expect({ status: answer.status, body: answer.body }).toEqual({ status: 200, body: '' });
			expected.push(next.messageId);
		}
		expect(caught).toBe(3);
		const executions = await trigger.settle();
		expect(executions.map((execution) => triggerItem(execution).messageId).sort()).toEqual(
			expected.sort(),
		);
	});

	test('with both delivery systems on, each event arrives twice (standard and legacy) and runs once', async () => {
		const password = `legacy-body-password-${randomUUID()}`;
		secrets.legacyBodyPassword = password;
		let legacy!: Subscription;
		let standard!: Subscription;
		const trigger = await deployTrigger(
			'both schemes',
			{ event: 'any', signatureScheme: 'both' },
			(url) => {
				legacy = sandbox.admin.createSubscription({
					url,
					scheme: 'legacy',
					username: 'n8n-endpoint',
					password,
				});
				sandbox.admin.updateWebhookSettings({ legacyEnabled: true });
				const migration = sandbox.admin.migrateLegacySubscriptions();
				expect(migration.created).toHaveLength(1);
				standard = migration.created[0];
				return {
					signingSecret: standard.secret,
					credentialData: { signingSecret: standard.secret, legacySecret: legacy.secret },
				};
			},
		);
		await createCase();
		await step();

		const standardAttempts = delivered(standard);
		const legacyAttempts = delivered(legacy);
		expect(legacyAttempts.length).toBeGreaterThan(0);
		for (const attempts of [standardAttempts, legacyAttempts]) {
			expect(
				attempts.every((attempt) => attempt.outcome === 'succeeded' && attempt.statusCode === 200),
			).toBe(true);
		}
		// The legacy copy carries the password in its body (redacted in the sandbox's log).
		expect(legacyAttempts[0].headers).toHaveProperty('sandbox-signature');
		expect((legacyAttempts[0].payload as Json).username).toBe('n8n-endpoint');
		const events = (attempts: DeliveryAttempt[]) =>
			attempts
				.map((attempt) => JSON.stringify([attempt.event, (attempt.payload as Json).eventObject]))
				.sort();
		expect(events(legacyAttempts)).toEqual(events(standardAttempts));

		const executions = await trigger.settle();
		const items = executions.map(triggerItem);
		expect(items.map((item) => JSON.stringify([item.event, item.eventObject])).sort()).toEqual(
			events(standardAttempts),
		);
		expect(new Set(items.map((item) => item.signatureScheme))).not.toContain(undefined);
		for (const item of items) {
			expect(item).not.toHaveProperty('password');
			expect(item).not.toHaveProperty('username');
		}
	});
});

describe('a case from order to completion', () => {
	test('every case.statuschange of the lifecycle runs once; a "Complete" trigger with "Fetch latest case" runs once with the case', async () => {
		const apiCredential = await createApiCredential(n8n.api, sandbox, { name: 'trigger fetch' });
		const statusChanges = await deployTrigger(
			'status changes',
			{ event: 'case.statuschange' },
			standardSubscription(),
		);
		const completions = await deployTrigger(
			'completions',
			{ event: 'case.statuschange', caseStatus: 'Complete', fetchLatestCase: true },
			standardSubscription({ eventTypes: ['case.statuschange'] }),
			apiCredential,
		);

		const requests = requestsFrom(sandbox);
		const created = await createCase();
		for (let steps = 0; sandbox.admin.getCase(created.id).caseStatus !== 'Complete'; steps++) {
			expect(steps).toBeLessThan(12);
			await step();
		}

		const changes = (await statusChanges.settle()).map(triggerItem);
		expect(
			changes.map((item) => [item.eventObject.caseStatus, item.eventObject.secondaryStatus]),
		).toEqual([
			['Pending', 'Waiting for Authorization'],
			['Pending', 'Authorization in Progress'],
			['Pending', null],
			['Complete', null],
		]);
		expect(
			changes.every(
				(item) => item.event === 'case.statuschange' && item.eventObject.id === created.id,
			),
		).toBe(true);

		const done = (await completions.settle(created.id)).map(triggerItem);
		expect(done).toHaveLength(1);
		expect(done[0]).toMatchObject({
			event: 'case.statuschange',
			eventObject: { id: created.id, caseStatus: 'Complete' },
			latestCase: {
				id: created.id,
				caseStatus: 'Complete',
				candidateEmail: created.candidateEmail,
			},
		});
		// n8n fetched the case with the API credential: one exchange, and GET /case/id/{id} for the event
		// and for the sentinel.
		const fromN8n = requests.all().filter((entry) => entry.path === `/case/id/${created.id}`);
		expect(fromN8n.map(requestLine)).toEqual([
			`GET /case/id/${created.id} 200`,
			`GET /case/id/${created.id} 200`,
		]);
	});
});

describe('Fetch Latest Case when the API is slow or failing', () => {
	const deployFetching = async (label: string) => {
		const apiCredential = await createApiCredential(n8n.api, sandbox, {
			name: `trigger fetch: ${label}`,
		});
		let subscription!: Subscription;
		const trigger = await deployTrigger(
			label,
			{ event: 'case.statuschange', fetchLatestCase: true },
			(url) => {
				const made = standardSubscription({ eventTypes: ['case.statuschange'] })(url);
				subscription = made.subscription;
				return made;
			},
			apiCredential,
		);
		return { trigger, subscription: () => subscription };
	};
	/** Waits until the execution's GET /case/id has met the fault (a one-time fault is used up when it is hit). */
	const faultHit = async (faultId: string) => {
		for (
			const deadline = Date.now() + 20_000;
			sandbox.admin.listFaults().some((fault) => fault.id === faultId);

		) {
			if (Date.now() > deadline)
				throw new Error('the execution did not call GET /case/id within 20 s');
			await new Promise((resolve) => setTimeout(resolve, 50));
		}
	};

	test("with 20 s of latency on GET /case/id, past the provider's 15 s deadline, the first attempt is answered 2xx and the event runs once, with the case", async () => {
		const { trigger, subscription } = await deployFetching('slow API');
		const fault = sandbox.admin.injectFault({
			kind: 'latency',
			latencyMs: 20_000,
			method: 'GET',
			pathPrefix: '/case/id/',
			times: 1,
		});
		const requests = requestsFrom(sandbox);
		const created = await createCase();
		// Answered before the fetch: had n8n waited for it, the attempt would have missed the 15 s deadline.
		expect(delivered(subscription())).toEqual(ANSWERED_AT_FIRST_ATTEMPT);
		await faultHit(fault.id);
		const fetches = () => requests.all().filter((entry) => entry.path === `/case/id/${created.id}`);
		expect(fetches()).toEqual([]);
		// n8n's public API lists an execution once it has finished: wait for the slow answer first.
		for (const deadline = Date.now() + 40_000; fetches().length === 0; ) {
			if (Date.now() > deadline) throw new Error('GET /case/id was not answered within 40 s');
			await new Promise((resolve) => setTimeout(resolve, 200));
		}

		const executions = (await trigger.settle()).map(triggerItem);
		expect(executions).toHaveLength(1);
		expect(executions[0]).toMatchObject({
			eventObject: { id: created.id },
			latestCase: { id: created.id, caseStatus: 'Pending' },
		});
		expect(executions[0]).not.toHaveProperty('latestCaseError');
		expect(
			requests
				.all()
				.filter((entry) => entry.path === `/case/id/${created.id}`)
				.map(requestLine),
		).toEqual([`GET /case/id/${created.id} 200`]);
	}, 120_000);

	test('with GET /case/id answering 503, the delivery is answered 2xx and the event runs once, its output saying why the case is missing', async () => {
		const { trigger, subscription } = await deployFetching('failing API');
		const fault = sandbox.admin.injectFault({
			kind: 'status',
			status: 503,
			method: 'GET',
			pathPrefix: '/case/id/',
			times: 1,
		});
		const created = await createCase();
		expect(delivered(subscription())).toEqual(ANSWERED_AT_FIRST_ATTEMPT);
		await faultHit(fault.id);

		const executions = await trigger.settle();
		expect(executions.map((execution) => execution.status)).toEqual(['success']);
		expect(triggerItem(executions[0])).toMatchObject({
			eventObject: { id: created.id },
			latestCase: null,
			latestCaseError: expect.stringMatching(new RegExp(`GET /case/id/${created.id}.*HTTP 503`)),
		});
	});
});

describe('an n8n restart', () => {
	test('the trigger answers again on the same URL and still knows the events it ran: a replay runs nothing', async () => {
		let subscription!: Subscription;
		const trigger = await deployTrigger('restart', { event: 'case.statuschange' }, (url) => {
			const made = standardSubscription({ eventTypes: ['case.statuschange'] })(url);
			subscription = made.subscription;
			return made;
		});
		const created = await createCase();
		const [first] = delivered(subscription);
		expect(first).toMatchObject({ outcome: 'succeeded', statusCode: 200 });
		expect((await trigger.settle()).map((execution) => triggerItem(execution).messageId)).toEqual([
			first.messageId,
		]);

		n8n = await n8n.restart();
		const probe = await waitForWebhook(n8n.baseUrl, `${trigger.webhookId}/webhook`, {
			probe: { method: 'POST', body: {} },
		});
		expect(probe?.status).toBe(401);

		const body = JSON.stringify(first.payload);
		const replay = await trigger.post(
			body,
			signedHeaders(trigger.signingSecret, first.messageId, body),
		);
		expect(replay.status).toBe(200);
		expect(replay.body).toMatchObject({ workflowStarted: false, reason: 'duplicate' });
		await step();
		const executions = (await trigger.settle()).map(triggerItem);
		expect(
			executions.map((item) => [item.eventObject.id, item.eventObject.secondaryStatus]),
		).toEqual([
			[created.id, 'Waiting for Authorization'],
			[created.id, 'Authorization in Progress'],
		]);
	});
});

describe('the saved copy of the duplicate memory', () => {
	test('every accepted delivery is saved before it is answered: after a restart, replays of all of them run nothing, the last one included', async () => {
		const trigger = await deployTrigger(
			'saved before the answer',
			{ event: 'case.statuschange' },
			standardSubscription({ eventTypes: ['case.statuschange'] }),
		);
		const sent = Array.from({ length: 5 }, (_, index) => {
			const messageId = `msg-quiet-${index}-${randomUUID()}`;
			return {
				messageId,
				body: caseCompletedBody(messageId, `case-quiet-${index}-${randomUUID()}`),
			};
		});
		for (const { messageId, body } of sent) {
			expect(
				(await trigger.post(body, signedHeaders(trigger.signingSecret, messageId, body))).status,
			).toBe(200);
		}
		// Nothing else reaches n8n before it stops: no later request could save what the last one left unsaved.
		n8n = await n8n.restart();
		const probe = await waitForWebhook(n8n.baseUrl, `${trigger.webhookId}/webhook`, {
			probe: { method: 'POST', body: {} },
		});
		expect(probe?.status).toBe(401);
		for (const { messageId, body } of sent) {
			const replay = await trigger.post(
				body,
				signedHeaders(trigger.signingSecret, messageId, body),
			);
			expect({ messageId, status: replay.status, body: replay.body }).toEqual({
				messageId,
				status: 200,
				body: expect.objectContaining({ workflowStarted: false, reason: 'duplicate' }),
			});
		}
		const executions = (await trigger.settle()).map(triggerItem);
		expect(executions.map((item) => item.messageId).sort()).toEqual(
			sent.map(({ messageId }) => messageId).sort(),
		);
	}, 300_000);
});

describe('secrets', () => {
	test("no signing secret, legacy secret or legacy body password appears in any execution's saved data or in n8n's log", async () => {
		expect(Object.keys(secrets).length).toBeGreaterThanOrEqual(5);
		const executions = await n8n.api.listExecutions({ includeData: true, limit: 500 });
		expect(executions.length).toBeGreaterThan(10);
		const saved = JSON.stringify(executions);
		expect(saved).toContain('case.statuschange');
		expect(leakedSecrets(saved, secrets)).toEqual([]);
		// The base64 part of a whsec_ secret alone is a secret too.
		const bare = Object.fromEntries(
			Object.entries(secrets).map(([name, value]) => [name, value.replace(/^whsec_/, '')]),
		);
		expect(leakedSecrets(saved, bare)).toEqual([]);
		expect(saved.match(JWT_PATTERN)).toBeNull();
		const log = n8n.readLog();
		expect(leakedSecrets(log, secrets)).toEqual([]);
		expect(leakedSecrets(log, bare)).toEqual([]);
	});
});
