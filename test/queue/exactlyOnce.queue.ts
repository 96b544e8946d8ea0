/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- repository tooling: runs in Node.js, never inside n8n */
/**
 * Exactly once in n8n queue mode: one stack (test/harness/n8n/queue.ts: PostgreSQL, Redis, a load balancer that
 * routes by path running its file from docs/queue-mode/, n8n as 1 main + 2 webhook processes + 2 workers with
 * the packed package), one workflow per scenario, at least 200 unique events each, every delivery signed as the
 * sandbox signs it and sent through the load balancer as docs/queue-mode.md tells users. Each scenario asserts, from
 * n8n's executions (public API of the main process, once none runs and their count is stable), that every
 * unique valid event ran exactly once. The figures go to
 * .dev/test-reports/queue-mode-<runtime>-<load balancer>.json and are printed at the end.
 *
 * Round robin: the same stack also has a round-robin balancer (docs/queue-mode/haproxy-round-robin.cfg) in
 * front of the same processes. There copies of one event can reach both processes at once and run twice, so
 * its scenarios run the workflows users import from docs/queue-mode/ (gate-postgres.json, gate-redis.json):
 * the trigger, then a gate on the event's `eventKey` in PostgreSQL or Redis, then the side effect (a POST to the
 * sandbox's inbox). They count side effects, one per unique event, and report executions beside them.
 *
 * BGC_QUEUE_BALANCER: haproxy, nginx (default) or caddy (test/harness/n8n/loadBalancers.ts);
 * `npm run test:queue:all` runs each on both runtimes.
 *
 * BGC_QUEUE_WITHOUT_LB=1: the baseline without the load balancer (docs/queue-mode.md): every delivery goes
 * straight to a webhook process, the two taking turns, so the copies of one event reach different processes.
 * The assertions are then expected to fail; the printed table is the figure.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { generateWebhookSecret } from '../../nodes/shared/webhookSignature';
import { httpRequest } from '../harness/n8n/http';
import {
	WEBHOOK_SERVERS,
	loadBalancerLabel,
	selectedLoadBalancer,
} from '../harness/n8n/loadBalancers';
import { startQueueStack, type QueueStack } from '../harness/n8n/queue';
import type { Sandbox } from '../../sandbox';
import { selectedRuntimeName, n8nVersion } from '../harness/n8n/runtime';
import {
	TRIGGER_NAME,
	WEBHOOK_CREDENTIAL,
	createApiCredential,
	credentialRef,
	deployTriggerWorkflow,
	executionError,
	lossySubscription,
	publishedEvents,
} from '../harness/backgroundCheck';
import { nodeOutput, type Execution } from '../harness/n8nApi';
import { packageTarball } from '../harness/n8nInstance';
import { waitForWebhook, type Credential } from '../harness/n8n/publicApi';
import { eventBody, legacySignedHeaders, nowSeconds, signedHeaders } from '../helpers/deliveries';
import { caseBody, createCase, orderOf, startTestSandbox, tokenFor } from '../helpers/sandbox';
import { eventKeyOf } from '../../nodes/BackgroundCheckTrigger/event';
import { runPool, sleep, waitFor } from '../reliability/harness';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Unique events per scenario: 80 in `npm test` (CI's time), 200 in `npm run test:queue:all`. */
const EVENTS = Number(process.env.BGC_QUEUE_EVENTS || 80);
const SENDERS = 10;
/** Saved copy of the newest 1,000 events: a process that takes over a path knows every event of a scenario. */
const MEMORY_SIZE = 1000;
const WITHOUT_LB = process.env.BGC_QUEUE_WITHOUT_LB === '1';
const BALANCER = selectedLoadBalancer();
const BALANCER_LABEL = loadBalancerLabel(BALANCER);
let turn = 0;

let stack: QueueStack;
const started = Date.now();
const results: Array<{
	scenario: string;
	balancer: string;
	unique: number;
	deliveries: number;
	executions: number;
	/** Round robin: the side effects behind the gate (POSTs to the inbox). */
	sideEffects?: number;
	answers: Record<string, number>;
	servedBy: Record<string, number>;
	/** The restart scenario: requests each process answered before the kill, while the owner was down, after its restart. */
	phases?: Array<Record<string, number>>;
}> = [];

beforeAll(async () => {
	stack = await startQueueStack({
		tarball: await packageTarball(),
		balancer: BALANCER,
		roundRobin: !WITHOUT_LB,
	});
}, 240_000);

