/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- repository tooling: runs in Node.js, never inside n8n */
/**
 * Webhook throughput and latency: signed Standard Webhooks deliveries from 1, 10 and 50 concurrent senders
 * into the Background Check Trigger (active, production URL) and into n8n's plain Webhook node, in the same
 * n8n on this machine. Every target gets the same bytes (a case.statuschange body and its three signature
 * headers), a new connection per request as the sandbox's sender makes, and answers the same way: 200 with
 * an empty body once the execution is started (trigger: responseMode onReceived / noData; Webhook node:
 * Respond Immediately with No Response Body). The trigger verifies the signature, checks the event type and
 * keeps its duplicate memory (in workflow static data); the plain Webhook node checks nothing.
 *
 * First, without n8n: the API calls one run of the trigger's watchdog makes for 500 cases, of which 10 changed.
 *
 * Targets: the trigger as added (Duplicate Memory Size at its default, 100), the plain Webhook node, the trigger
 * with Ignore Older Events on (its saved copy also holds the newest modStamps), and a bare community trigger that
 * checks and saves nothing (bench/fixtures/bare-trigger, loaded as a custom extension): what n8n costs any trigger
 * that is not its own Webhook node. BENCH_BARE_VARIANTS=1 (or some of credential,save,execute) adds the bare
 * trigger reading the webhook credential per request, changing its static data per request (n8n saves it before
 * the answer), and with a first step of its own (`execute`, as the Background Check Trigger's).
 * BENCH_TRIGGER_VERSION_1=1 adds the trigger at typeVersion 1 (n8n evaluates a legacy binaryData expression for
 * every request to a version-1 webhook node; the trigger's 1.1 exists to skip it).
 * Each first gets BENCH_WARM_UP deliveries (default 1000, more than fill the saved copy, as on a trigger
 * that has been running for a while). Then a fixed number of requests per level (BENCH_REQUESTS_1/_10/_50, default 200/600/1000),
 * BENCH_ROUNDS rounds (default 5), the targets taking turns; figures are medians over the rounds. Every
 * delivery has its own webhook-id and case, so none is a duplicate. Between batches the bench waits until
 * n8n has no running execution; at the end it checks that each target ran one execution per delivery.
 *
 * Then the same comparison in queue mode (test/harness/n8n/queue.ts, the queue-mode suite's stack: 1 main, 2 webhook
 * processes, 2 workers), once behind each load balancer (BENCH_QUEUE_BALANCERS, default
 * haproxy,nginx,caddy,round-robin, each with its file from docs/queue-mode/, a new stack each), deliveries through it
 * (every one unique: behind round robin the trigger runs each once too), at 10
 * and 50 senders, BENCH_QUEUE_ROUNDS rounds (default 3; 0 leaves queue mode out), warm-up BENCH_QUEUE_WARM_UP
 * (200), and the ratios side by side. BENCH_QUEUE_ONLY=1 leaves the single-process part out.
 *
 *   npm run bench -- webhook-throughput
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';

import type { IDataObject } from 'n8n-workflow';

import { generateWebhookSecret, signStandardWebhook } from '../nodes/shared/webhookSignature';
import { waitForWebhook, type Credential, type N8nApi } from '../test/harness/n8n/publicApi';
import {
	LOAD_BALANCERS,
	ROUND_ROBIN,
	loadBalancerLabel,
	type LoadBalancerName,
} from '../test/harness/n8n/loadBalancers';
import { WORKER_CONCURRENCY, startQueueStack } from '../test/harness/n8n/queue';
import {
	TRIGGER_NODE,
	TRIGGER_NODE_VERSION,
	WEBHOOK_CREDENTIAL,
	credentialRef,
} from '../test/harness/backgroundCheck';
import { benchTarball, startBenchN8n } from './lib/n8n';
import { reconciliationCosts } from './lib/reconciliation';
import {
	fmt,
	header,
	log,
	median,
	percentile,
	printTable,
	runMain,
	saveResult,
} from './lib/report';

const LEVELS = [1, 10, 50];
const REQUESTS: Record<number, number> = {
	1: Number(process.env.BENCH_REQUESTS_1 ?? 200),
	10: Number(process.env.BENCH_REQUESTS_10 ?? 600),
	50: Number(process.env.BENCH_REQUESTS_50 ?? 1000),
};
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/** Deliveries sent into each target before measuring: more than fill a trigger's saved copy (default size 100). */
const WARM_UP = Number(process.env.BENCH_WARM_UP ?? 1000);
/** Queue mode (BENCH_QUEUE_ROUNDS=0 leaves it out): fewer rounds and levels, the stack is five n8n processes on 2 cores. */
const QUEUE_ROUNDS = Number(process.env.BENCH_QUEUE_ROUNDS ?? 3);
const QUEUE_LEVELS = [10, 50];
const QUEUE_WARM_UP = Number(process.env.BENCH_QUEUE_WARM_UP ?? 200);
const BENCH_BALANCERS: readonly LoadBalancerName[] = [...LOAD_BALANCERS, ROUND_ROBIN];
const QUEUE_BALANCERS = (process.env.BENCH_QUEUE_BALANCERS || BENCH_BALANCERS.join(','))
	.split(',')
	.map((name) => name.trim()) as LoadBalancerName[];
