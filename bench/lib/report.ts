/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- repository tooling: runs in Node.js, never inside n8n */
/**
 * What every benchmark prints: the machine it ran on, figures as medians over several runs, and a short
 * table. Results are also written as JSON to bench/results/<name>.json (git-ignored) for docs/benchmarks.md.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { n8nVersion, runtimePin } from '../../test/harness/n8n/runtime';

export const REPO_DIR = path.resolve(__dirname, '..', '..');
export const RESULTS_DIR = path.join(REPO_DIR, 'bench', 'results');

export interface Machine {
	nproc: number;
	cpu: string;
	memoryGiB: number;
	os: string;
	node: string;
	n8n: string;
	/** n8n settings given in the environment (N8N_*), which the bench passes on to n8n; none: n8n's defaults. */
	n8nSettings: string;
	package: string;
	commit: string;
	loadAverage: string;
	date: string;
}

function gitCommit(): string {
	try {
		const hash = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
			cwd: REPO_DIR,
			encoding: 'utf8',
		}).trim();
		const dirty = execFileSync(
			'git',
			['status', '--porcelain', '--', 'nodes', 'credentials', 'package.json'],
			{
				cwd: REPO_DIR,
				encoding: 'utf8',
			},
		).trim();
		return dirty ? `${hash} (+ uncommitted changes in nodes/credentials)` : hash;
	} catch {
		return 'unknown';
	}
}

export function machine(): Machine {
	const pkg = JSON.parse(fs.readFileSync(path.join(REPO_DIR, 'package.json'), 'utf8')) as {
		name: string;
		version: string;
	};
	let nproc = os.availableParallelism();
	try {
		nproc = Number(execFileSync('nproc', { encoding: 'utf8' }).trim()) || nproc;
	} catch {
		// keep Node's count
	}
	return {
		nproc,
		cpu: os.cpus()[0]?.model.trim() ?? 'unknown',
		memoryGiB: Math.round(os.totalmem() / 2 ** 30),
		os: `${os.type()} ${os.release()} ${os.arch()}`,
		node: runtimePin().node === 'system' ? process.version : `v${runtimePin().node}`,
		n8n: n8nVersion(),
		n8nSettings:
			Object.entries(process.env)
				.filter(([key]) => key.startsWith('N8N_'))
				.map(([key, value]) => `${key}=${value}`)
				.join(' ') || "n8n's defaults",
		package: `${pkg.name}@${pkg.version}`,
		commit: gitCommit(),
		loadAverage: os
			.loadavg()
			.map((load) => load.toFixed(2))
			.join(' '),
		date: new Date().toISOString(),
	};
}

/** Prints the benchmark's title and the machine, and returns the machine for the JSON result. */
export function header(name: string, what: string): Machine {
	const m = machine();
	console.log(`\n# bench: ${name}`);
	console.log(what);
	console.log(
		`machine: ${m.nproc} cores (nproc), ${m.cpu}, ${m.memoryGiB} GiB, ${m.os}; Node ${m.node}; n8n ${m.n8n} (${m.n8nSettings}); ` +
			`${m.package} at ${m.commit}; load average ${m.loadAverage}`,
	);
	return m;
}

export function median(values: number[]): number {
	if (values.length === 0) return NaN;
	const sorted = [...values].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Nearest-rank percentile (p in 0..100) of the values. */
export function percentile(values: number[], p: number): number {
	if (values.length === 0) return NaN;
	const sorted = [...values].sort((a, b) => a - b);
	const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
	return sorted[rank - 1];
}

export function fmt(value: number, digits = 0): string {
	if (!Number.isFinite(value)) return String(value);
	return value.toLocaleString('en-US', {
		minimumFractionDigits: digits,
		maximumFractionDigits: digits,
	});
}

/** A GitHub-flavoured markdown table, so the output can be pasted into docs/benchmarks.md as it is. */
export function table(columns: string[], rows: Array<Array<string | number>>): string {
	const cells = [columns, ...rows.map((row) => row.map(String))];
	const widths = columns.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? '').length)));
	const line = (row: string[]) => `| ${row.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
	return [
		line(cells[0]),
		`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
		...cells.slice(1).map(line),
	].join('\n');
}

export function printTable(columns: string[], rows: Array<Array<string | number>>): void {
	console.log(`\n${table(columns, rows)}\n`);
}

/** Writes bench/results/<name>.json with the machine and the figures. */
export function saveResult(name: string, result: Record<string, unknown>): void {
	fs.mkdirSync(RESULTS_DIR, { recursive: true });
	const file = path.join(RESULTS_DIR, `${name}.json`);
	fs.writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
	console.log(`(figures saved to ${path.relative(REPO_DIR, file)})`);
}

export const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

/** Runs a benchmark's main function; a failure exits with status 1 after printing the error. */
export function runMain(main: () => Promise<void>): void {
	main().then(
		() => process.exit(process.exitCode ?? 0),
		(error: unknown) => {
			console.error(error);
			process.exit(1);
		},
	);
}