afterAll(async () => {
	await stack?.stop();
	if (results.length === 0) return;
	const runtime = `n8n ${n8nVersion()} (${selectedRuntimeName()})`;
	const lines = results.map(
		(r) =>
			`${`${r.balancer}: ${r.scenario}`.padEnd(90)} unique ${String(r.unique).padStart(4)}  deliveries ${String(r.deliveries).padStart(4)}  executions ${String(r.executions).padStart(4)}${r.sideEffects === undefined ? '' : `  side effects ${String(r.sideEffects).padStart(4)}`}  answers ${JSON.stringify(r.answers)}  served by ${JSON.stringify(r.servedBy)}`,
	);
	process.stderr.write(
		`\nqueue mode, ${runtime}, ${WITHOUT_LB ? 'WITHOUT the load balancer (straight to the webhook processes, taking turns)' : `through ${BALANCER_LABEL}`}:\n${lines.join('\n')}\n`,
	);
	const reports = path.resolve(__dirname, '..', '..', '.dev', 'test-reports');
	fs.mkdirSync(reports, { recursive: true });
	const report = `queue-mode-${selectedRuntimeName()}-${WITHOUT_LB ? 'without-lb' : BALANCER}.json`;
	fs.writeFileSync(
		path.join(reports, report),
		JSON.stringify(
			{
				runtime,
				loadBalancer: WITHOUT_LB ? null : BALANCER_LABEL,
				withoutLoadBalancer: WITHOUT_LB,
				seconds: Math.round((Date.now() - started) / 1000),
				results,
			},
			null,
			2,
		) + '\n',
	);
}, 60_000);

// ---------------------------------------------------------------------------------------------

interface Scenario {
	name: string;
	secret: string;
	legacySecret: string;
	workflowId: string;
	/** Where its deliveries go: a load balancer's URL. */
	baseUrl: string;
	/** `/webhook/<webhook id>/webhook` */
	path: string;
	answers: Record<string, number>;
	deliveries: number;
	/** Round robin: the sandbox inbox its side effects post to. */
	inbox?: string;
}

/** A webhook credential of its own for a scenario: both delivery systems' secrets. */
async function webhookCredential(name: string) {
	const secret = generateWebhookSecret();
	const legacySecret = randomBytes(24).toString('hex');
	const credential = await stack.api.createCredential({
		name,
		type: WEBHOOK_CREDENTIAL,
		data: { signingSecret: secret, legacySecret },
	});
	return { secret, legacySecret, credential };
}

async function deployScenario(name: string, parameters: Json = {}): Promise<Scenario> {
	const { secret, legacySecret, credential } = await webhookCredential(`queue: ${name}`);
	const { workflow, webhookPath } = await deployTriggerWorkflow(
		{ baseUrl: stack.lbUrl, api: stack.api },
		{
			name: `queue: ${name}`,
			webhookId: randomUUID(),
			parameters: {
				event: 'any',
				...parameters,
				options: { duplicateMemorySize: MEMORY_SIZE, ...(parameters.options as Json) },
			},
			webhookCredential: credential,
		},
	);
	return {
		name,
		secret,
		legacySecret,
		workflowId: workflow.id,
		baseUrl: stack.lbUrl,
		path: `/webhook/${webhookPath}`,
		answers: {},
		deliveries: 0,
	};
}

/** One unique event: its body (fixed, so every copy has the same content) and its marker (the case id). */
interface Event {
	marker: string;
	messageId: string;
	body: string;
}

function events(scenario: Scenario): Event[] {
	const run = randomUUID().slice(0, 8);
	return Array.from({ length: EVENTS }, (_, index) => {
		const marker = `${scenario.name.replace(/\W+/g, '-')}-${run}-${index}`;
		const messageId = `msg-${marker}`;
		return { marker, messageId, body: eventBody(messageId, marker, 'case') };
	});
}

/** POSTs one delivery through the load balancer and records how it was answered. */
async function deliver(
	scenario: Scenario,
	body: string,
	headers: Record<string, string>,
): Promise<number> {
	const base = WITHOUT_LB
		? stack.webhooks[turn++ % stack.webhooks.length].baseUrl
		: scenario.baseUrl;
	const answer = await httpRequest(`${base}${scenario.path}`, {
		method: 'POST',
		body,
		headers,
		timeoutMs: 30_000,
	});
	const json = answer.json as Json | undefined;
	const outcome =
		answer.status === 200 && json && typeof json === 'object' && json.workflowStarted === false
			? `200 ${json.reason}`
			: String(answer.status);
	scenario.answers[outcome] = (scenario.answers[outcome] ?? 0) + 1;
	scenario.deliveries++;
	return answer.status;
}

