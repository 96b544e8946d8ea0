/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- repository tooling: runs in Node.js, never inside n8n */
/**
 * Action throughput: the same 500-item read workflow (Case > Get for 500 case IDs) through the Background
 * Check node and through n8n's HTTP Request node with the same credential, the sandbox adding 20 ms to
 * every GET /case/id/... call. Wall time of each execution from n8n's startedAt / stoppedAt, median of
 * BENCH_RUNS runs (default 5) after one warm-up run per variant; variants take turns in every round.
 * Variants: the HTTP Request node, this node with default settings, with Concurrent Requests 5/10/20 and at
 * the top setting. Then the rate-limited case: the sandbox accepts BENCH_RATE_LIMIT GETs per second per
 * token (default 20) and answers the others 429 with Retry-After; this node (defaults) and the HTTP Request
 * node run once each (a failed run is reported, not thrown).
 *
 * Then bulk orders: 500 Case > Create (POST /case/create, +BENCH_ORDER_LATENCY_MS sandbox latency each) against
 * a sandbox that does not refuse a second order for a candidate, so that an order sent twice is a second case:
 * the HTTP Request node (same credential, same body) and this node at its default and top Concurrent Requests,
 * median of BENCH_ORDER_RUNS runs after a warm-up run each. Then one run each under the sandbox's faults
 * (BENCH_ORDER_RATE_LIMIT creates per second per token, 5xx and drops before and after the case is created,
 * 503 with Retry-After): this node (defaults, Continue On Fail) and the HTTP Request node with Continue On Fail
 * and with Retry On Fail; the duplicate orders (candidates with two cases) are counted in the sandbox.
 *
 * Then report downloads: Report > Download Case Report for BENCH_REPORTS completed cases (the sandbox's PDFs are
 * BENCH_REPORT_BYTES each), against the two HTTP Request nodes a user would chain (the address as text, then the
 * file); median of BENCH_RUNS runs after a warm-up run each, as bytes of PDF per second of execution.
 *
 *   npm run bench -- action-throughput        (BENCH_PARTS=reads,orders,reports BENCH_REPORTS=50
 *                                              BENCH_REPORT_BYTES=262144 BENCH_ITEMS=500 BENCH_RUNS=5 BENCH_LATENCY_MS=20 BENCH_RATE_LIMIT=20
 *                                              BENCH_ORDER_LATENCY_MS=100 BENCH_ORDER_RUNS=3 BENCH_ORDER_RATE_LIMIT=100)
 */
import * as os from 'node:os';

import { BackgroundCheck } from '../nodes/BackgroundCheck/BackgroundCheck.node';
import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY } from '../nodes/BackgroundCheck/helpers/execute';
import { startSandbox, type Sandbox } from '../sandbox';
import {
	createCases,
	deployCaseWorkflow,
	HTTP_REQUEST_VERSION,
	runCaseWorkflow,
	type CaseRun,
	type CaseWorkflow,
	type Variant,
} from './lib/caseWorkflow';
import { startBenchN8n } from './lib/n8n';
import {
	deployOrderWorkflow,
	newCandidates,
	runOrderWorkflow,
	type OrderRun,
	type OrderVariant,
	type OrderWorkflow,
} from './lib/orderWorkflow';
import { fmt, header, log, median, printTable, runMain, saveResult } from './lib/report';
import {
	deployReportWorkflow,
	runReportWorkflow,
	type ReportRun,
	type ReportVariant,
} from './lib/reportWorkflow';

const ITEMS = Number(process.env.BENCH_ITEMS ?? 500);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 20);
const RATE_LIMIT = Number(process.env.BENCH_RATE_LIMIT ?? 20);
const CONCURRENCY_LEVELS = [...new Set([5, 10, 20, MAX_CONCURRENCY])];
const ORDER_LATENCY_MS = Number(process.env.BENCH_ORDER_LATENCY_MS ?? 100);
const ORDER_RUNS = Number(process.env.BENCH_ORDER_RUNS ?? 3);
const ORDER_RATE_LIMIT = Number(process.env.BENCH_ORDER_RATE_LIMIT ?? 100);
const REPORTS = Number(process.env.BENCH_REPORTS ?? 50);
const REPORT_BYTES = Number(process.env.BENCH_REPORT_BYTES ?? 256 * 1024);
/** BENCH_PARTS=reads,orders,reports (default all three). */
const PARTS = new Set((process.env.BENCH_PARTS ?? 'reads,orders,reports').split(','));

