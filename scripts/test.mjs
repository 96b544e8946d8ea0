#!/usr/bin/env node
// `npm test`: everything a change must pass, in the order a failure is cheapest to see.
//   build -> scanner lint -> type-check (against the n8n-workflow of both runtimes) -> catalog matches the spec
//   -> unit, sandbox, integration -> the real-n8n suites on each pinned n8n (test/harness/n8n/runtimes.json): e2e,
//   reliability (whole on the newest runtime, its crash points on the oldest), and queue mode (newest runtime,
//   behind HAProxy routing by path and a round-robin HAProxy with the gate; `npm run test:queue:all` runs every
//   path-routing load balancer on both runtimes).
// `npm test -- --quick` stops before the real-n8n suites (for a fast local loop; CI never passes it).
// BGC_N8N_RUNTIMES=newest (or oldest) runs the real-n8n suites on that runtime only; the default is both.
// On a machine where a runtime is missing, its install (minutes, mostly waiting on the npm registry) starts at once
// in the background, beside the build and the unit suites, and the real-n8n suites wait for it.
import { spawn, spawnSync } from 'node:child_process';
import {
	closeSync,
	existsSync,
	mkdirSync,
	openSync,
	readFileSync,
	rmSync,
	statSync,
} from 'node:fs';
import { once } from 'node:events';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const quick = process.argv.includes('--quick');
const reports = join(root, '.dev', 'test-reports');
mkdirSync(reports, { recursive: true });

const totals = { passed: 0, failed: 0, skipped: 0 };
const failures = [];
const steps = [];
const QUEUE_MODE_RUNTIMES = ['newest'];
// One of the load balancers that route by path (test/harness/n8n/loadBalancers.ts); nginx and Caddy pass the same
// suite too (docs/queue-mode.md, Measured). The suite adds the round-robin one itself.
const QUEUE_MODE_BALANCER = 'haproxy';
const runtimeNames = (process.env.BGC_N8N_RUNTIMES || 'oldest,newest')
	.split(',')
	.map((name) => name.trim());
const pins = JSON.parse(
	readFileSync(join(root, 'test', 'harness', 'n8n', 'runtimes.json'), 'utf8'),
);
for (const name of runtimeNames) {
	if (!pins[name] || name.startsWith('$')) {
		console.error(
			`BGC_N8N_RUNTIMES names ${JSON.stringify(name)}; the runtimes are: oldest, newest`,
		);
		process.exit(2);
	}
}

/** Installs a runtime in the background (a no-op when it is installed), its output in the reports folder. */
function installInBackground(name) {
	const logFile = join(reports, `install-${name}.log`);
	const out = openSync(logFile, 'w');
	const started = Date.now();
	const child = spawn('npx', ['tsx', 'test/harness/n8n/runtime.ts', 'install'], {
		cwd: root,
		stdio: ['ignore', out, out],
		env: { ...process.env, BGC_N8N_RUNTIME: name },
	});
	closeSync(out);
	// Its exit is seen only once no suite runs (they run synchronously): its last write to the log times it.
	const exited = once(child, 'exit').then(([code, signal]) => ({
		code: code ?? signal,
		seconds: ((statSync(logFile).mtimeMs - started) / 1000).toFixed(1),
	}));
	return { logFile, exited };
}

/** Waits for a runtime's background install and reports it as a step. */
async function awaitInstall(label, install) {
	console.log(`\n=== ${label}: started in the background at the beginning`);
	const waitedFrom = Date.now();
	const { code, seconds } = await install.exited;
	console.log(readFileSync(install.logFile, 'utf8').trimEnd());
	const waited = ((Date.now() - waitedFrom) / 1000).toFixed(1);
	const ok = code === 0;
	steps.push({ label: `${label} (took ${seconds} s in the background)`, seconds: waited });
	console.log(`=== ${label}: ${ok ? 'ok' : `FAILED (exit ${code})`}, waited ${waited} s`);
	if (!ok) failures.push(label);
	return ok;
}