/** The standard delivery of `event` (a retry keeps the webhook-id and is signed afresh). */
const standard = (scenario: Scenario, event: Event) =>
	deliver(scenario, event.body, signedHeaders(scenario.secret, event.messageId, event.body));

/** `event` from both delivery systems at once: the legacy system's copy is the same event in a message of its own. */
function standardAndLegacy(scenario: Scenario, event: Event): Promise<number[]> {
	const legacyBody = JSON.stringify({
		...JSON.parse(event.body),
		messageId: `legacy-${event.messageId}`,
	});
	return Promise.all([
		standard(scenario, event),
		deliver(scenario, legacyBody, legacySignedHeaders(scenario.legacySecret, legacyBody)),
	]);
}

const finished = (execution: Execution) =>
	!['new', 'running', 'waiting'].includes(execution.status);

/** Waits until the workflow has no unfinished execution and their count stayed the same for 3 s; returns them with data. */
async function settledExecutions(workflowId: string): Promise<Execution[]> {
	let last = -1;
	let stableSince = Date.now();
	let seen = '';
	await waitFor(
		async () => {
			const all = await stack.api.listExecutions({
				workflowId,
				includeData: false,
				limit: 100_000,
			});
			const unfinished = all.filter((execution) => !finished(execution));
			seen = `${all.length} executions, ${unfinished.length} unfinished`;
			if (all.length !== last || unfinished.length > 0) {
				last = all.length;
				stableSince = Date.now();
				return undefined;
			}
			return Date.now() - stableSince >= 3000 ? true : undefined;
		},
		{
			timeoutMs: 180_000,
			intervalMs: 500,
			describe: () => `executions of workflow ${workflowId} did not settle (${seen})`,
		},
	);
	return await stack.api.listExecutions({ workflowId, includeData: true, limit: 100_000 });
}

/** Requests each webhook process answered through the load balancer so far, by its own account. */
const servedCounts = (balancer = stack.balancer) => balancer.served();

/**
 * Runs `send`, then asserts from n8n's executions that each of `unique` ran exactly once (and nothing else
 * ran), with every execution successful.
 */
async function expectExactlyOnce(
	scenario: Scenario,
	unique: Event[],
	send: () => Promise<void>,
): Promise<void> {
	const before = await servedCounts();
	await send();
	const after = await servedCounts();
	const executions = await settledExecutions(scenario.workflowId);
	const ran = new Map<string, number>();
	for (const execution of executions) {
		const [item] = nodeOutput(execution, TRIGGER_NAME) as Json[];
		const marker = String(item?.eventObject?.id);
		ran.set(marker, (ran.get(marker) ?? 0) + 1);
	}
	results.push({
		scenario: scenario.name,
		balancer: BALANCER_LABEL,
		unique: unique.length,
		deliveries: scenario.deliveries,
		executions: executions.length,
		answers: scenario.answers,
		servedBy: Object.fromEntries(WEBHOOK_SERVERS.map((name) => [name, after[name] - before[name]])),
	});
	expectOnceEach('executions', ran, unique);
	expectAllSucceeded(executions);
}

/** `counted` (per marker) holds each of `unique` exactly once and nothing else. */
function expectOnceEach(what: string, counted: Map<string, number>, unique: Event[]): void {
	const twice = [...counted]
		.filter(([, count]) => count > 1)
		.map(([marker, count]) => `${marker} x${count}`);
	const missing = unique.filter((event) => !counted.has(event.marker)).map((event) => event.marker);
	const strangers = [...counted.keys()].filter(
		(marker) => !unique.some((event) => event.marker === marker),
	);
	const total = [...counted.values()].reduce((sum, count) => sum + count, 0);
	expect({ [what]: total, twice, missing, strangers }).toEqual({
		[what]: unique.length,
		twice: [],
		missing: [],
		strangers: [],
	});
}

function expectAllSucceeded(executions: Execution[]): void {
	expect(
		executions
			.filter((execution) => execution.status !== 'success')
			.map((execution) => `${execution.id}:${execution.status}`),
	).toEqual([]);
}

