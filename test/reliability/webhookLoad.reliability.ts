/* eslint-disable @n8n/community-nodes/no-restricted-globals -- repository tooling: runs in Node.js, never inside n8n */
/**
 * The Background Check Trigger active in real n8n (the pinned runtime) under load and across an n8n outage:
 * - 2,000 signed deliveries from 50 concurrent senders, with 20% duplicates, 10% bad signatures and 5%
 *   stale timestamps: exactly one execution per unique valid event (checked by each event's marker in the
 *   executions' data), no bad or stale one accepted (each answered 401), every duplicate acknowledged
 *   without a run;
 * - n8n stopped while the sandbox is delivering: the sandbox's retries (its clock moved past the retry
 *   delays of spec section 8) land every event exactly once after n8n is started again.
 * Outcomes only; every wait is bounded.
 */
import { randomUUID } from 'node:crypto';

import { generateWebhookSecret } from '../../nodes/shared/webhookSignature';
import { httpRequest } from '../harness/n8n/http';
import type { DeliveryAttempt, Sandbox, Subscription } from '../../sandbox';
import {
	TRIGGER_NAME as TRIGGER,
	WEBHOOK_CREDENTIAL,
	deployTriggerWorkflow,
	startTestSandbox,
	stoppedAtTrigger,
} from '../harness/backgroundCheck';
import { nodeOutput, waitForWebhook, type Execution } from '../harness/n8nApi';
import { orderOf } from '../helpers/sandbox';
import { eventBody, nowSeconds, signedHeaders } from '../helpers/deliveries';
import { startTestN8n, type TestN8n } from '../harness/n8nInstance';
import { seededRandom, shuffle } from '../helpers/seededRandom';
import { runPool, waitFor } from './harness';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const LABEL = 'reliability-webhooks';

let n8n: TestN8n;
let sandbox: Sandbox;

beforeAll(async () => {
	sandbox = await startTestSandbox();
	n8n = await startTestN8n(LABEL);
}, 180_000);

afterAll(async () => {
	await sandbox?.admin.idle();
	await n8n?.stop();
	await sandbox?.stop();
});

// ---------------------------------------------------------------------------------------------
// Deliveries and the trigger's workflow
// ---------------------------------------------------------------------------------------------

interface Trigger {
	workflowId: string;
	webhookId: string;
	url: string;
	signingSecret: string;
	post(
		body: string,
		headers: Record<string, string>,
	): Promise<{ status: number; body: Json | string }>;
	/**
	 * Sends a sentinel event last and waits until it has run and every execution is finished (except those
	 * with an ID up to `unfinishedUpToId`: created before a restart). Returns, oldest first, the executions in
	 * which the trigger ran (sentinels left out) and those in which it did not.
	 */
	settle(
		timeoutMs: number,
		opts?: { unfinishedUpToId?: number },
	): Promise<{ ran: Execution[]; didNotRun: Execution[] }>;
}

/** The one item the trigger output in an execution. */
function triggerItem(execution: Execution): Json {
	const items = nodeOutput(execution, TRIGGER) as Json[];
	if (items.length !== 1)
		throw new Error(`execution ${execution.id}: ${items.length} trigger items`);
	return items[0];
}

/** The item n8n was to start the execution with (its execution stack), for an execution that never ran. */
const startItemOf = (execution: Execution): Json | undefined =>
	(
		execution.data as
			| { executionData?: { nodeExecutionStack?: Array<{ data?: { main?: Json[][] } }> } }
			| undefined
	)?.executionData?.nodeExecutionStack?.[0]?.data?.main?.[0]?.[0]?.json as Json | undefined;

/** The trigger's item, or undefined when the trigger did not run in the execution (n8n stopped first). */
const triggerItemOf = (execution: Execution): Json | undefined =>
	execution.data?.resultData.runData[TRIGGER] ? triggerItem(execution) : undefined;

const finished = (execution: Execution) =>
	!['new', 'running', 'waiting'].includes(execution.status);

