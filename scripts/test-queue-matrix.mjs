#!/usr/bin/env node
// `npm run test:queue:all`: the queue-mode suite (test/queue/) behind each load balancer that routes by path
// (HAProxy, nginx, Caddy: test/harness/n8n/loadBalancers.ts) on each pinned n8n, one run after the other (about
// 40 minutes on a 2-core machine), each run with the round-robin balancer and the gate too; `npm test` runs one
// of them (HAProxy, newest runtime). Ends with the executions (and, behind round robin, the side effects) per
// scenario for each run and each run's time (docs/queue-mode.md has the figures).
//   BGC_N8N_RUNTIMES=newest / BGC_QUEUE_BALANCERS=caddy,nginx narrow it.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const reports = join(root, '.dev', 'test-reports');
const list = (value, all) => (value ? value.split(',').map((name) => name.trim()) : all);
const runtimes = list(process.env.BGC_N8N_RUNTIMES, ['oldest', 'newest']);
const balancers = list(process.env.BGC_QUEUE_BALANCERS, ['haproxy', 'nginx', 'caddy']);

const runs = [];
for (const runtime of runtimes) {
	const env = { ...process.env, BGC_N8N_RUNTIME: runtime };
	const install = spawnSync('npx', ['tsx', 'test/harness/n8n/runtime.ts', 'install'], {
		cwd: root,
		stdio: 'inherit',
		env,
	});
	if (install.status !== 0) {
		runs.push({ runtime, balancer: '-', ok: false, seconds: 0, report: undefined });
		continue;
	}
	for (const balancer of balancers) {
		const report = join(reports, `queue-mode-${runtime}-${balancer}.json`);
		rmSync(report, { force: true });
		console.log(`\n=== queue mode, ${runtime} runtime, ${balancer}`);
		const started = Date.now();
		const result = spawnSync('npx', ['jest', '--ci', '-c', 'jest.queue.config.js'], {
			cwd: root,
			stdio: 'inherit',
			env: { BGC_QUEUE_EVENTS: '200', ...env, BGC_QUEUE_BALANCER: balancer },
		});
		runs.push({
			runtime,
			balancer,
			ok: result.status === 0,
			seconds: Math.round((Date.now() - started) / 1000),
			report: existsSync(report) ? JSON.parse(readFileSync(report, 'utf8')) : undefined,
		});
	}
}

console.log('\n=== queue mode, every load balancer and runtime');
for (const run of runs) {
	console.log(
		`\n${run.ok ? 'passed' : 'FAILED'}  ${run.report?.runtime ?? run.runtime}, ${run.balancer}, ${run.seconds} s`,
	);
	for (const r of run.report?.results ?? [])
		console.log(
			`  ${`${r.balancer}: ${r.scenario}`.padEnd(80)} unique ${String(r.unique).padStart(4)}  deliveries ${String(r.deliveries).padStart(4)}  executions ${String(r.executions).padStart(4)}${r.sideEffects === undefined ? '' : `  side effects ${String(r.sideEffects).padStart(4)}`}`,
		);
}
process.exit(runs.every((run) => run.ok) ? 0 : 1);