for (const name of QUEUE_BALANCERS)
	if (!BENCH_BALANCERS.includes(name))
		throw new Error(
			`BENCH_QUEUE_BALANCERS names ${name}; the load balancers are: ${BENCH_BALANCERS.join(', ')}`,
		);
/** Only the queue-mode part (BENCH_QUEUE_ONLY=1). */
const QUEUE_ONLY = process.env.BENCH_QUEUE_ONLY === '1';
/** BENCH_BARE_VARIANTS: 1 (all) or some of credential,save,execute. */
const BARE_VARIANTS = new Set(
	process.env.BENCH_BARE_VARIANTS === '1'
		? ['credential', 'save', 'execute']
		: (process.env.BENCH_BARE_VARIANTS ?? '').split(',').map((name) => name.trim()),
);
/** BENCH_TRIGGER_VERSION_1=1 adds the trigger at typeVersion 1, which n8n treats as a legacy webhook node. */
const TRIGGER_VERSION_1 = process.env.BENCH_TRIGGER_VERSION_1 === '1';
const WEBHOOK_NODE_VERSION = 2.1;
const BARE_TRIGGER_DIR = path.join(__dirname, 'fixtures', 'bare-trigger');
const REQUEST_TIMEOUT_MS = 30_000;
const BARE_LABEL = 'bare community trigger (checks nothing)';

interface Target {
	label: string;
	workflowId: string;
	url: string;
	sent: number;
}

interface Delivery {
	body: Buffer;
	headers: Record<string, string>;
}

/** A case.statuschange delivery as the provider sends it, with its own message and case, signed now. */
function delivery(secret: string): Delivery {
	const messageId = `msg_${randomUUID()}`;
	const body = Buffer.from(
		JSON.stringify({
			messageId,
			event: 'case.statuschange',
			apiTrackingCode: 'HR-42',
			apiTrackingUser: 'ats-user-1',
			eventObject: {
				id: randomUUID(),
				groupProfileId: '4e0c2a8e-5b1f-4d3c-9a7e-2f6b1c8d3e01',
				caseStatus: 'Complete',
				caseStatusId: 'case-status-complete',
				secondaryStatus: null,
				secondaryCaseStatusId: null,
				modStamp: new Date().toISOString(),
			},
		}),
	);
	const timestamp = Math.floor(Date.now() / 1000);
	return {
		body,
		headers: {
			'content-type': 'application/json',
			'webhook-id': messageId,
			'webhook-timestamp': String(timestamp),
			'webhook-signature': signStandardWebhook(secret, messageId, timestamp, body),
		},
	};
}

/** One POST on a new connection; resolves with the status and the milliseconds to the end of the answer. */
function post(url: string, { body, headers }: Delivery): Promise<{ status: number; ms: number }> {
	return new Promise((resolve, reject) => {
		const started = process.hrtime.bigint();
		const request = http.request(
			url,
			{
				method: 'POST',
				agent: false,
				headers: { ...headers, 'content-length': String(body.length) },
				timeout: REQUEST_TIMEOUT_MS,
			},
			(response) => {
				response.resume();
				response.on('end', () =>
					resolve({
						status: response.statusCode ?? 0,
						ms: Number(process.hrtime.bigint() - started) / 1e6,
					}),
				);
				response.on('error', reject);
			},
		);
		request.on('timeout', () =>
			request.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)),
		);
		request.on('error', reject);
		request.end(body);
	});
}