async function deployTrigger(
	name: string,
	signingSecret: string,
	parameters: Json,
	webhookId = randomUUID(),
): Promise<Trigger> {
	const credential = await n8n.api.createCredential({
		name: `webhook: ${name}`,
		type: WEBHOOK_CREDENTIAL,
		data: { signingSecret },
	});
	const { workflow, webhookPath } = await deployTriggerWorkflow(n8n, {
		name: `reliability: ${name}`,
		webhookId,
		parameters,
		webhookCredential: credential,
	});

	const post = async (body: string, headers: Record<string, string>) => {
		// n8n.baseUrl is read at each call: after a restart the port is the same but the instance is new.
		const answer = await httpRequest(`${n8n.baseUrl}/webhook/${webhookPath}`, {
			method: 'POST',
			body,
			headers,
			timeoutMs: 30_000,
		});
		return { status: answer.status, body: (answer.json ?? answer.text) as Json | string };
	};
	let sentinels = 0;
	const settle = async (timeoutMs: number, opts: { unfinishedUpToId?: number } = {}) => {
		const marker = `sentinel-${workflow.id}-${++sentinels}`;
		const body = eventBody(marker, marker, 'case');
		expect((await post(body, signedHeaders(signingSecret, marker, body))).status).toBe(200);
		// Executions n8n created before a restart may stay unfinished; every later one must finish.
		const mustFinish = (execution: Execution) =>
			Number(execution.id) > (opts.unfinishedUpToId ?? 0);
		let seen = '';
		await waitFor(
			async () => {
				const all = await n8n.api.listExecutions({
					workflowId: workflow.id,
					includeData: false,
					limit: 100_000,
				});
				const unfinished = all.filter((execution) => !finished(execution) && mustFinish(execution));
				seen = `${all.length} executions, unfinished: ${unfinished.map((execution) => `${execution.id}:${execution.status}`).join(', ') || 'none'}`;
				if (unfinished.length > 0) return undefined;
				// The sentinel went out after everything else: its execution is among the newest.
				const newest = await n8n.api.listExecutions({
					workflowId: workflow.id,
					includeData: true,
					limit: 50,
				});
				return newest.some((execution) => triggerItemOf(execution)?.eventObject.id === marker)
					? true
					: undefined;
			},
			{
				timeoutMs,
				intervalMs: 1000,
				describe: () => `sentinel ${marker} of workflow ${workflow.id} not run (${seen})`,
			},
		);
		const withData = (
			await n8n.api.listExecutions({ workflowId: workflow.id, includeData: true, limit: 100_000 })
		).reverse();
		const isSentinel = (execution: Execution) =>
			String(triggerItemOf(execution)?.eventObject.id).startsWith('sentinel-');
		return {
			ran: withData.filter(
				(execution) => triggerItemOf(execution) !== undefined && !isSentinel(execution),
			),
			didNotRun: withData.filter((execution) => triggerItemOf(execution) === undefined),
		};
	};
	return {
		workflowId: workflow.id,
		webhookId,
		url: `${n8n.baseUrl}/webhook/${webhookPath}`,
		signingSecret,
		post,
		settle,
	};
}

/** Counts of each value. */
function tally<T>(values: T[]): Map<T, number> {
	const counts = new Map<T, number>();
	for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
	return counts;
}

// ---------------------------------------------------------------------------------------------