const between = (low: number, high: number) => low + Math.random() * (high - low);

// ---------------------------------------------------------------------------------------------

describe(`queue mode through ${BALANCER_LABEL}: one execution per unique event`, () => {
	test('distinct events', async () => {
		const scenario = await deployScenario('distinct events');
		const unique = events(scenario);
		await expectExactlyOnce(scenario, unique, async () => {
			await runPool(unique, SENDERS, (event) => standard(scenario, event));
		});
		expect(scenario.answers).toEqual({ 200: EVENTS });
	});

	test('two copies with the same webhook-id, sent at once', async () => {
		const scenario = await deployScenario('two copies, same webhook-id, at once');
		const unique = events(scenario);
		await expectExactlyOnce(scenario, unique, async () => {
			await runPool(unique, SENDERS, (event) =>
				Promise.all([standard(scenario, event), standard(scenario, event)]),
			);
		});
		expect(scenario.answers).toEqual({ 200: EVENTS, '200 duplicate': EVENTS });
	});

	test('two copies with the same webhook-id, each signed at its own moment, sent at once (the "one to each process" pattern)', async () => {
		const scenario = await deployScenario(
			'two copies, same webhook-id, each signed afresh, at once',
		);
		const unique = events(scenario);
		await expectExactlyOnce(scenario, unique, async () => {
			await runPool(unique, SENDERS, async (event) => {
				const first = standard(scenario, event);
				await sleep(between(0, 5));
				await Promise.all([first, standard(scenario, event)]);
			});
		});
		expect(scenario.answers).toEqual({ 200: EVENTS, '200 duplicate': EVENTS });
	});

	test('same content under a new webhook-id, both delivery systems on, sent at once', async () => {
		const scenario = await deployScenario(
			'same content, new webhook-id (standard + legacy), at once',
			{ signatureScheme: 'both' },
		);
		const unique = events(scenario);
		await expectExactlyOnce(scenario, unique, async () => {
			await runPool(unique, SENDERS, (event) => standardAndLegacy(scenario, event));
		});
		expect(scenario.answers).toEqual({ 200: EVENTS, '200 duplicate': EVENTS });
	});

	test('the second copy later: 2-5 s, 0.3-1 s, and after the last delivery before a 2 s pause (three workflows at the same time)', async () => {
		const late = async (name: string, low: number, high: number) => {
			const scenario = await deployScenario(name);
			const unique = events(scenario);
			await expectExactlyOnce(scenario, unique, async () => {
				const copies: Array<Promise<number>> = [];
				await runPool(unique, SENDERS, async (event) => {
					await standard(scenario, event);
					copies.push(sleep(between(low, high)).then(() => standard(scenario, event)));
				});
				await Promise.all(copies);
			});
			expect(scenario.answers).toEqual({ 200: EVENTS, '200 duplicate': EVENTS });
		};
		const afterPause = async () => {
			const scenario = await deployScenario('copies after a 2 s pause, bursts of 10');
			const unique = events(scenario);
			await expectExactlyOnce(scenario, unique, async () => {
				for (let start = 0; start < unique.length; start += 10) {
					const burst = unique.slice(start, start + 10);
					// One after the other: the last one is the last delivery before the pause.
					for (const event of burst) await standard(scenario, event);
					await sleep(2000);
					await Promise.all(burst.map((event) => standard(scenario, event)));
				}
			});
			expect(scenario.answers).toEqual({ 200: EVENTS, '200 duplicate': EVENTS });
		};
		// All three to the end before failing: one still sending would reach into the next test's counts.
		const outcomes = await Promise.allSettled([
			late('second copy 2-5 s later', 2000, 5000),
			late('second copy 0.3-1 s later', 300, 1000),
			afterPause(),
		]);
		for (const outcome of outcomes) if (outcome.status === 'rejected') throw outcome.reason;
	}, 300_000);

	test("the webhook process that owns the workflow's path killed and started again between two copies", async () => {
		const scenario = await deployScenario('owner killed and restarted between copies');
		const unique = events(scenario);
		const served: Array<Record<string, number>> = [];
		const servedSince = async (before: Record<string, number>) => {
			const now = await servedCounts();
			served.push(
				Object.fromEntries(WEBHOOK_SERVERS.map((name) => [name, now[name] - before[name]])),
			);
			return now;
		};
		let owner = -1;
		await expectExactlyOnce(scenario, unique, async () => {
			const start = await servedCounts();
			await runPool(unique, SENDERS, (event) => standard(scenario, event));
			const afterOriginals = await servedSince(start);
			owner = WEBHOOK_SERVERS.findIndex((name) => served[0][name] === EVENTS);
			expect(owner).toBeGreaterThanOrEqual(0);
			// Killed without warning (SIGKILL): its memory is gone; the other process takes the path over.
			await stack.stopWebhook(owner, { crash: true });
			const half = unique.slice(0, EVENTS / 2);
			await runPool(half, SENDERS, (event) => standard(scenario, event));
			const afterDown = await servedSince(afterOriginals);
			// Back again: the path returns to it, with nothing but the saved copy to know the events by.
			await stack.startWebhook(owner);
			await runPool(unique, SENDERS, (event) => standard(scenario, event));
			await servedSince(afterDown);
		});
		results[results.length - 1].phases = served;
		expect(scenario.answers).toEqual({ 200: EVENTS, '200 duplicate': EVENTS + EVENTS / 2 });
		// The originals went to the owner, the copies sent while it was down to the other process, and the copies
		// sent after its restart to the owner again (nginx sends the first of them elsewhere while its first request
		// to the returning process is on its way: docs/queue-mode.md).
		const other = WEBHOOK_SERVERS[1 - owner];
		const ownerName = WEBHOOK_SERVERS[owner];
		expect(served.slice(0, 2)).toEqual([
			{ [ownerName]: EVENTS, [other]: 0 },
			{ [ownerName]: 0, [other]: EVENTS / 2 },
		]);
		expect(served[2][ownerName]).toBeGreaterThan(0);
		expect(served[2][ownerName] + served[2][other]).toBe(EVENTS);
	}, 240_000);

	test('bad signatures: every one refused with 401, nothing runs', async () => {
		const scenario = await deployScenario('bad signatures');
		const unique = events(scenario);
		const other = generateWebhookSecret();
		const bad: Array<(event: Event) => Record<string, string>> = [
			(event) => signedHeaders(other, event.messageId, event.body),
			(event) => ({
				...signedHeaders(scenario.secret, event.messageId, event.body),
				'webhook-id': `other-${event.messageId}`,
			}),
			(event) => signedHeaders(scenario.secret, event.messageId, event.body, nowSeconds() - 3600),
			(event) => ({
				...signedHeaders(scenario.secret, event.messageId, event.body),
				'webhook-signature': 'v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
			}),
			(event) => legacySignedHeaders(scenario.legacySecret, event.body),
		];
		await expectExactlyOnce(scenario, [], async () => {
			await runPool(unique, SENDERS, (event, index) =>
				deliver(scenario, event.body, bad[index % bad.length](event)),
			);
		});
		expect(scenario.answers).toEqual({ 401: EVENTS });
	});
});

