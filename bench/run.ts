/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- repository tooling: runs in Node.js, never inside n8n */
/**
 * `npm run bench` runs every benchmark, one after the other (never two n8n at a time);
 * `npm run bench -- <name> [<name>...]` runs the ones named. Each prints its figures in a table and saves
 * them to bench/results/<name>.json. Benchmarks are not tests: they assert nothing about time, and they are
 * not part of `npm test` or CI (too slow, and these machines are shared and noisy).
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

const BENCHMARKS: Record<string, string> = {
	verifier:
		'webhook signature verifications per second, 1 KiB and 1 MiB, vs the standardwebhooks package (no n8n)',
	footprint:
		'packed and installed size, runtime dependencies, n8n start-up time with and without the package',
	'requests-per-item':
		'API calls per item of a 500-item Case > Get in real n8n, token exchanges counted',
	'action-throughput':
		'500-item Case > Get in real n8n, 20 ms API latency: this node (one at a time and concurrent) vs HTTP Request',
	'trigger-memory':
		"the trigger's state code per delivery (admit, remember, save) with 1,000 to 100,000 events remembered (no n8n)",
	'webhook-throughput':
		'signed deliveries at 1, 10 and 50 concurrent senders: the trigger vs the plain Webhook node, in one n8n and in queue mode',
};

const asked = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));
const unknown = asked.filter((name) => !(name in BENCHMARKS));
if (unknown.length > 0 || process.argv.includes('--help')) {
	console.log(
		`usage: npm run bench [-- <name>...]\n${Object.entries(BENCHMARKS)
			.map(([name, what]) => `  ${name.padEnd(20)} ${what}`)
			.join('\n')}`,
	);
	process.exit(unknown.length > 0 ? 1 : 0);
}

const tsx = path.resolve(__dirname, '..', 'node_modules', 'tsx', 'dist', 'cli.mjs');
const failed: string[] = [];
for (const name of asked.length > 0 ? asked : Object.keys(BENCHMARKS)) {
	const started = Date.now();
	const result = spawnSync(process.execPath, [tsx, path.join(__dirname, `${name}.ts`)], {
		stdio: 'inherit',
	});
	const seconds = ((Date.now() - started) / 1000).toFixed(0);
	if (result.status !== 0) failed.push(name);
	console.log(
		`[bench] ${name}: ${result.status === 0 ? 'done' : `FAILED (exit ${result.status ?? result.signal})`} in ${seconds} s`,
	);
}
if (failed.length > 0) console.log(`[bench] failed: ${failed.join(', ')}`);
process.exit(failed.length > 0 ? 1 : 0);
