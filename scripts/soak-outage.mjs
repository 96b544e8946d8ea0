#!/usr/bin/env node
// `npm run soak:outage`: the reliability test "n8n stopped while the sandbox delivers" (test/reliability/
// webhookLoad.reliability.ts) BGC_OUTAGE_RUNS times in a row (default 20) on BGC_N8N_RUNTIME (default newest),
// each run a fresh n8n; prints each run's figures as the test prints them and the count of passing runs.
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const runs = Math.max(1, Number(process.env.BGC_OUTAGE_RUNS) || 20);
const runtime = process.env.BGC_N8N_RUNTIME || 'newest';
let passed = 0;
for (let run = 1; run <= runs; run++) {
	const started = Date.now();
	const result = spawnSync(
		'npx',
		[
			'jest',
			'-c',
			'jest.reliability.config.js',
			'test/reliability/webhookLoad',
			'-t',
			'n8n stopped while the sandbox delivers',
		],
		{ cwd: root, env: { ...process.env, BGC_N8N_RUNTIME: runtime }, encoding: 'utf8' },
	);
	const output = `${result.stdout}\n${result.stderr}`;
	const figures = output.split('\n').filter((line) => line.startsWith('[reliability]'));
	const ok = result.status === 0;
	if (ok) passed++;
	console.log(
		`run ${run}/${runs} on ${runtime}: ${ok ? 'passed' : 'FAILED'} in ${((Date.now() - started) / 1000).toFixed(0)} s`,
	);
	for (const line of figures) console.log(`  ${line}`);
	if (!ok)
		console.log(
			output
				.split('\n')
				.filter(
					(line) => /●|Expected|Received|^\s+[-+] /.test(line) && !line.includes('"succeeded"'),
				)
				.slice(0, 30)
				.join('\n'),
		);
}
console.log(`outage soak on ${runtime}: ${passed} of ${runs} runs passed`);
process.exit(passed === runs ? 0 : 1);
