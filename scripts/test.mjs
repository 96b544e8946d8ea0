#!/usr/bin/env node
// `npm test`: everything a change must pass, in the order a failure is cheapest to see.
//   build -> scanner lint -> type-check -> catalog matches the spec -> unit, sandbox, integration -> real n8n.
// `npm test -- --quick` stops before the real-n8n suites (for a fast local loop; CI never passes it).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const quick = process.argv.includes('--quick');
const reports = join(root, '.dev', 'test-reports');
mkdirSync(reports, { recursive: true });

const totals = { passed: 0, failed: 0, skipped: 0 };
const failures = [];

function run(label, command, args, env = {}) {
	console.log(`\n=== ${label}: ${[command, ...args].join(' ')}`);
	const started = Date.now();
	const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
	const seconds = ((Date.now() - started) / 1000).toFixed(1);
	const ok = result.status === 0;
	console.log(`=== ${label}: ${ok ? 'ok' : `FAILED (exit ${result.status ?? result.signal})`} in ${seconds} s`);
	if (!ok) failures.push(label);
	return ok;
}

function jestSuite(label, config) {
	const output = join(reports, `${label}.json`);
	const args = ['jest', '--ci', '--json', `--outputFile=${output}`];
	if (config) args.push('-c', config);
	run(label, 'npx', args);
	if (!existsSync(output)) return;
	const report = JSON.parse(readFileSync(output, 'utf8'));
	totals.passed += report.numPassedTests;
	totals.failed += report.numFailedTests;
	totals.skipped += report.numPendingTests + report.numTodoTests;
	if (report.numTotalTests === 0) failures.push(`${label} (ran no test)`);
}

const built = run('build', 'npm', ['run', '--silent', 'build']);
if (built) run('lint (n8n community package scanner rules)', 'npm', ['run', '--silent', 'lint']);
// ts-jest only transpiles; this type-checks the tests, the sandbox and the scripts as well as the package.
run('type-check', 'npx', ['tsc', '-p', 'tsconfig.dev.json']);

const spec = resolve(root, '..', 'shared', 'spec', 'background-check-api.md');
if (existsSync(spec)) run('catalog matches the spec', 'npx', ['tsx', 'scripts/generate-catalog.ts', spec, '--check']);
else console.log(`\n=== catalog check skipped: no spec at ${spec}`);

jestSuite('unit-sandbox-integration');
if (!quick && built && existsSync(join(root, 'jest.e2e.config.js'))) jestSuite('real-n8n', 'jest.e2e.config.js');
if (!quick && built && existsSync(join(root, 'jest.reliability.config.js'))) jestSuite('reliability', 'jest.reliability.config.js');

console.log('\n=== summary');
if (failures.length) console.log(`failed steps: ${failures.join(', ')}`);
console.log(`tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(failures.length === 0 && totals.failed === 0 ? 0 : 1);
