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
 *   npm run bench -- action-throughput        (BENCH_ITEMS=500 BENCH_RUNS=5 BENCH_LATENCY_MS=20 BENCH_RATE_LIMIT=20)
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
import { fmt, header, log, median, printTable, runMain, saveResult } from './lib/report';

const ITEMS = Number(process.env.BENCH_ITEMS ?? 500);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 20);
const RATE_LIMIT = Number(process.env.BENCH_RATE_LIMIT ?? 20);
const CONCURRENCY_LEVELS = [...new Set([5, 10, 20, MAX_CONCURRENCY])];

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

	const sandbox = await startSandbox({ port: 0, timeScale: 0 });
	const n8n = await startBenchN8n('action');
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
		for (const variant of variants)
			workflows.push(await deployCaseWorkflow(n8n.api, sandbox, variant));

		log('warm-up: one run per variant (token exchange, JIT)');
		for (const workflow of workflows) await runCaseWorkflow(n8n.api, sandbox, workflow, caseIds);

		const runs = new Map<CaseWorkflow, CaseRun[]>(workflows.map((workflow) => [workflow, []]));
		for (let round = 1; round <= RUNS; round++) {
			for (const workflow of workflows) {
				const run = await runCaseWorkflow(n8n.api, sandbox, workflow, caseIds);
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

		const rateLimited = await measureRateLimited(n8n.api, sandbox, caseIds);
		const loadAtEnd = os
			.loadavg()
			.map((load) => load.toFixed(2))
			.join(' ');
		console.log(`load average at the end: ${loadAtEnd}`);
		saveResult('action-throughput', {
			machine,
			loadAtEnd,
			items: ITEMS,
			runs: RUNS,
			latencyMs: LATENCY_MS,
			summary,
			rateLimit: RATE_LIMIT,
			rateLimited,
		});
	} finally {
		await n8n.stop();
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
