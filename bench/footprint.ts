/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- repository tooling: runs in Node.js, never inside n8n */
/**
 * Footprint: the packed tarball's size, the size the package takes once n8n has installed it (the way n8n's
 * community-package installer does: extract, strip dev/peer dependencies, `npm install`), its runtime
 * dependencies (must be 0), and n8n's start-up time with and without it: from launching `n8n start` to n8n's
 * own "Editor is now accessible" log line, on a user folder that has started once already (database
 * migrated), median of BENCH_STARTS starts each (default 5), the two taking turns. Also n8n's resident memory
 * right after start-up.
 *
 *   npm run bench -- footprint        (BENCH_STARTS=5)
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { installPackageIntoUserFolder, startN8n } from '../test/harness/n8n/runtime';
import { benchTarball } from './lib/n8n';
import { fmt, header, log, median, printTable, runMain, saveResult } from './lib/report';

const STARTS = Number(process.env.BENCH_STARTS ?? 5);
const READY_LINE = 'Editor is now accessible';

/** Bytes and files under a folder (apparent sizes), and its disk usage in KiB as `du -sk` reports it. */
function folderSize(dir: string): { bytes: number; files: number; diskKiB: number } {
	let bytes = 0;
	let files = 0;
	const walk = (at: string) => {
		for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
			const full = path.join(at, entry.name);
			if (entry.isDirectory()) walk(full);
			else if (entry.isFile()) {
				bytes += fs.statSync(full).size;
				files++;
			}
		}
	};
	walk(dir);
	const diskKiB = Number(execFileSync('du', ['-sk', dir], { encoding: 'utf8' }).split('\t')[0]);
	return { bytes, files, diskKiB };
}

/** The tarball's entries: count and summed sizes (what the package unpacks to). */
function tarballContents(tarball: string): { files: number; unpackedBytes: number } {
	const listing = execFileSync('tar', ['-tvzf', tarball], { encoding: 'utf8' }).trim().split('\n');
	const files = listing.filter((line) => line.startsWith('-'));
	return {
		files: files.length,
		unpackedBytes: files.reduce((sum, line) => sum + Number(line.split(/\s+/)[2]), 0),
	};
}

/** Resident memory (MiB) of the n8n process: the child of the runtime's small watchdog process. */
function n8nRssMiB(watchdogPid: number): number {
	try {
		const children = fs
			.readFileSync(`/proc/${watchdogPid}/task/${watchdogPid}/children`, 'utf8')
			.trim()
			.split(/\s+/)
			.map(Number);
		const status = fs.readFileSync(`/proc/${children[0]}/status`, 'utf8');
		return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]) / 1024;
	} catch {
		return NaN;
	}
}

/** Starts n8n on `userFolder`, returns ms until its ready log line and its memory then, and stops it. */
async function timedStart(userFolder: string): Promise<{ startupMs: number; rssMiB: number }> {
	const logFile = path.join(userFolder, 'n8n.log');
	const offset = fs.existsSync(logFile) ? fs.statSync(logFile).size : 0;
	const launched = Date.now();
	const n8n = await startN8n({ userFolder, log: () => undefined });
	try {
		const rssMiB = n8nRssMiB(n8n.pid);
		const lines = fs.readFileSync(logFile).subarray(offset).toString('utf8').split('\n');
		const ready = lines
			.map((line) => {
				try {
					return JSON.parse(line) as { message?: string; metadata?: { timestamp?: string } };
				} catch {
					return undefined;
				}
			})
			.find((entry) => entry?.message?.includes(READY_LINE));
		if (!ready?.metadata?.timestamp) throw new Error(`no "${READY_LINE}" line in ${logFile}`);
		return { startupMs: Date.parse(ready.metadata.timestamp) - launched, rssMiB };
	} finally {
		await n8n.stop();
	}
}

