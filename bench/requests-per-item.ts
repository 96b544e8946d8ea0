/* eslint-disable @n8n/community-nodes/no-restricted-globals, no-console -- repository tooling: runs in Node.js, never inside n8n */
/**
 * Requests per item: a workflow that gets 500 cases (Case > Get for 500 case IDs, in real n8n) should make
 * 500 API calls, and no POST /auth/api once the credential's token is stored. Counted from the sandbox's
 * request log, for a new credential (first run: its token is exchanged) and for the same credential again.
 * The HTTP Request node with the same credential type is counted too, for comparison.
 *
 *   npm run bench -- requests-per-item        (BENCH_ITEMS=500)
 */
import { startSandbox } from '../sandbox';
import {
	createCases,
	deployCaseWorkflow,
	HTTP_REQUEST_VERSION,
	runCaseWorkflow,
	type Variant,
} from './lib/caseWorkflow';
import { startBenchN8n } from './lib/n8n';
import { fmt, header, log, printTable, runMain, saveResult } from './lib/report';

const ITEMS = Number(process.env.BENCH_ITEMS ?? 500);

async function main(): Promise<void> {
	const machine = header(
		'requests-per-item',
		`${ITEMS} items of Case > Get (GET /case/id/{caseId}) in real n8n; every request the sandbox received during each run, from its request log.`,
	);
	const variants: Variant[] = [
		{ kind: 'backgroundCheck', label: 'Background Check (default)' },
		{ kind: 'backgroundCheck', label: 'Background Check, Concurrent Requests 10', concurrency: 10 },
		{ kind: 'httpRequest', label: `HTTP Request v${HTTP_REQUEST_VERSION} (same credential)` },
	];
	const sandbox = await startSandbox({ port: 0, timeScale: 0 });
	const n8n = await startBenchN8n('requests');
	try {
		log(`creating ${ITEMS} cases`);
		const caseIds = await createCases(sandbox, ITEMS);
		const rows: Array<Record<string, unknown>> = [];
		for (const variant of variants) {
			// A credential of its own, without a token: the first run exchanges it, the second uses the stored one.
			const workflow = await deployCaseWorkflow(n8n.api, sandbox, variant);
			for (const run of ['new credential', 'token stored'] as const) {
				const result = await runCaseWorkflow(n8n.api, sandbox, workflow, caseIds);
				const other = result.requests.length - result.caseGets - result.exchanges;
				rows.push({
					node: variant.label,
					run,
					items: caseIds.length,
					apiCalls: result.caseGets,
					exchanges: result.exchanges,
					otherCalls: other,
					callsPerItem: result.requests.length / caseIds.length,
				});
				log(
					`${variant.label}, ${run}: ${result.requests.length} requests (${result.caseGets} GET /case/id, ${result.exchanges} /auth/api, ${other} other)`,
				);
			}
		}
		printTable(
			[
				'node',
				'run',
				'items',
				'GET /case/id calls',
				'POST /auth/api calls',
				'other calls',
				'calls per item',
			],
			rows.map((row) => [
				String(row.node),
				String(row.run),
				Number(row.items),
				Number(row.apiCalls),
				Number(row.exchanges),
				Number(row.otherCalls),
				fmt(Number(row.callsPerItem), 3),
			]),
		);
		const stored = rows.filter(
			(row) => row.run === 'token stored' && String(row.node).startsWith('Background Check'),
		);
		const met = stored.every(
			(row) => row.apiCalls === ITEMS && row.exchanges === 0 && row.otherCalls === 0,
		);
		console.log(
			`limit (${ITEMS} API calls and no /auth/api call once the token is stored): ${met ? 'met' : 'NOT met'} by the Background Check node`,
		);
		saveResult('requests-per-item', { machine, items: ITEMS, rows, limitMet: met });
		if (!met) process.exitCode = 1;
	} finally {
		await n8n.stop();
		await sandbox.stop();
	}
}

runMain(main);