/** Whether this checkout's node has the Concurrent Requests option (Options > Concurrent Requests). */
function nodeHasConcurrencyOption(): boolean {
	return new BackgroundCheck().description.properties.some(
		(property) =>
			property.name === 'options' &&
			(property.options ?? []).some((option) => 'name' in option && option.name === 'concurrency'),
	);
}

async function main(): Promise<void> {
	const machine = header(
		'action-throughput',
		`${ITEMS} items of Case > Get (GET /case/id/{caseId}, +${LATENCY_MS} ms sandbox latency each) in real n8n: ` +
			`Background Check node vs HTTP Request node v${HTTP_REQUEST_VERSION} (same credential). Median of ${RUNS} runs after a warm-up run.`,
	);
	const variants: Variant[] = [
		{ kind: 'httpRequest', label: `HTTP Request v${HTTP_REQUEST_VERSION}` },
		{
			kind: 'backgroundCheck',
			label: `Background Check (default settings: ${DEFAULT_CONCURRENCY} at a time)`,
		},
	];
	if (nodeHasConcurrencyOption()) {
		for (const concurrency of CONCURRENCY_LEVELS) {
			const top = concurrency === MAX_CONCURRENCY ? ' (top setting)' : '';
			variants.push({
				kind: 'backgroundCheck',
				label: `Background Check, Concurrent Requests ${concurrency}${top}`,
				concurrency,
			});
		}
	} else {
		log('this checkout has no Concurrent Requests option: measuring the default only');
	}

	const n8n = await startBenchN8n('action');
	const result: Record<string, unknown> = { machine };
	try {
		if (PARTS.has('reads')) Object.assign(result, await measureReads(n8n.api, variants));
		if (PARTS.has('orders')) result.orders = await measureOrders(n8n.api);
		if (PARTS.has('reports')) result.reports = await measureReports(n8n.api);
	} finally {
		await n8n.stop();
	}
	const loadAtEnd = os
		.loadavg()
		.map((load) => load.toFixed(2))
		.join(' ');
	console.log(`load average at the end: ${loadAtEnd}`);
	saveResult('action-throughput', { ...result, loadAtEnd });
}

/** The 500 reads: every variant, median of RUNS runs; then the rate-limited case. */
async function measureReads(api: Parameters<typeof deployCaseWorkflow>[0], variants: Variant[]) {
	const sandbox = await startSandbox({ port: 0, timeScale: 0 });
	try {
		log(`creating ${ITEMS} cases`);
		const caseIds = await createCases(sandbox, ITEMS);
		sandbox.admin.injectFault({
			kind: 'latency',
			latencyMs: LATENCY_MS,
			method: 'GET',
			pathPrefix: '/case/id/',
		});
		const workflows: CaseWorkflow[] = [];
		for (const variant of variants) workflows.push(await deployCaseWorkflow(api, sandbox, variant));

		log('warm-up: one run per variant (token exchange, JIT)');
		for (const workflow of workflows) await runCaseWorkflow(api, sandbox, workflow, caseIds);

		const runs = new Map<CaseWorkflow, CaseRun[]>(workflows.map((workflow) => [workflow, []]));
		for (let round = 1; round <= RUNS; round++) {
			for (const workflow of workflows) {
				const run = await runCaseWorkflow(api, sandbox, workflow, caseIds);
				runs.get(workflow)!.push(run);
				log(
					`round ${round}/${RUNS} ${workflow.variant.label}: execution ${run.executionMs} ms, node ${run.nodeMs} ms, ${run.caseGets} GETs, ${run.exchanges} exchanges`,
				);
			}
		}

		const summary = workflows.map((workflow) => {
			const list = runs.get(workflow)!;
			return {
				variant: workflow.variant.label,
				concurrency:
					workflow.variant.kind === 'backgroundCheck'
						? (workflow.variant.concurrency ?? 1)
						: 'all items at once',
				executionMs: list.map((run) => run.executionMs),
				nodeMs: list.map((run) => run.nodeMs),
				medianExecutionMs: median(list.map((run) => run.executionMs)),
				medianNodeMs: median(list.map((run) => run.nodeMs)),
				apiCallsPerRun: median(list.map((run) => run.caseGets)),
				exchangesPerRun: Math.max(...list.map((run) => run.exchanges)),
			};
		});
		const http = summary[0].medianExecutionMs;
		printTable(
			[
				'node',
				'median execution (s)',
				'min-max (s)',
				'median node time (s)',
				'ratio to HTTP Request',
				'GET calls',
				'/auth/api calls',
			],
			summary.map((row) => [
				row.variant,
				fmt(row.medianExecutionMs / 1000, 2),
				`${fmt(Math.min(...row.executionMs) / 1000, 2)}-${fmt(Math.max(...row.executionMs) / 1000, 2)}`,
				fmt(row.medianNodeMs / 1000, 2),
				`${fmt(row.medianExecutionMs / http, 2)}x`,
				row.apiCallsPerRun,
				row.exchangesPerRun,
			]),
		);
		console.log(
			'ratio = median execution time / median execution time of the HTTP Request node (below 1 = faster).',
		);

		const rateLimited = await measureRateLimited(api, sandbox, caseIds);
		return {
			items: ITEMS,
			runs: RUNS,
			latencyMs: LATENCY_MS,
			summary,
			rateLimit: RATE_LIMIT,
			rateLimited,
		};
	} finally {
		await sandbox.stop();
	}
}