describe('2,000 deliveries at 50 concurrent senders', () => {
	test('20% duplicates, 10% bad signatures, 5% stale timestamps: one execution per unique valid event, none lost, none invalid accepted', async () => {
		const TOTAL = 2000;
		const DUPLICATES = 0.2 * TOTAL;
		const BAD_SIGNATURES = 0.1 * TOTAL;
		const STALE = 0.05 * TOTAL;
		const UNIQUE = TOTAL - DUPLICATES - BAD_SIGNATURES - STALE;
		const random = seededRandom(20_000);
		const run = randomUUID().slice(0, 8);
		const secret = generateWebhookSecret();
		// Default settings: n8n's memory holds every event of the last 28 hours, the saved copy the newest 100.
		const trigger = await deployTrigger('load', secret, { event: 'any' });

		type Kind = 'original' | 'replay' | 'copy' | 'badSignature' | 'stale';
		interface Delivery {
			kind: Kind;
			marker: string;
			/** Built when sent: timestamps are checked against the wall clock. */
			build(): { body: string; headers: Record<string, string> };
		}
		const deliveries: Delivery[] = [];
		const valid: string[] = [];
		for (let index = 0; index < UNIQUE; index++) {
			const marker = `load-${run}-${index}`;
			const kind = index % 2 === 0 ? 'case' : 'caseData';
			const messageId = `msg-${marker}`;
			const body = eventBody(messageId, marker, kind);
			valid.push(marker);
			deliveries.push({
				kind: 'original',
				marker,
				build: () => ({ body, headers: signedHeaders(secret, messageId, body) }),
			});
			// The copies the provider may send: the same message again (signed afresh), and the same event
			// under a new message ID (as the other delivery system sends it).
			if (index < DUPLICATES / 2) {
				deliveries.push({
					kind: 'replay',
					marker,
					build: () => ({ body, headers: signedHeaders(secret, messageId, body) }),
				});
				const copyId = `copy-${marker}`;
				const copy = JSON.stringify({ ...JSON.parse(body), messageId: copyId });
				deliveries.push({
					kind: 'copy',
					marker,
					build: () => ({ body: copy, headers: signedHeaders(secret, copyId, copy) }),
				});
			}
		}
		const otherSecret = generateWebhookSecret();
		const badKinds: Array<(marker: string) => Delivery['build']> = [
			// Tampered: signed, then the body changed.
			(marker) => () => {
				const body = eventBody(`msg-${marker}`, marker, 'case');
				return {
					body: body.replace('"Pending"', '"Complete"'),
					headers: signedHeaders(secret, `msg-${marker}`, body),
				};
			},
			// Another endpoint's secret.
			(marker) => () => {
				const body = eventBody(`msg-${marker}`, marker, 'caseData');
				return { body, headers: signedHeaders(otherSecret, `msg-${marker}`, body) };
			},
			// Signed for another webhook-id.
			(marker) => () => {
				const body = eventBody(`msg-${marker}`, marker, 'case');
				return {
					body,
					headers: {
						...signedHeaders(secret, `msg-${marker}`, body),
						'webhook-id': `other-${marker}`,
					},
				};
			},
			// A signature that is not one, and none at all.
			(marker) => () => {
				const body = eventBody(`msg-${marker}`, marker, 'case');
				return {
					body,
					headers: {
						...signedHeaders(secret, `msg-${marker}`, body),
						'webhook-signature': 'v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
					},
				};
			},
			(marker) => () => {
				const body = eventBody(`msg-${marker}`, marker, 'caseData');
				const headers: Record<string, string> = signedHeaders(secret, `msg-${marker}`, body);
				delete headers['webhook-signature'];
				return { body, headers };
			},
		];
		for (let index = 0; index < BAD_SIGNATURES; index++) {
			const marker = `bad-${run}-${index}`;
			deliveries.push({
				kind: 'badSignature',
				marker,
				build: badKinds[index % badKinds.length](marker),
			});
		}
		for (let index = 0; index < STALE; index++) {
			const marker = `stale-${run}-${index}`;
			const body = eventBody(`msg-${marker}`, marker, index % 2 === 0 ? 'case' : 'caseData');
			// Correctly signed, 6 minutes to 2 hours ago (the tolerance is 5 minutes).
			const age = 360 + Math.floor(random() * 7000);
			deliveries.push({
				kind: 'stale',
				marker,
				build: () => ({
					body,
					headers: signedHeaders(secret, `msg-${marker}`, body, nowSeconds() - age),
				}),
			});
		}
		expect(deliveries).toHaveLength(TOTAL);

		const send = async (delivery: Delivery) => {
			const { body, headers } = delivery.build();
			const answer = await trigger.post(body, headers);
			const outcome =
				answer.status === 401
					? `refused: ${typeof answer.body === 'object' ? answer.body.message : answer.body}`
					: answer.status === 200 &&
						  typeof answer.body === 'object' &&
						  answer.body.workflowStarted === false
						? `acknowledged: ${answer.body.reason}`
						: answer.status === 200
							? 'started'
							: `HTTP ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`;
			return { delivery, outcome };
		};
		const sendingStarted = Date.now();
		const answers = await runPool(shuffle(deliveries, random), 50, send);
		// A copy that arrives while n8n has not started its original's execution for 5 s (a loaded machine) is
		// answered 503, and the provider delivers it again later: then it is a duplicate, as the tally expects.
		const busy = 'HTTP 503 {"message":"A copy of this event is being started"}';
		const waitedFor = answers.filter(({ outcome }) => outcome === busy);
		for (const answer of waitedFor) answer.outcome = (await send(answer.delivery)).outcome;
		if (waitedFor.length > 0)
			process.stderr.write(
				`[reliability] ${waitedFor.length} copies answered 503 busy, sent again\n`,
			);

		const sendingSeconds = (Date.now() - sendingStarted) / 1000;
		// n8n's answers: every bad or stale delivery refused, one start per valid event, every copy a duplicate.
		const outcomes = (kinds: Kind[]) =>
			tally(
				answers
					.filter(({ delivery }) => kinds.includes(delivery.kind))
					.map(({ outcome }) => outcome),
			);
		expect(outcomes(['stale'])).toEqual(
			new Map([['refused: Webhook signature rejected: timestamp too old', STALE]]),
		);
		expect(outcomes(['badSignature'])).toEqual(
			new Map([
				['refused: Webhook signature rejected: signature mismatch', (BAD_SIGNATURES * 4) / 5],
				['refused: Webhook signature rejected: missing webhook headers', BAD_SIGNATURES / 5],
			]),
		);
		expect(outcomes(['original', 'replay', 'copy'])).toEqual(
			new Map([
				['started', UNIQUE],
				['acknowledged: duplicate', DUPLICATES],
			]),
		);
		const startedMarkers = tally(
			answers.filter(({ outcome }) => outcome === 'started').map(({ delivery }) => delivery.marker),
		);
		expect([...startedMarkers.values()].every((count) => count === 1)).toBe(true);
		expect(startedMarkers.size).toBe(UNIQUE);

		// n8n's executions: exactly the unique valid events, each once, each successful.
		const settleStarted = Date.now();
		const { ran: executions, didNotRun } = await trigger.settle(240_000);
		expect(didNotRun).toEqual([]);
		process.stderr.write(
			`[reliability] ${TOTAL} deliveries sent by 50 senders in ${sendingSeconds.toFixed(1)} s; ${executions.length} executions all finished and read ${((Date.now() - settleStarted) / 1000).toFixed(1)} s later\n`,
		);
		expect(executions).toHaveLength(UNIQUE);
		expect(tally(executions.map((execution) => execution.status))).toEqual(
			new Map([['success', UNIQUE]]),
		);
		const executed = tally(
			executions.map((execution) => String(triggerItem(execution).eventObject.id)),
		);
		expect([...executed.entries()].filter(([, count]) => count !== 1)).toEqual([]);
		expect([...executed.keys()].sort()).toEqual([...valid].sort());
		// Invalid ones (their markers start with bad- or stale-) never ran: implied by the equality above.
		expect([...executed.keys()].filter((marker) => !marker.startsWith('load-'))).toEqual([]);

		// n8n reads the workflow's static data for every delivery (and 2.8.4 copies it into every saved
		// execution; 2.41 no longer does, so it is read from the workflow). The trigger's saved copy of its
		// memory holds the newest 100 events (Duplicate Memory Size), 10 characters each.
		const staticData = (await n8n.api.getWorkflow(trigger.workflowId)).staticData as
			| Json
			| undefined;
		const saved = staticData?.[`node:${TRIGGER}`]?.memory as string | undefined;
		const events = saved
			? ((JSON.parse(saved) as { events?: Array<[number, string]> }).events ?? [])
			: [];
		const savedHashes = events.map(([, hashes]) => hashes).join('');
		expect(savedHashes.length).toBe(100 * 10);
		expect(JSON.stringify(staticData).length).toBeLessThan(1200);
	}, 420_000);
});