function run(label, command, args, env = {}) {
	console.log(`\n=== ${label}: ${[command, ...args].join(' ')}`);
	const started = Date.now();
	const result = spawnSync(command, args, {
		cwd: root,
		stdio: 'inherit',
		env: { ...process.env, ...env },
	});
	const seconds = ((Date.now() - started) / 1000).toFixed(1);
	const ok = result.status === 0;
	steps.push({ label, seconds });
	console.log(
		`=== ${label}: ${ok ? 'ok' : `FAILED (exit ${result.status ?? result.signal})`} in ${seconds} s`,
	);
	if (!ok) failures.push(label);
	return ok;
}

function jestSuite(label, config, env = {}, files = []) {
	const output = join(reports, `${label.replace(/[^\w.-]+/g, '-')}.json`);
	rmSync(output, { force: true });
	const args = ['jest', '--ci', '--json', `--outputFile=${output}`];
	if (config) args.push('-c', config);
	args.push(...files);
	run(label, 'npx', args, env);
	if (!existsSync(output)) return;
	const report = JSON.parse(readFileSync(output, 'utf8'));
	totals.passed += report.numPassedTests;
	totals.failed += report.numFailedTests;
	totals.skipped += report.numPendingTests + report.numTodoTests;
	if (report.numTotalTests === 0) failures.push(`${label} (ran no test)`);
}

const installs = quick
	? {}
	: Object.fromEntries(runtimeNames.map((name) => [name, installInBackground(name)]));

const built = run('build', 'npm', ['run', '--silent', 'build']);
if (built) run('lint (n8n community package scanner rules)', 'npm', ['run', '--silent', 'lint']);
// ts-jest only transpiles; this type-checks the tests, the sandbox and the scripts as well as the package.
run(`type-check (n8n-workflow ${pins.oldest.n8nWorkflow})`, 'npx', [
	'tsc',
	'-p',
	'tsconfig.dev.json',
]);
run(`type-check of the package (n8n-workflow ${pins.newest.n8nWorkflow})`, 'npx', [
	'tsc',
	'-p',
	'tsconfig.newest.json',
]);

const spec = resolve(root, '..', 'shared', 'spec', 'background-check-api.md');
if (existsSync(spec))
	run('catalog matches the spec', 'npx', ['tsx', 'scripts/generate-catalog.ts', spec, '--check']);
else console.log(`\n=== catalog check skipped: no spec at ${spec}`);

jestSuite('unit-sandbox-integration');
if (!quick && built) {
	for (const name of runtimeNames) {
		const pin = pins[name];
		const node = pin.node === 'system' ? process.version : `v${pin.node}`;
		const on = `n8n ${pin.n8n}, Node.js ${node}`;
		// The first run on a machine installs the runtime (see docs/n8n-runtimes.md).
		if (!(await awaitInstall(`install ${on} (once per machine)`, installs[name]))) continue;
		jestSuite(`real-n8n on ${on}`, 'jest.e2e.config.js', { BGC_N8N_RUNTIME: name });
		// The whole reliability suite on the newest runtime; on the others, the crash points (they depend on
		// each version's own code). `npm run test:reliability` runs all of it on any runtime.
		if (name === 'newest')
			jestSuite(`reliability on ${on}`, 'jest.reliability.config.js', { BGC_N8N_RUNTIME: name });
		else
			jestSuite(
				`reliability (crash points) on ${on}`,
				'jest.reliability.config.js',
				{ BGC_N8N_RUNTIME: name },
				['test/reliability/crashPoints'],
			);
		// Queue mode (PostgreSQL, Redis, a load balancer, 5 n8n processes; installs what is missing):
		// docs/queue-mode.md. One path-routing load balancer and the round-robin one on the newest runtime: the
		// whole matrix (3 path-routing load balancers x 2 runtimes) is `npm run test:queue:all`, too long for CI.
		if (QUEUE_MODE_RUNTIMES.includes(name))
			jestSuite(
				`queue mode behind ${QUEUE_MODE_BALANCER} and round robin on ${on}`,
				'jest.queue.config.js',
				{
					BGC_N8N_RUNTIME: name,
					BGC_QUEUE_BALANCER: QUEUE_MODE_BALANCER,
				},
			);
	}
}

console.log('\n=== summary');
for (const step of steps) console.log(`${step.seconds.padStart(7)} s  ${step.label}`);
if (failures.length) console.log(`failed steps: ${failures.join(', ')}`);
console.log(`tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(failures.length === 0 && totals.failed === 0 ? 0 : 1);