/** One run each of this node (default settings) and the HTTP Request node while the sandbox limits GETs to RATE_LIMIT per second per token. */
async function measureRateLimited(
	api: Parameters<typeof deployCaseWorkflow>[0],
	sandbox: Sandbox,
	caseIds: string[],
) {
	log(
		`rate limit: ${RATE_LIMIT} GET /case/id/... per second per token, the others answered 429 with Retry-After`,
	);
	const fault = sandbox.admin.injectFault({
		kind: 'rateLimit',
		perSecond: RATE_LIMIT,
		method: 'GET',
		pathPrefix: '/case/id/',
	});
	const rows = [];
	try {
		for (const variant of [
			{ kind: 'backgroundCheck', label: 'Background Check (default settings)' },
			{ kind: 'httpRequest', label: `HTTP Request v${HTTP_REQUEST_VERSION}` },
		] as Variant[]) {
			const workflow = await deployCaseWorkflow(api, sandbox, variant);
			const run = await runCaseWorkflow(api, sandbox, workflow, caseIds, { allowFailure: true });
			log(
				`rate-limited ${variant.label}: execution ${run.executionMs} ms, ${run.correctItems}/${caseIds.length} right, ${run.refused} answered 429`,
			);
			rows.push({ variant: variant.label, ...run, requests: undefined });
		}
	} finally {
		sandbox.admin.removeFault(fault.id);
	}
	printTable(
		[
			'node (limit ' + RATE_LIMIT + '/s per token)',
			'execution (s)',
			'items right',
			'GET calls',
			'answered 429',
			'/auth/api calls',
			'outcome',
		],
		rows.map((row) => [
			row.variant,
			fmt(row.executionMs / 1000, 2),
			`${row.correctItems}/${caseIds.length}`,
			row.caseGets,
			row.refused,
			row.exchanges,
			row.failure === undefined ? 'success' : row.failure.replace(/\s+/g, ' ').slice(0, 160),
		]),
	);
	console.log(`floor at ${RATE_LIMIT}/s: ${fmt(caseIds.length / RATE_LIMIT, 1)} s.`);
	return rows;
}

runMain(main);

/**
 * The fault plan of a bulk-order run, in the order requests arrive: 20 times 24 creates at the order latency,
 * then one fault, in turn a 500 and a drop before the case is created, a 502 and a drop after it is created
 * (the answer is lost), and a 503 with Retry-After 1 s; on top, ORDER_RATE_LIMIT creates per second per
 * token, the others answered 429 with Retry-After.
 */
function injectOrderFaults(sandbox: Sandbox): void {
	sandbox.admin.clearFaults();
	const create = { method: 'POST', pathPrefix: '/case/create' } as const;
	sandbox.admin.injectFault({ ...create, kind: 'rateLimit', perSecond: ORDER_RATE_LIMIT });
	const faults = [
		{ kind: 'status', status: 500 },
		{ kind: 'drop' },
		{ kind: 'status', status: 502, afterHandling: true },
		{ kind: 'drop', afterHandling: true },
		{ kind: 'status', status: 503, retryAfterSeconds: 1 },
	] as const;
	for (let i = 0; i < 20; i++) {
		sandbox.admin.injectFault({
			...create,
			kind: 'latency',
			latencyMs: ORDER_LATENCY_MS,
			times: 24,
		});
		sandbox.admin.injectFault({ ...create, ...faults[i % faults.length], times: 1 });
	}
	sandbox.admin.injectFault({ ...create, kind: 'latency', latencyMs: ORDER_LATENCY_MS });
}