interface Batch {
	requests: number;
	concurrency: number;
	wallMs: number;
	latenciesMs: number[];
	statuses: Record<number, number>;
	/** CPU time n8n spent on the batch (its answers and executions), per delivery; single process only. */
	cpuMsPerDelivery?: number;
}

/** /proc's clock ticks (USER_HZ): 100 on Linux. */
const CLOCK_TICKS_PER_SECOND = 100;

/** CPU time (user + system, ms) of every process of a process group now: n8n, its task runner, its supervisor. */
function processGroupCpuMs(group: number): number {
	let ticks = 0;
	for (const entry of readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		let stat: string;
		try {
			stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
		} catch {
			continue; // gone meanwhile
		}
		// After the command's closing parenthesis: state, ppid, pgrp, ... utime is the 12th field, stime the 13th.
		const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		if (Number(fields[2]) === group) ticks += Number(fields[11]) + Number(fields[12]);
	}
	return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
}

/** `deliveries.length` requests from `concurrency` senders, each sending its next one when answered. */
async function sendBatch(url: string, deliveries: Delivery[], concurrency: number): Promise<Batch> {
	const latenciesMs: number[] = [];
	const statuses: Record<number, number> = {};
	let next = 0;
	const started = process.hrtime.bigint();
	const sender = async () => {
		while (next < deliveries.length) {
			const answer = await post(url, deliveries[next++]);
			latenciesMs.push(answer.ms);
			statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
		}
	};
	await Promise.all(Array.from({ length: concurrency }, sender));
	return {
		requests: deliveries.length,
		concurrency,
		wallMs: Number(process.hrtime.bigint() - started) / 1e6,
		latenciesMs,
		statuses,
	};
}