// ---------------------------------------------------------------------------------------------
// The watchdog in queue mode: it runs on the main process and hands what it finds to the webhook URL
// ---------------------------------------------------------------------------------------------

(WITHOUT_LB ? describe.skip : describe)(
	`the watchdog in queue mode through ${BALANCER_LABEL}, handing found changes to the webhook URL`,
	() => {
		let sandbox: Sandbox;
		beforeAll(async () => {
			sandbox = await startTestSandbox();
		});
		afterAll(async () => {
			await sandbox?.admin.idle();
			await sandbox?.stop();
		});

		const WATCHED_CASES = 6;
		/** An identity check, and a drug screening that walks four pending statuses before its result. */
		const SERVICES = ['service-idv-id', 'service-drug-10-panel'];

		// What the two tests below share, in order.
		let workflowId: string;
		let subscriptionId: string;
		const published = () => publishedEvents(sandbox, subscriptionId);
		/**
		 * The change each execution ran, once all have finished. Failed watchdog runs of the watchdog (saved as failed
		 * executions, with no item) are left out here and checked by expectEachChangeOnce.
		 */
		const ranKeys = async () => {
			const all = await stack.api.listExecutions({ workflowId, includeData: true, limit: 100_000 });
			if (!all.every(finished)) return undefined;
			return all.flatMap((execution) => {
				const [item] = nodeOutput(execution, TRIGGER_NAME) as Json[];
				if (!item) return [];
				return [
					{
						key: eventKeyOf({ event: item.event, eventObject: item.eventObject }),
						source: String(item.source),
					},
				];
			});
		};
		/** Waits until every event published so far has run (delivered or found). */
		const allPublishedRan = async () => {
			await sandbox.admin.idle();
			const expected = published().length;
			await waitFor(
				async () => {
					const ran = await ranKeys();
					return ran && ran.length >= expected ? true : undefined;
				},
				{
					timeoutMs: 120_000,
					intervalMs: 500,
					describe: async () =>
						`${(await ranKeys())?.length ?? 'unfinished'} executions for ${expected} events`,
				},
			);
		};
		/** Every published status change ran exactly once, and nothing else ran; reported in the table. */
		const expectEachChangeOnce = async (scenario: string) => {
			const events = published();
			const executions = await settledExecutions(workflowId);
			const ran = (await ranKeys())!;
			const runs = new Map<string, number>();
			for (const { key } of ran) runs.set(key, (runs.get(key) ?? 0) + 1);
			const missed = events.filter(({ delivered }) => !delivered);
			results.push({
				scenario: `${scenario} (${missed.length} of ${events.length} events never delivered)`,
				balancer: BALANCER_LABEL,
				unique: events.length,
				deliveries: events.length - missed.length,
				executions: executions.length,
				answers: {
					webhook: ran.filter(({ source }) => source === 'webhook').length,
					reconciliation: ran.filter(({ source }) => source === 'reconciliation').length,
				},
				servedBy: {},
			});
			expect(missed.length).toBeGreaterThan(0);
			expect({
				twice: [...runs].filter(([, count]) => count > 1).map(([key]) => key),
				missing: events.filter(({ key }) => !runs.has(key)).map(({ key }) => key),
				strangers: [...runs.keys()].filter((key) => !events.some((event) => event.key === key)),
			}).toEqual({ twice: [], missing: [], strangers: [] });
			// A watchdog run whose hand-off no webhook process took (n8n starting: the main process is up before them)
			// is saved as a failed execution; the next watchdog run hands the change over again.
			const handOffFailed = (execution: Execution) =>
				/^The watchdog could not hand \d+ change\(s\) to the webhook URL/.test(
					executionError(execution) ?? '',
				);
			expectAllSucceeded(executions.filter((execution) => !handOffFailed(execution)));
			return executions.filter(handOffFailed);
		};
		const newCases = async (count: number) => {
			const token = await tokenFor(sandbox);
			const ids: string[] = [];
			for (let index = 0; index < count; index++) {
				const created = await createCase(sandbox, token, caseBody(orderOf(...SERVICES)));
				ids.push(created.id);
			}
			return ids;
		};

		test('20% of the deliveries never arrive, cases walk their whole lifecycle: every status change runs once', async () => {
			const n8n = { baseUrl: stack.lbUrl, api: stack.api };
			const { webhookId, subscription, webhookCredential } = await lossySubscription(n8n, sandbox, {
				name: 'queue: watchdog',
				dropRate: 0.2,
				seed: 'queue-mode-watchdog',
			});
			subscriptionId = subscription.id;
			const { workflow } = await deployTriggerWorkflow(n8n, {
				name: 'queue: watchdog handing off',
				webhookId,
				parameters: {
					event: 'any',
					reconcile: true,
					reconcileEvery: '10s',
					reconcileHandoff: 'webhook',
					options: { duplicateMemorySize: MEMORY_SIZE },
				},
				webhookCredential,
				apiCredential: await createApiCredential(stack.api, sandbox, {
					name: 'queue: watchdog API',
				}),
				sandbox,
			});
			workflowId = workflow.id;

			const caseIds = await newCases(WATCHED_CASES);
			await allPublishedRan();
			for (
				let steps = 0;
				caseIds.some((caseId) => sandbox.admin.getCase(caseId).caseStatus !== 'Complete');
				steps++
			) {
				expect(steps).toBeLessThan(12);
				await sandbox.admin.advanceClock(300);
				await allPublishedRan();
			}
			await expectEachChangeOnce(
				`watchdog handing off, ${WATCHED_CASES} cases, 20% of deliveries dropped`,
			);
		}, 600_000);

		test('every n8n process down while cases are created: after the restart, the first watchdog run runs each once, and the retries that follow are duplicates', async () => {
			const before = new Set(published().map(({ key }) => key));
			await stack.stopN8n();
			// Created while nothing of n8n runs: every delivery attempt fails. One change each: a watchdog run sees the
			// newest state of a case, so two changes of one case while down would run as one.
			await newCases(3);
			await sandbox.admin.idle();
			const madeWhileDown = published().filter(({ key }) => !before.has(key));
			expect(madeWhileDown).toHaveLength(3);
			expect(madeWhileDown.filter(({ delivered }) => delivered)).toEqual([]);

			await stack.startN8n();
			await allPublishedRan();
			const ran = (await ranKeys())!;
			expect(
				madeWhileDown.map(({ key }) =>
					ran.filter((run) => run.key === key).map(({ source }) => source),
				),
			).toEqual([['reconciliation'], ['reconciliation'], ['reconciliation']]);
			// The provider's retries of those events, and the cases' next changes.
			await sandbox.admin.advanceClock(300);
			await allPublishedRan();
			const failedHandOffs = await expectEachChangeOnce(
				'watchdog handing off, every n8n process down while 3 cases were created',
			);
			process.stderr.write(
				`[queue] after the restart: ${failedHandOffs.length} watchdog run(s) whose hand-off no webhook process took yet\n`,
			);
		}, 600_000);
	},
);