/** Report downloads of REPORTS completed cases: this node against two chained HTTP Request nodes. */
async function measureReports(api: Parameters<typeof deployCaseWorkflow>[0]) {
	const sandbox = await startSandbox({ port: 0, timeScale: 0, reportPdfBytes: REPORT_BYTES });
	try {
		log(`report downloads: ${REPORTS} completed cases, ${REPORT_BYTES} bytes a report`);
		const caseIds = await createCases(sandbox, REPORTS);
		await sandbox.admin.advanceClock(24 * 3600);
		await sandbox.admin.idle();
		const variants: ReportVariant[] = [
			{
				kind: 'httpRequest',
				label: `HTTP Request v${HTTP_REQUEST_VERSION} x2 (address, then file)`,
			},
			{ kind: 'backgroundCheck', label: 'Background Check, Report > Download Case Report' },
		];
		const workflows = [];
		for (const variant of variants)
			workflows.push(await deployReportWorkflow(api, sandbox, variant));
		log('warm-up: one run per variant');
		for (const workflow of workflows) await runReportWorkflow(api, workflow, caseIds, REPORT_BYTES);
		const runs = new Map(workflows.map((workflow) => [workflow, [] as ReportRun[]]));
		for (let round = 1; round <= RUNS; round++) {
			for (const workflow of workflows) {
				const run = await runReportWorkflow(api, workflow, caseIds, REPORT_BYTES);
				runs.get(workflow)!.push(run);
				log(
					`reports round ${round}/${RUNS} ${workflow.variant.label}: ${run.executionMs} ms, ${run.bytes} bytes`,
				);
			}
		}
		const summary = workflows.map((workflow) => {
			const list = runs.get(workflow)!;
			const medianMs = median(list.map((run) => run.executionMs));
			return {
				variant: workflow.variant.label,
				executionMs: list.map((run) => run.executionMs),
				medianExecutionMs: medianMs,
				bytesPerRun: list[0].bytes,
				mebibytesPerSecond: list[0].bytes / 1024 / 1024 / (medianMs / 1000),
			};
		});
		const http = summary[0].medianExecutionMs;
		printTable(
			[
				`node (${REPORTS} case reports)`,
				'median execution (s)',
				'min-max (s)',
				'MiB/s',
				'ratio to HTTP Request',
			],
			summary.map((row) => [
				row.variant,
				fmt(row.medianExecutionMs / 1000, 2),
				`${fmt(Math.min(...row.executionMs) / 1000, 2)}-${fmt(Math.max(...row.executionMs) / 1000, 2)}`,
				fmt(row.mebibytesPerSecond, 1),
				`${fmt(row.medianExecutionMs / http, 2)}x`,
			]),
		);
		return { reports: REPORTS, reportBytes: REPORT_BYTES, runs: RUNS, summary };
	} finally {
		await sandbox.stop();
	}
}

/**
 * 500 Case > Create: this node at its default and top Concurrent Requests against the HTTP Request node
 * (median of ORDER_RUNS runs), then one run each under the fault plan, counting duplicate orders.
 */