/** Waits until n8n reports no running execution twice in a row (bounded). */
async function waitUntilIdle(api: N8nApi): Promise<void> {
	const deadline = Date.now() + 120_000;
	let quiet = 0;
	while (quiet < 2) {
		const running = await api.listExecutions({ status: 'running', includeData: false, limit: 1 });
		quiet = running.length === 0 ? quiet + 1 : 0;
		if (Date.now() > deadline) throw new Error('n8n still has running executions after 120 s');
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
}

async function deployTrigger(
	api: N8nApi,
	baseUrl: string,
	credential: Credential,
	label: string,
	options: IDataObject,
	typeVersion = TRIGGER_NODE_VERSION,
): Promise<Target> {
	const webhookId = randomUUID();
	const workflow = await api.createWorkflow({
		name: `bench: ${label}`,
		nodes: [
			{
				name: 'Background Check Trigger',
				type: TRIGGER_NODE,
				typeVersion,
				position: [0, 0],
				webhookId,
				parameters: { event: 'any', options },
				credentials: { [WEBHOOK_CREDENTIAL]: credentialRef(credential) },
			},
		],
		connections: {},
	});
	await api.activateWorkflow(workflow.id);
	const probe = await waitForWebhook(baseUrl, `${webhookId}/webhook`, {
		probe: { method: 'POST', body: {} },
	});
	if (probe?.status !== 401)
		throw new Error(`the trigger answered an unsigned POST with ${probe?.status}, not 401`);
	return {
		label,
		workflowId: workflow.id,
		url: `${baseUrl}/webhook/${webhookId}/webhook`,
		sent: 0,
	};
}

async function deployPlainWebhook(api: N8nApi, baseUrl: string): Promise<Target> {
	const path = `bench-plain-${randomUUID()}`;
	const label = `plain Webhook node v${WEBHOOK_NODE_VERSION}`;
	const workflow = await api.createWorkflow({
		name: `bench: ${label}`,
		nodes: [
			{
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: WEBHOOK_NODE_VERSION,
				position: [0, 0],
				webhookId: path,
				parameters: {
					httpMethod: 'POST',
					path,
					responseMode: 'onReceived',
					options: { noResponseBody: true },
				},
			},
		],
		connections: {},
	});
	await api.activateWorkflow(workflow.id);
	await waitForWebhook(baseUrl, path, { method: 'POST' });
	return { label, workflowId: workflow.id, url: `${baseUrl}/webhook/${path}`, sent: 0 };
}

async function main(): Promise<void> {
	const machine = header(
		'webhook-throughput',
		`Signed deliveries (same ~370-byte body and headers, new connection each, answered 200 at once) at ${LEVELS.join(', ')} concurrent senders ` +
			`(${LEVELS.map((level) => REQUESTS[level]).join(' / ')} requests), Background Check Trigger vs plain Webhook node in one n8n; ` +
			`median of ${ROUNDS} rounds, the targets taking turns. Each trigger's duplicate memory is full (warm-up of ${WARM_UP} deliveries).`,
	);
	const reconciliation: Record<number, Awaited<ReturnType<typeof reconciliationCosts>>> = {};
	for (const cases of [500, 10_000]) {
		reconciliation[cases] = await reconciliationCosts(cases);
		console.log(
			`watchdog (Reconcile Missed Events): one watchdog run over ${fmt(cases)} cases of the group, 2 services (2 types) each`,
		);
		printTable(
			[
				'watchdog run',
				'GET /case/list',
				'…/services',
				'…/data/{type}',
				'calls',
				'events found',
				'ms',
				'heap MB',
			],
			reconciliation[cases].rows.map((row) => [
				row.run,
				row.list,
				row.serviceReads,
				row.caseDataReads,
				row.list + row.serviceReads + row.caseDataReads,
				row.events,
				row.ms.toFixed(0),
				row.heapMb.toFixed(1),
			]),
		);
		console.log(
			`watchdog's saved record of the ${fmt(cases)} cases and ${fmt(cases * 2)} services: ${fmt(reconciliation[cases].savedBytes)} bytes`,
		);
	}

	const secret = generateWebhookSecret();
	let single: Measured | undefined;
	if (!QUEUE_ONLY) single = await singleProcess(secret);

	// Queue mode: the same comparison on the stack of the queue-mode suite, behind each load balancer.
	const queue: Partial<Record<LoadBalancerName, Measured>> = {};
	if (QUEUE_ROUNDS > 0) {
		for (const balancer of QUEUE_BALANCERS) {
			const stack = await startQueueStack({ tarball: await benchTarball(), log, balancer });
			try {
				queue[balancer] = await measure(stack.api, stack.lbUrl, secret, {
					levels: QUEUE_LEVELS,
					requests: REQUESTS,
					rounds: QUEUE_ROUNDS,
					warmUp: QUEUE_WARM_UP,
					ignoreOlder: false,
				});
			} finally {
				await stack.stop();
			}
			console.log(
				`\nqueue mode (1 main, 2 webhook processes behind ${loadBalancerLabel(balancer)} with docs/queue-mode/${path.basename(stack.balancer.configFile)}, 2 workers with concurrency ${WORKER_CONCURRENCY}; PostgreSQL, Redis):`,
			);
			report(queue[balancer]!);
		}
		console.log('side by side, req/s ratio trigger / plain Webhook node:');
		const ratioAt = (measured: Measured | undefined, level: number) =>
			measured?.ratios.find((row) => row.level === level && row.node === measured.triggerLabel);
		printTable(
			[
				'senders',
				'one n8n process',
				...QUEUE_BALANCERS.map((name) => `queue mode through ${loadBalancerLabel(name)}`),
			],
			(single ? LEVELS : QUEUE_LEVELS).map((level) => [
				level,
				single ? fmt(ratioAt(single, level)!.rps, 2) : '-',
				...QUEUE_BALANCERS.map((name) => {
					const inQueue = ratioAt(queue[name], level);
					return inQueue ? fmt(inQueue.rps, 2) : '-';
				}),
			]),
		);
	}
	saveResult('webhook-throughput', {
		machine,
		reconciliation,
		levels: LEVELS,
		requests: REQUESTS,
		rounds: ROUNDS,
		warmUp: WARM_UP,
		...(single ? { ...withoutBatches(single), batches: batchSummary(single.batches) } : {}),
		queueMode:
			Object.keys(queue).length > 0
				? {
						levels: QUEUE_LEVELS,
						rounds: QUEUE_ROUNDS,
						warmUp: QUEUE_WARM_UP,
						byLoadBalancer: Object.fromEntries(
							Object.entries(queue).map(([name, measured]) => [
								name,
								{ ...withoutBatches(measured), batches: batchSummary(measured.batches) },
							]),
						),
					}
				: undefined,
	});
}

/** The trigger against the plain Webhook node (and the variants) in one n8n process. */
async function singleProcess(secret: string): Promise<Measured> {
	const n8n = await startBenchN8n('webhook', { env: { N8N_CUSTOM_EXTENSIONS: BARE_TRIGGER_DIR } });
	let single: Measured;
	try {
		single = await measure(n8n.api, n8n.baseUrl, secret, {
			levels: LEVELS,
			requests: REQUESTS,
			rounds: ROUNDS,
			warmUp: WARM_UP,
			ignoreOlder: true,
			bare: true,
			processGroup: n8n.pid,
		});
	} finally {
		await n8n.stop();
	}
	report(single);
	const lowest = Math.min(
		...single.ratios.filter((row) => row.node === single.triggerLabel).map((row) => row.rps),
	);
	const worstP99 = Math.max(...single.rows.map((row) => row.p99));
	console.log(
		`target (trigger as added: req/s at least 0.95x the plain Webhook node's at every level; p99 far under the provider's 15 s): ` +
			`${lowest >= 0.95 ? 'met' : 'NOT met'} (lowest ratio ${fmt(lowest, 2)}; highest p99 ${fmt(worstP99 / 1000, 2)} s)`,
	);
	const bare = Math.min(
		...single.ratios
			.filter((row) => row.node.startsWith('bare community trigger'))
			.map((row) => row.rps),
	);
	console.log(
		`yardstick: the bare community trigger, which checks and saves nothing, is at ${fmt(bare, 2)}x or more of the plain Webhook node: ` +
			'what this n8n costs any trigger that is not its own Webhook node',
	);
	const toBare = LEVELS.map((level) => {
		const rpsOf = (node: string) =>
			single.rows.find((row) => row.level === level && row.node === node)!.rps;
		return rpsOf(single.triggerLabel) / rpsOf(BARE_LABEL);
	});
	console.log(
		`trigger as added / bare community trigger, req/s at ${LEVELS.join(' / ')} senders (medians of the same rounds): ` +
			`${toBare.map((ratio) => fmt(ratio, 2)).join(' / ')} (goal on n8n 2.41's defaults: at least 0.95)`,
	);
	return single;
}

interface Measured {
	triggerLabel: string;
	rows: Array<{
		level: number;
		requests: number;
		node: string;
		rps: number;
		p50: number;
		p99: number;
		max: number;
		/** n8n's CPU time per delivery, answer and execution (median over the rounds; single process). */
		cpuMs?: number;
	}>;
	ratios: Array<{
		level: number;
		node: string;
		rps: number;
		rpsMin: number;
		rpsMax: number;
		p50: number;
		p99: number;
	}>;
	executions: Record<string, Record<string, number>>;
	batches: Map<string, Batch[]>;
}

function withoutBatches(measured: Measured): Omit<Measured, 'batches'> {
	const rest: Partial<Measured> = { ...measured };
	delete rest.batches;
	return rest as Omit<Measured, 'batches'>;
}

function batchSummary(batches: Map<string, Batch[]>) {
	return Object.fromEntries(
		[...batches].map(([key, list]) => [
			key,
			list.map(({ latenciesMs, ...rest }) => ({
				...rest,
				p50: percentile(latenciesMs, 50),
				p99: percentile(latenciesMs, 99),
			})),
		]),
	);
}

/**
 * The trigger (and, with ignoreOlder, the trigger with Ignore Older Events) against the plain Webhook node in
 * the n8n whose public API is `api` and whose production webhooks are under `webhookBase`: warm-up, then
 * `rounds` rounds of every level, the targets taking turns; checks one successful execution per delivery.
 */
/** A workflow with the bench's bare community trigger (bench/fixtures/bare-trigger), reading `credential` if given. */
async function deployBareTrigger(
	api: N8nApi,
	baseUrl: string,
	variant: { credential?: Credential; saves?: boolean; executes?: boolean } = {},
): Promise<Target> {
	const { credential, saves, executes } = variant;
	const webhookId = randomUUID();
	const [type, label] = credential
		? ['bareCredTrigger', 'bare trigger + credential read']
		: saves
			? ['bareSaveTrigger', 'bare trigger + static data saved per request']
			: executes
				? ['bareExecuteTrigger', 'bare trigger + a first step of its own']
				: ['bareWebhookTrigger', BARE_LABEL];
	const workflow = await api.createWorkflow({
		name: `bench: ${label}`,
		nodes: [
			{
				name: 'Bare Webhook Trigger',
				type: `CUSTOM.${type}`,
				typeVersion: 1.1,
				position: [0, 0],
				webhookId,
				parameters: {},
				...(credential ? { credentials: { [WEBHOOK_CREDENTIAL]: credentialRef(credential) } } : {}),
			},
		],
		connections: {},
	});
	await api.activateWorkflow(workflow.id);
	await waitForWebhook(baseUrl, `${webhookId}/webhook`, { method: 'POST' });
	return {
		label,
		workflowId: workflow.id,
		url: `${baseUrl}/webhook/${webhookId}/webhook`,
		sent: 0,
	};
}

async function measure(
	api: N8nApi,
	webhookBase: string,
	secret: string,
	opts: {
		levels: number[];
		requests: Record<number, number>;
		rounds: number;
		warmUp: number;
		ignoreOlder: boolean;
		bare?: boolean;
		/** The n8n process group, to measure its CPU time per delivery (single process). */
		processGroup?: number;
	},
): Promise<Measured> {
	const credential = await api.createCredential({
		name: 'bench webhook secret',
		type: WEBHOOK_CREDENTIAL,
		data: { signingSecret: secret },
	});
	const plain = await deployPlainWebhook(api, webhookBase);
	const triggers = [
		await deployTrigger(api, webhookBase, credential, 'Background Check Trigger', {}),
	];
	if (opts.ignoreOlder)
		triggers.push(
			await deployTrigger(
				api,
				webhookBase,
				credential,
				'Background Check Trigger, Ignore Older Events',
				{ dropOutOfOrder: true },
			),
		);
	if (TRIGGER_VERSION_1)
		triggers.push(
			await deployTrigger(api, webhookBase, credential, 'Background Check Trigger v1', {}, 1),
		);
	if (opts.bare) {
		triggers.push(await deployBareTrigger(api, webhookBase));
		if (BARE_VARIANTS.has('credential'))
			triggers.push(await deployBareTrigger(api, webhookBase, { credential }));
		if (BARE_VARIANTS.has('save'))
			triggers.push(await deployBareTrigger(api, webhookBase, { saves: true }));
		if (BARE_VARIANTS.has('execute'))
			triggers.push(await deployBareTrigger(api, webhookBase, { executes: true }));
	}
	const targets = [triggers[0], plain, ...triggers.slice(1)];
	const send = async (target: Target, count: number, concurrency: number) => {
		const deliveries = Array.from({ length: count }, () => delivery(secret));
		const cpuBefore = opts.processGroup ? processGroupCpuMs(opts.processGroup) : 0;
		const batch = await sendBatch(target.url, deliveries, concurrency);
		target.sent += batch.statuses[200] ?? 0;
		await waitUntilIdle(api);
		if (opts.processGroup)
			batch.cpuMsPerDelivery = (processGroupCpuMs(opts.processGroup) - cpuBefore) / count;
		if ((batch.statuses[200] ?? 0) !== count)
			throw new Error(
				`${target.label}: answers ${JSON.stringify(batch.statuses)} for ${count} deliveries`,
			);
		return batch;
	};

	log(
		`warm-up: ${opts.warmUp} deliveries at 10 senders into each target (fills the duplicate memory; not counted)`,
	);
	for (const target of targets) if (opts.warmUp > 0) await send(target, opts.warmUp, 10);

	const batches = new Map<string, Batch[]>();
	for (let round = 0; round < opts.rounds; round++) {
		for (const level of opts.levels) {
			const order = round % 2 === 0 ? targets : [...targets].reverse();
			for (const target of order) {
				const batch = await send(target, opts.requests[level], level);
				const key = `${target.label}@${level}`;
				batches.set(key, [...(batches.get(key) ?? []), batch]);
				log(
					`round ${round + 1}/${opts.rounds}, ${level} senders, ${target.label}: ${fmt((batch.requests / batch.wallMs) * 1000, 1)} req/s, ` +
						`p50 ${fmt(percentile(batch.latenciesMs, 50), 1)} ms, p99 ${fmt(percentile(batch.latenciesMs, 99), 1)} ms`,
				);
			}
		}
	}

	// Exactly one execution per accepted delivery, none failed, in each workflow. In queue mode an execution
	// can still be finishing on a worker when the last batch is answered: wait until every one has finished.
	await waitUntilIdle(api);
	const executions: Record<string, Record<string, number>> = {};
	for (const target of targets) {
		const list = await api.listExecutions({
			workflowId: target.workflowId,
			includeData: false,
			limit: target.sent + 100,
		});
		executions[target.label] = {};
		for (const execution of list)
			executions[target.label][execution.status] =
				(executions[target.label][execution.status] ?? 0) + 1;
		if (list.length !== target.sent || executions[target.label].success !== target.sent) {
			throw new Error(
				`${target.label}: ${target.sent} deliveries accepted, executions ${JSON.stringify(executions[target.label])}`,
			);
		}
	}

	const figures = (target: Target, level: number) => {
		const list = batches.get(`${target.label}@${level}`)!;
		return {
			rps: median(list.map((batch) => (batch.requests / batch.wallMs) * 1000)),
			p50: median(list.map((batch) => percentile(batch.latenciesMs, 50))),
			p99: median(list.map((batch) => percentile(batch.latenciesMs, 99))),
			max: Math.max(...list.map((batch) => Math.max(...batch.latenciesMs))),
			cpuMs: opts.processGroup
				? median(list.map((batch) => batch.cpuMsPerDelivery ?? Number.NaN))
				: undefined,
		};
	};
	const rows = opts.levels.flatMap((level) =>
		targets.map((target) => ({
			level,
			requests: opts.requests[level],
			node: target.label,
			...figures(target, level),
		})),
	);
	// Ratios are taken per round, between batches sent one right after the other, and their median is
	// reported: the shared machine's speed drifts between rounds, which a ratio of medians would mix in.
	const ratios = opts.levels.flatMap((level) =>
		triggers.map((trigger) => {
			const ours = batches.get(`${trigger.label}@${level}`)!;
			const theirs = batches.get(`${plain.label}@${level}`)!;
			const perRound = ours.map((batch, round) => {
				const other = theirs[round];
				return {
					rps: batch.requests / batch.wallMs / (other.requests / other.wallMs),
					p50: percentile(batch.latenciesMs, 50) / percentile(other.latenciesMs, 50),
					p99: percentile(batch.latenciesMs, 99) / percentile(other.latenciesMs, 99),
				};
			});
			const rpsRatios = perRound.map((r) => r.rps);
			return {
				level,
				node: trigger.label,
				rps: median(rpsRatios),
				rpsMin: Math.min(...rpsRatios),
				rpsMax: Math.max(...rpsRatios),
				p50: median(perRound.map((r) => r.p50)),
				p99: median(perRound.map((r) => r.p99)),
			};
		}),
	);
	return { triggerLabel: triggers[0].label, rows, ratios, executions, batches };
}

function report(measured: Measured): void {
	printTable(
		[
			'senders',
			'requests',
			'node',
			'req/s',
			'p50 (ms)',
			'p99 (ms)',
			'max (ms)',
			'n8n CPU ms / delivery',
		],
		measured.rows.map((row) => [
			row.level,
			row.requests,
			row.node,
			fmt(row.rps, 1),
			fmt(row.p50, 1),
			fmt(row.p99, 1),
			fmt(row.max, 0),
			row.cpuMs === undefined ? '-' : fmt(row.cpuMs, 1),
		]),
	);
	printTable(
		[
			'senders',
			'node',
			'req/s ratio to plain Webhook',
			'min-max over rounds',
			'p50 ratio',
			'p99 ratio',
		],
		measured.ratios.map((row) => [
			row.level,
			row.node,
			fmt(row.rps, 2),
			`${fmt(row.rpsMin, 2)}-${fmt(row.rpsMax, 2)}`,
			fmt(row.p50, 2),
			fmt(row.p99, 2),
		]),
	);
	console.log(
		'ratios: median over the rounds of (trigger / plain Webhook node) in the same round, at the same level',
	);
	console.log(
		`executions: ${Object.entries(measured.executions)
			.map(([label, byStatus]) => `${label} ${JSON.stringify(byStatus)}`)
			.join('; ')} (one per delivery)`,
	);
}

runMain(main);