async function main(): Promise<void> {
	const machine = header(
		'footprint',
		`Packed and installed size, runtime dependencies, and n8n start-up time with and without the package (median of ${STARTS} starts each).`,
	);
	const tarball = await benchTarball();
	const packed = fs.statSync(tarball).size;
	const contents = tarballContents(tarball);
	const manifest = JSON.parse(
		execFileSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' }),
	) as {
		dependencies?: Record<string, string>;
	};
	const runtimeDependencies = Object.keys(manifest.dependencies ?? {});

	const withPackage = fs.mkdtempSync(path.join(os.tmpdir(), 'bgc-bench-footprint-with-'));
	const without = fs.mkdtempSync(path.join(os.tmpdir(), 'bgc-bench-footprint-without-'));
	try {
		const packageDir = await installPackageIntoUserFolder(withPackage, { tarball, log });
		const installed = folderSize(packageDir);
		const nestedModules = fs.existsSync(path.join(packageDir, 'node_modules'))
			? fs.readdirSync(path.join(packageDir, 'node_modules'))
			: [];
		const siblings = fs
			.readdirSync(path.join(withPackage, '.n8n', 'nodes', 'node_modules'))
			.filter((name) => !name.startsWith('.'));

		log('first start of each user folder (database migrations, owner): not counted');
		await timedStart(withPackage);
		await timedStart(without);
		const times = { with: [] as number[], without: [] as number[] };
		const memory = { with: [] as number[], without: [] as number[] };
		for (let round = 0; round < STARTS; round++) {
			const order: Array<'with' | 'without'> =
				round % 2 === 0 ? ['with', 'without'] : ['without', 'with'];
			for (const which of order) {
				const result = await timedStart(which === 'with' ? withPackage : without);
				times[which].push(result.startupMs);
				memory[which].push(result.rssMiB);
				log(
					`start ${round + 1}/${STARTS} ${which} the package: ${result.startupMs} ms, ${fmt(result.rssMiB)} MiB`,
				);
			}
		}

		printTable(
			['figure', 'value'],
			[
				[
					'packed tarball (npm pack)',
					`${fmt(packed / 1024, 1)} KiB (${contents.files} files, ${fmt(contents.unpackedBytes / 1024, 1)} KiB unpacked)`,
				],
				[
					'installed by n8n (nodes/node_modules/<package>)',
					`${fmt(installed.bytes / 1024, 1)} KiB in ${installed.files} files (${installed.diskKiB} KiB on disk)`,
				],
				[
					'runtime dependencies',
					`${runtimeDependencies.length}${runtimeDependencies.length ? ` (${runtimeDependencies.join(', ')})` : ''}; packages installed with it: ${nestedModules.length + siblings.length - 1}`,
				],
			],
		);
		printTable(
			[
				'n8n start-up (spawn to "Editor is now accessible")',
				'median (s)',
				'min-max (s)',
				'n8n RSS after start, median (MiB)',
			],
			(['without', 'with'] as const).map((which) => [
				`${which} the package`,
				fmt(median(times[which]) / 1000, 2),
				`${fmt(Math.min(...times[which]) / 1000, 2)}-${fmt(Math.max(...times[which]) / 1000, 2)}`,
				fmt(median(memory[which])),
			]),
		);
		const difference = median(times.with) - median(times.without);
		console.log(
			`start-up difference (median with - median without): ${difference >= 0 ? '+' : ''}${fmt(difference)} ms`,
		);
		saveResult('footprint', {
			machine,
			packedBytes: packed,
			tarball: contents,
			installed,
			runtimeDependencies,
			packagesInstalledWithIt: nestedModules.length + siblings.length - 1,
			startupMs: times,
			rssMiB: memory,
			medianStartupMs: { with: median(times.with), without: median(times.without) },
		});
		if (runtimeDependencies.length > 0) process.exitCode = 1;
	} finally {
		fs.rmSync(withPackage, { recursive: true, force: true });
		fs.rmSync(without, { recursive: true, force: true });
	}
}

runMain(main);