async function measureOrders(api: Parameters<typeof deployCaseWorkflow>[0]) {
	// No 409 for a candidate who already has a case: an order sent twice shows as a second case.
	const sandbox = await startSandbox({ port: 0, timeScale: 0, refuseSameCandidate: false });
	try {
		log(
			`bulk orders: ${ITEMS} Case > Create, +${ORDER_LATENCY_MS} ms sandbox latency on POST /case/create`,
		);
		sandbox.admin.injectFault({
			kind: 'latency',
			latencyMs: ORDER_LATENCY_MS,
			method: 'POST',
			pathPrefix: '/case/create',
		});
		const variants: OrderVariant[] = [
			{ kind: 'httpRequest', label: `HTTP Request v${HTTP_REQUEST_VERSION}` },
			{
				kind: 'backgroundCheck',
				label: `Background Check (default settings: ${DEFAULT_CONCURRENCY} at a time)`,
			},
			{
				kind: 'backgroundCheck',
				label: `Background Check, Concurrent Requests ${MAX_CONCURRENCY} (top setting)`,
				concurrency: MAX_CONCURRENCY,
			},
		];
		const workflows: OrderWorkflow[] = [];
		for (const variant of variants)
			workflows.push(await deployOrderWorkflow(api, sandbox, variant));
		log('warm-up: one run per variant');
		for (const workflow of workflows)
			await runOrderWorkflow(api, sandbox, workflow, newCandidates(ITEMS));
		const runs = new Map<OrderWorkflow, OrderRun[]>(workflows.map((workflow) => [workflow, []]));
		for (let round = 1; round <= ORDER_RUNS; round++) {
			for (const workflow of workflows) {
				const run = await runOrderWorkflow(api, sandbox, workflow, newCandidates(ITEMS));
				runs.get(workflow)!.push(run);
				log(
					`orders round ${round}/${ORDER_RUNS} ${workflow.variant.label}: execution ${run.executionMs} ms, ${run.ordered} ordered, ${run.creates} creates, ${run.duplicateCases} duplicate cases`,
				);
				if (run.status !== 'success' || run.ordered !== ITEMS)
					throw new Error(
						`${workflow.variant.label}: ${run.status}, ${run.ordered} ordered: ${run.failure}`,
					);
			}
		}
		const timing = workflows.map((workflow) => {
			const list = runs.get(workflow)!;
			return {
				variant: workflow.variant.label,
				executionMs: list.map((run) => run.executionMs),
				medianExecutionMs: median(list.map((run) => run.executionMs)),
				createsPerRun: median(list.map((run) => run.creates)),
				duplicateCases: list.reduce((sum, run) => sum + run.duplicateCases, 0),
			};
		});
		const http = timing[0].medianExecutionMs;
		printTable(
			[
				'node (500 Case > Create)',
				'median execution (s)',
				'min-max (s)',
				'ratio to HTTP Request',
				'POST calls per run',
				'duplicate cases',
			],
			timing.map((row) => [
				row.variant,
				fmt(row.medianExecutionMs / 1000, 2),
				`${fmt(Math.min(...row.executionMs) / 1000, 2)}-${fmt(Math.max(...row.executionMs) / 1000, 2)}`,
				`${fmt(row.medianExecutionMs / http, 2)}x`,
				row.createsPerRun,
				row.duplicateCases,
			]),
		);

		log('bulk orders under faults: one run each');
		const faultVariants: OrderVariant[] = [
			{
				kind: 'backgroundCheck',
				label: 'Background Check (default settings), Continue On Fail',
				continueOnFail: true,
			},
			{
				kind: 'httpRequest',
				label: `HTTP Request v${HTTP_REQUEST_VERSION}, Continue On Fail`,
				continueOnFail: true,
			},
			{
				kind: 'httpRequest',
				label: `HTTP Request v${HTTP_REQUEST_VERSION}, Retry On Fail (3 tries, 1 s apart)`,
				retryOnFail: true,
			},
		];
		const faulted = [];
		for (const variant of faultVariants) {
			const workflow = await deployOrderWorkflow(api, sandbox, variant);
			injectOrderFaults(sandbox);
			const run = await runOrderWorkflow(api, sandbox, workflow, newCandidates(ITEMS));
			log(
				`faults ${variant.label}: ${run.status} in ${run.executionMs} ms, ${run.ordered} ordered, ${run.errorItems} error items, ${run.creates} creates (${run.refused} answered 429), ${run.candidatesWithTwoCases} candidates with two or more cases`,
			);
			for (const sends of run.duplicateSends)
				log(`  a candidate with two or more cases, its sends: ${sends}`);
			faulted.push({ variant: variant.label, ...run });
		}
		sandbox.admin.clearFaults();
		printTable(
			[
				`node (faults, limit ${ORDER_RATE_LIMIT}/s per token)`,
				'execution (s)',
				'outcome',
				'items with a case',
				'error items',
				'POST calls',
				'answered 429',
				'candidates with 2+ cases (duplicate orders)',
			],
			faulted.map((row) => [
				row.variant,
				fmt(row.executionMs / 1000, 2),
				row.status === 'success'
					? 'success'
					: `${row.status}: ${(row.failure ?? '').replace(/\s+/g, ' ').slice(0, 80)}`,
				row.ordered,
				row.errorItems,
				row.creates,
				row.refused,
				row.candidatesWithTwoCases,
			]),
		);
		return {
			items: ITEMS,
			runs: ORDER_RUNS,
			latencyMs: ORDER_LATENCY_MS,
			rateLimit: ORDER_RATE_LIMIT,
			timing,
			faulted,
		};
	} finally {
		await sandbox.stop();
	}
}