// ---------------------------------------------------------------------------------------------
// Round robin: the gate on eventKey keeps the side effects to one per event
// ---------------------------------------------------------------------------------------------

const GATE_TABLE_SQL =
	'CREATE TABLE bgc_event_gate (event_key text PRIMARY KEY, claimed_at timestamptz NOT NULL DEFAULT now());';
const EXAMPLE_INBOX = 'http://127.0.0.1:7450/__sandbox/inbox/ats';

type Gate = 'postgres' | 'redis';

(WITHOUT_LB ? describe.skip : describe)(
	'queue mode through a round-robin balancer, with the gate users import: one side effect per unique event',
	() => {
		let sandbox: Sandbox;
		const gateCredentials: Partial<Record<Gate, Credential>> = {};

		beforeAll(async () => {
			sandbox = await startTestSandbox();
			stack.sql(GATE_TABLE_SQL);
			const postgres = await stack.api.createCredential({
				name: 'Postgres',
				type: 'postgres',
				data: {
					host: '127.0.0.1',
					port: stack.postgresPort,
					database: 'n8n',
					user: 'postgres',
					password: '',
					maxConnections: 100,
					allowUnauthorizedCerts: false,
					ssl: 'disable',
					sshTunnel: false,
				},
			});
			const redis = await stack.api.createCredential({
				name: 'Redis',
				type: 'redis',
				data: { host: '127.0.0.1', port: stack.redisPort, password: '', database: 0, ssl: false },
			});
			gateCredentials.postgres = postgres;
			gateCredentials.redis = redis;
		});

		afterAll(async () => {
			await sandbox?.stop();
		});

		/** The workflow of docs/queue-mode/gate-<gate>.json as users import it, its side effect posting to `inbox`. */
		async function deployGated(name: string, gate: Gate, parameters: Json = {}): Promise<Scenario> {
			const roundRobin = stack.roundRobin as NonNullable<QueueStack['roundRobin']>;
			const { secret, legacySecret, credential } = await webhookCredential(`round robin: ${name}`);
			const inbox = name.replace(/\W+/g, '-');
			const file = path.resolve(__dirname, '..', '..', 'docs', 'queue-mode', `gate-${gate}.json`);
			const example = JSON.parse(
				fs
					.readFileSync(file, 'utf8')
					.split(EXAMPLE_INBOX)
					.join(`${sandbox.url}/__sandbox/inbox/${inbox}`),
			) as Json;
			const webhookId = randomUUID();
			for (const node of example.nodes as Json[]) {
				if (node.name === TRIGGER_NAME) {
					node.webhookId = webhookId;
					node.parameters = {
						...node.parameters,
						event: 'any',
						...parameters,
						options: { duplicateMemorySize: MEMORY_SIZE },
					};
					node.credentials = { [WEBHOOK_CREDENTIAL]: credentialRef(credential) };
				} else if (node.credentials) {
					node.credentials = { [gate]: credentialRef(gateCredentials[gate] as Credential) };
				}
			}
			const workflow = await stack.api.createWorkflow({
				name: `round robin: ${name}`,
				nodes: example.nodes,
				connections: example.connections,
				settings: example.settings,
			});
			await stack.api.activateWorkflow(workflow.id);
			const webhookPath = `${webhookId}/webhook`;
			// Both processes must have it: each answers an unsigned POST 401 once it does.
			for (const webhook of stack.webhooks) {
				const probe = await waitForWebhook(webhook.baseUrl, webhookPath, {
					probe: { method: 'POST', body: {} },
				});
				if (probe?.status !== 401)
					throw new Error(`${webhook.baseUrl} answered ${probe?.status} to an unsigned POST`);
			}
			return {
				name,
				secret,
				legacySecret,
				workflowId: workflow.id,
				baseUrl: roundRobin.url,
				path: `/webhook/${webhookPath}`,
				answers: {},
				deliveries: 0,
				inbox,
			};
		}

		/**
		 * Runs `send`, then asserts that each of `unique` reached the inbox exactly once (and nothing else did),
		 * with every execution successful; executions are counted, not asserted (copies at two processes may
		 * both run, and the gate stops the second).
		 */
		async function expectOneSideEffectEach(
			scenario: Scenario,
			unique: Event[],
			send: () => Promise<void>,
		): Promise<void> {
			const roundRobin = stack.roundRobin as NonNullable<QueueStack['roundRobin']>;
			const before = await servedCounts(roundRobin);
			await send();
			const after = await servedCounts(roundRobin);
			const executions = await settledExecutions(scenario.workflowId);
			const received = sandbox.admin.inbox(scenario.inbox);
			const effects = new Map<string, number>();
			for (const entry of received) {
				const caseId = String((entry.body as Json).caseId);
				effects.set(caseId, (effects.get(caseId) ?? 0) + 1);
			}
			results.push({
				scenario: scenario.name,
				balancer: roundRobin.label,
				unique: unique.length,
				deliveries: scenario.deliveries,
				executions: executions.length,
				sideEffects: received.length,
				answers: scenario.answers,
				servedBy: Object.fromEntries(
					WEBHOOK_SERVERS.map((name) => [name, after[name] - before[name]]),
				),
			});
			expectOnceEach('sideEffects', effects, unique);
			expectAllSucceeded(executions);
			// Both processes took deliveries: the balancer did spread them.
			expect(Object.values(results[results.length - 1].servedBy).every((n) => n > 0)).toBe(true);
		}

		test('two copies with the same webhook-id, sent at once (Postgres gate)', async () => {
			const scenario = await deployGated('two copies at once, postgres', 'postgres');
			const unique = events(scenario);
			await expectOneSideEffectEach(scenario, unique, async () => {
				await runPool(unique, SENDERS, (event) =>
					Promise.all([standard(scenario, event), standard(scenario, event)]),
				);
			});
			expect(scenario.answers[200]).toBeGreaterThanOrEqual(EVENTS);
		});

		test('same content under a new webhook-id, both delivery systems on, sent at once (Postgres gate)', async () => {
			const scenario = await deployGated('standard + legacy at once, postgres', 'postgres', {
				signatureScheme: 'both',
			});
			const unique = events(scenario);
			await expectOneSideEffectEach(scenario, unique, async () => {
				await runPool(unique, SENDERS, (event) => standardAndLegacy(scenario, event));
			});
		});

		test('the second copy 0.3-1 s later (Redis gate)', async () => {
			const scenario = await deployGated('second copy 0.3-1 s later, redis', 'redis');
			const unique = events(scenario);
			await expectOneSideEffectEach(scenario, unique, async () => {
				const copies: Array<Promise<number>> = [];
				await runPool(unique, SENDERS, async (event) => {
					await standard(scenario, event);
					copies.push(sleep(between(300, 1000)).then(() => standard(scenario, event)));
				});
				await Promise.all(copies);
			});
		});

		test('a webhook process killed and started again between two copies (Postgres gate)', async () => {
			const scenario = await deployGated(
				'process killed and restarted between copies, postgres',
				'postgres',
			);
			const unique = events(scenario);
			await expectOneSideEffectEach(scenario, unique, async () => {
				await runPool(unique, SENDERS, (event) => standard(scenario, event));
				await stack.stopWebhook(0, { crash: true });
				await runPool(unique.slice(0, EVENTS / 2), SENDERS, (event) => standard(scenario, event));
				await stack.startWebhook(0);
				await runPool(unique, SENDERS, (event) => standard(scenario, event));
			});
		}, 240_000);
	},
);