describe('n8n stopped while the sandbox delivers', () => {
	/** Stop n8n but keep its user folder (the harness's stop takes keepUserFolder second; restart() uses it). */
	const stopKeepingUserFolder = (instance: TestN8n) =>
		(instance.stop as (timeoutMs?: number, keepUserFolder?: boolean) => Promise<void>)(
			undefined,
			true,
		);

	test("after a restart, the sandbox's retries land every event exactly once", async () => {
		await sandbox.admin.idle();
		sandbox.admin.reset();
		const webhookId = randomUUID();
		const subscription: Subscription = sandbox.admin.createSubscription({
			url: `${n8n.baseUrl}/webhook/${webhookId}/webhook`,
		});
		const trigger = await deployTrigger('outage', subscription.secret, { event: 'any' }, webhookId);
		const attempts = (): DeliveryAttempt[] =>
			sandbox.admin.deliveryLog({ subscriptionId: subscription.id });

		const [demo] = sandbox.demoCredentials;
		const auth = await httpRequest(`${sandbox.url}/auth/api`, {
			method: 'POST',
			body: { apiKey: demo.apiKey, clientAccessToken: demo.clientAccessToken },
		});
		const token = (auth.json as Json).token as string;
		let ordered = 0;
		/** Orders a case that stops at lifecycle step 2: two case.statuschange events, the first sent at once. */
		const orderCase = async () => {
			const email = `outage-${++ordered}-${Date.now()}@example.com`;
			sandbox.admin.scriptCandidate(email, { holdAtStep: 2 });
			const created = await httpRequest(`${sandbox.url}/case/create`, {
				method: 'POST',
				headers: { authorization: `Bearer ${token}` },
				body: { ...orderOf('service-idv-id'), email, givenName: 'Ann', familyName: 'Lee' },
			});
			expect(created.status).toBe(200);
		};

		// 100 cases ordered with n8n up: their first events are delivered.
		const CASES = 100;
		for (let index = 0; index < CASES; index++) await orderCase();
		await sandbox.admin.idle();
		// n8n 2.41.1 was seen answering 2 of these after the provider's 15 s deadline (one run in four of this
		// test alone; cause not found); the provider retries such an attempt like any failed one, and the counts
		// below still hold. Nothing else may fail while n8n is up.
		const late = attempts().filter((attempt) => attempt.outcome === 'failed');
		expect(attempts()).toHaveLength(CASES);
		expect(
			late
				.map((attempt) => attempt.failure)
				.filter((failure) => !/no response within/.test(failure ?? '')),
		).toEqual([]);
		process.stderr.write(
			`[reliability] n8n up: ${CASES} events delivered, ${late.length} answered after the provider's deadline\n`,
		);

		// The next lifecycle step: the sandbox delivers 100 events one after another, and n8n is stopped
		// once the first few have been answered.
		const stepping = sandbox.admin.advanceClock(300);
		await waitFor(() => (attempts().length >= CASES + 3 ? true : undefined), {
			timeoutMs: 30_000,
			intervalMs: 5,
			describe: () => `${attempts().length} attempts`,
		});
		await stopKeepingUserFolder(n8n);
		await stepping;
		const step = attempts().slice(CASES);
		// While n8n is down, 10 more cases are ordered; their events fail too.
		for (let index = 0; index < 10; index++) await orderCase();
		await sandbox.admin.idle();
		process.stderr.write(
			`[reliability] n8n stopped while the sandbox delivered a step of ${CASES} events: ${JSON.stringify([...tally(step.map((attempt) => (attempt.outcome === 'failed' ? attempt.failure : 'succeeded'))).entries()])}\n`,
		);
		const undelivered = new Set(attempts().map((attempt) => attempt.messageId));
		for (const attempt of attempts().filter((candidate) => candidate.outcome === 'succeeded'))
			undelivered.delete(attempt.messageId);
		expect(step.filter((attempt) => attempt.outcome === 'succeeded').length).toBeGreaterThanOrEqual(
			3,
		);
		expect(undelivered.size).toBeGreaterThanOrEqual(10);
		expect(
			attempts()
				.filter((attempt) => attempt.outcome === 'failed')
				.every((attempt) => attempt.nextAttemptAt !== null),
		).toBe(true);

		n8n = await startTestN8n(LABEL, { port: n8n.port }, n8n.userFolder);
		const probe = await waitForWebhook(n8n.baseUrl, `${trigger.webhookId}/webhook`, {
			probe: { method: 'POST', body: {} },
		});
		expect(probe?.status).toBe(401);
		const beforeRestart = await n8n.api.listExecutions({
			workflowId: trigger.workflowId,
			includeData: false,
			limit: 100_000,
		});
		const lastIdBeforeRestart = Math.max(
			0,
			...beforeRestart.map((execution) => Number(execution.id)),
		);

		// Sandbox time moves past the retry delays (5 s, 5 min, 30 min), and the late cases reach step 2.
		for (let hour = 0; hour < 3; hour++) await sandbox.admin.advanceClock(3600);
		await sandbox.admin.idle();

		const all = attempts();
		const messages = [...new Set(all.map((attempt) => attempt.messageId))];
		expect(messages).toHaveLength(2 * (CASES + 10));
		const successes = tally(
			all.filter((attempt) => attempt.outcome === 'succeeded').map((attempt) => attempt.messageId),
		);
		// Every message got exactly one 2xx, and those n8n missed got theirs from a retry.
		expect(messages.filter((messageId) => successes.get(messageId) !== 1)).toEqual([]);
		const retried = all.filter(
			(attempt) => attempt.outcome === 'succeeded' && undelivered.has(attempt.messageId),
		);
		expect(retried).toHaveLength(undelivered.size);
		expect(retried.every((attempt) => attempt.attempt >= 2)).toBe(true);

		const { ran, didNotRun } = await trigger.settle(60_000, {
			unfinishedUpToId: lastIdBeforeRestart,
		});
		// Counted apart (docs/trigger-state.md): executions started per event, those that succeeded, and those
		// n8n marked crashed because it stopped while they ran. Never two successes; every event started; an
		// event without a success has a crashed execution the user can retry.
		const messageOf = (execution: Execution) =>
			String((triggerItemOf(execution) ?? startItemOf(execution))?.messageId);
		// An execution stopped at the trigger ran nothing: a row n8n ran at its start whose change a retry started.
		const stopped = [...ran, ...didNotRun].filter(stoppedAtTrigger);
		const startedExecutions = [...ran, ...didNotRun].filter((run) => !stopped.includes(run));
		const started = tally(startedExecutions.map(messageOf));
		const succeeded = tally(
			startedExecutions.filter(({ status }) => status === 'success').map(messageOf),
		);
		const crashed = tally(
			startedExecutions.filter(({ status }) => status !== 'success').map(messageOf),
		);
		process.stderr.write(
			`[reliability] after the restart: ${messages.length} events; executions started ${startedExecutions.length}, succeeded ${[...succeeded.values()].reduce((a, b) => a + b, 0)}, not successful ${[...crashed.values()].reduce((a, b) => a + b, 0)} (${
				startedExecutions
					.filter(({ status }) => status !== 'success')
					.map(({ status }) => status)
					.join(', ') || 'none'
			}); stopped at the trigger ${stopped.length}; events with two successes: ${[...succeeded.values()].filter((count) => count > 1).length}\n`,
		);
		expect([...succeeded.entries()].filter(([, count]) => count > 1)).toEqual([]);
		expect(messages.filter((messageId) => !started.has(messageId))).toEqual([]);
		expect(
			messages.filter((messageId) => !succeeded.has(messageId) && !crashed.has(messageId)),
		).toEqual([]);
		// A second start happens only after a crashed one (n8n died while it ran, before the trigger saved).
		expect(
			[...started.entries()].filter(
				([messageId, count]) => count > 1 && (crashed.get(messageId) ?? 0) < count - 1,
			),
		).toEqual([]);
		expect(
			startedExecutions.filter(
				(execution) => Number(execution.id) > lastIdBeforeRestart && execution.status !== 'success',
			),
		).toEqual([]);
	}, 240_000);
});
