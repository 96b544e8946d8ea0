/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error, no-console -- repository tooling: runs in Node.js, never inside n8n */
/**
 * A real npm registry on this machine: Verdaccio on 127.0.0.1, a free port, its storage in a temporary
 * folder, no uplink (it serves only what is published to it), stopped with the process that started it.
 * Packages reach it with `npm publish <tarball>`, as a maintainer publishes.
 *
 * Verdaccio is pinned in test/harness/n8n/verdaccio/package.json (with its lockfile; that file says why it is not a
 * devDependency) and installed once per machine with `npm ci` into
 * ~/.cache/n8n-nodes-background-check/verdaccio-<version>.
 *
 *   const registry = await startLocalRegistry();
 *   await registry.publish(tarball);
 *   ...
 *   await registry.stop();
 *
 * Run directly to publish this repo and keep it serving until Ctrl-C:
 *   npx tsx test/harness/n8n/registry.ts [tarball]
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { httpRequest } from './http';
import {
	cacheRoot,
	getFreePort,
	packRepo,
	runCli,
	spawnSupervised,
	stopOnSignal,
	withLock,
	type Logger,
	type SupervisedProcess,
} from './runtime';

const VERDACCIO_PIN_DIR = path.join(__dirname, 'verdaccio');
/** The account `npm publish` authenticates as (created in the fresh registry, as `npm adduser` does). */
const PUBLISHER = { name: 'bgc-publisher', password: 'bgc-publisher-password-not-a-secret' };

const defaultLog: Logger = (line) => process.stderr.write(`[registry] ${line}\n`);

export interface PackedPackage {
	name: string;
	version: string;
	/** `sha512-<base64>` of the tarball's bytes, as npm records it in `dist.integrity`. */
	integrity: string;
}

export interface LocalRegistry {
	/** Base URL with a trailing slash, e.g. http://127.0.0.1:4873/ */
	url: string;
	port: number;
	/** Verdaccio's output. */
	logFile: string;
	/** The publishing account's token, as `npm adduser` keeps it (`//<host>/:_authToken=`). */
	token: string;
	/** `npm publish <tarball>` to this registry, as the publishing account. */
	publish(tarball: string): Promise<PackedPackage>;
	/** The registry's document for a package (GET /<name>): versions, dist-tags, dist.integrity, ... */
	packument(name: string): Promise<Packument>;
	/** The bytes of a published tarball, fetched from the URL the registry gives in dist.tarball. */
	tarballBytes(name: string, version: string): Promise<Buffer>;
	/** Stops Verdaccio and removes its folder (storage, config, log) unless `keep`. */
	stop(opts?: { keep?: boolean }): Promise<void>;
}

export interface Packument {
	name: string;
	'dist-tags': Record<string, string>;
	versions: Record<
		string,
		{ version: string; dist: { tarball: string; integrity: string; shasum: string } }
	>;
}

/** sha512 integrity (npm's `dist.integrity` form) of bytes. */
export function integrityOf(bytes: Buffer): string {
	return `sha512-${createHash('sha512').update(bytes).digest('base64')}`;
}

/** Name and version in a tarball's package.json, and the tarball's integrity. */
export function readPackedPackage(tarball: string): PackedPackage {
	const out = spawnSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' });
	if (out.status !== 0) throw new Error(`cannot read package.json in ${tarball}: ${out.stderr}`);
	const { name, version } = JSON.parse(out.stdout) as { name: string; version: string };
	return { name, version, integrity: integrityOf(fs.readFileSync(tarball)) };
}

/** npm's environment without npm_config_* inherited from an enclosing `npm run` (the repo's .npmrc). */
function npmEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k)) env[k] = v;
	return { ...env, ...extra };
}

/**
 * Verdaccio's bin script, installed from the pin (package.json + package-lock.json) on first use; again when
 * the pin changes. Safe to call concurrently (one process installs, the others wait).
 */
export async function ensureVerdaccio(log: Logger = defaultLog): Promise<string> {
	const pin = ['package.json', 'package-lock.json'].map((file) =>
		fs.readFileSync(path.join(VERDACCIO_PIN_DIR, file), 'utf8'),
	);
	const version = (JSON.parse(pin[0]) as { dependencies: { verdaccio: string } }).dependencies
		.verdaccio;
	const pinHash = createHash('sha256').update(pin.join('\0')).digest('hex');
	const home = path.join(cacheRoot(), `verdaccio-${version}`);
	const bin = path.join(home, 'node_modules', 'verdaccio', 'bin', 'verdaccio');
	const marker = path.join(home, '.bgc-verdaccio-installed');
	const installed = () =>
		fs.existsSync(bin) && fs.existsSync(marker) && fs.readFileSync(marker, 'utf8') === pinHash;
	if (installed()) return bin;
	fs.mkdirSync(home, { recursive: true });
	return await withLock(path.join(home, '.bgc-install.lock'), log, async () => {
		if (installed()) return bin;
		const t0 = Date.now();
		log(`installing Verdaccio ${version} into ${home} (once)`);
		for (const file of ['package.json', 'package-lock.json'])
			fs.copyFileSync(path.join(VERDACCIO_PIN_DIR, file), path.join(home, file));
		const ci = spawnSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], {
			cwd: home,
			encoding: 'utf8',
			env: npmEnv(),
		});
		if (ci.status !== 0 || !fs.existsSync(bin))
			throw new Error(`npm ci of Verdaccio in ${home} failed (exit ${ci.status}):\n${ci.stderr}`);
		fs.writeFileSync(marker, pinHash);
		log(`Verdaccio ${version} installed in ${Math.round((Date.now() - t0) / 1000)} s`);
		return bin;
	});
}

function verdaccioConfig(storage: string, htpasswd: string): string {
	// JSON is YAML; Verdaccio reads either.
	return JSON.stringify(
		{
			storage,
			auth: { htpasswd: { file: htpasswd, max_users: 10 } },
			uplinks: {},
			packages: {
				'**': { access: '$all', publish: '$authenticated', unpublish: '$authenticated' },
			},
			web: { enable: false },
			middlewares: { audit: { enabled: false } },
			log: { type: 'stdout', format: 'pretty', level: 'warn' },
			max_body_size: '50mb',
		},
		null,
		2,
	);
}

/**
 * Starts Verdaccio on 127.0.0.1 (a free port) with a fresh storage folder under `dir` (default: a new temp
 * folder), creates the publishing account and waits until the registry answers. Rejects after stopping it
 * when it is not ready within 60 s.
 */
export async function startLocalRegistry(
	opts: { dir?: string; log?: Logger } = {},
): Promise<LocalRegistry> {
	const log = opts.log ?? defaultLog;
	const verdaccioBin = await ensureVerdaccio(log);
	const dir = opts.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'bgc-registry-'));
	fs.mkdirSync(dir, { recursive: true });
	const configFile = path.join(dir, 'config.yaml');
	fs.writeFileSync(
		configFile,
		verdaccioConfig(path.join(dir, 'storage'), path.join(dir, 'htpasswd')),
	);
	const port = await getFreePort();
	const url = `http://127.0.0.1:${port}/`;
	const logFile = path.join(dir, 'verdaccio.log');
	const t0 = Date.now();
	const child: SupervisedProcess = spawnSupervised(
		process.execPath,
		[verdaccioBin, '--config', configFile, '--listen', `127.0.0.1:${port}`],
		{ cwd: dir, env: npmEnv(), logFile },
	);
	const stop = async ({ keep = false } = {}) => {
		await child.stop(5_000);
		if (!keep && process.env.BGC_E2E_KEEP !== '1') fs.rmSync(dir, { recursive: true, force: true });
	};

	let token: string | undefined;
	try {
		for (;;) {
			const exited = child.exited();
			if (exited)
				throw new Error(
					`Verdaccio exited during start-up (${exited.code ?? exited.signal}); see ${logFile}`,
				);
			if (Date.now() - t0 > 60_000) throw new Error(`Verdaccio not ready in 60 s; see ${logFile}`);
			const ping = await httpRequest(`${url}-/ping`, { timeoutMs: 2_000 }).catch(() => undefined);
			if (ping?.status === 200) break;
			await new Promise((resolve) => setTimeout(resolve, 200));
		}
		// What `npm adduser` sends; the answer holds the token npm then keeps in its .npmrc.
		const added = await httpRequest(`${url}-/user/org.couchdb.user:${PUBLISHER.name}`, {
			method: 'PUT',
			body: { name: PUBLISHER.name, password: PUBLISHER.password, type: 'user', roles: [] },
		});
		token = (added.json as { token?: string } | undefined)?.token;
		if (added.status !== 201 || !token)
			throw new Error(`creating the publishing account: ${added.status} ${added.text}`);
	} catch (e) {
		await stop({ keep: true });
		throw e;
	}
	log(`Verdaccio on ${url} in ${((Date.now() - t0) / 1000).toFixed(1)} s (folder ${dir})`);

	// The publisher's npm configuration, as `npm adduser --registry <url>` leaves it.
	const userconfig = path.join(dir, 'publisher.npmrc');
	fs.writeFileSync(userconfig, `registry=${url}\n//127.0.0.1:${port}/:_authToken=${token}\n`);

	const packument = async (name: string): Promise<Packument> => {
		const answer = await httpRequest(`${url}${encodeURIComponent(name)}`, {
			headers: { accept: 'application/json' },
		});
		if (answer.status !== 200)
			throw new Error(`GET ${url}${name}: ${answer.status} ${answer.text}`);
		return answer.json as Packument;
	};

	return {
		url,
		port,
		logFile,
		token: token!,
		async publish(tarball) {
			const packed = readPackedPackage(tarball);
			const published = spawnSync(
				'npm',
				['publish', path.resolve(tarball), '--userconfig', userconfig, '--registry', url],
				{
					cwd: dir,
					encoding: 'utf8',
					env: npmEnv({ npm_config_cache: path.join(dir, 'npm-cache') }),
				},
			);
			if (published.status !== 0)
				throw new Error(
					`npm publish ${tarball} failed (exit ${published.status}):\n${published.stdout}\n${published.stderr}`,
				);
			log(`published ${packed.name}@${packed.version}`);
			return packed;
		},
		packument,
		async tarballBytes(name, version) {
			const { dist } = (await packument(name)).versions[version];
			const answer = await httpRequest(dist.tarball);
			if (answer.status !== 200) throw new Error(`GET ${dist.tarball}: ${answer.status}`);
			return answer.raw;
		},
		stop,
	};
}

/**
 * The same package at another version: the tarball unpacked, `npm version <version>` in it (the version
 * field, nothing else), packed again with `npm pack`. Returns the new tarball's path (in destDir).
 */
export function withVersion(tarball: string, version: string, destDir: string): string {
	const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bgc-bump-'));
	try {
		const untar = spawnSync('tar', ['-xzf', path.resolve(tarball), '-C', work], {
			encoding: 'utf8',
		});
		if (untar.status !== 0) throw new Error(`unpacking ${tarball}: ${untar.stderr}`);
		const packageDir = path.join(work, 'package');
		const env = npmEnv({ npm_config_ignore_scripts: 'true' });
		const bumped = spawnSync('npm', ['version', version, '--no-git-tag-version'], {
			cwd: packageDir,
			encoding: 'utf8',
			env,
		});
		if (bumped.status !== 0) throw new Error(`npm version ${version}: ${bumped.stderr}`);
		fs.mkdirSync(destDir, { recursive: true });
		const packed = spawnSync('npm', ['pack', '--json', '--pack-destination', destDir], {
			cwd: packageDir,
			encoding: 'utf8',
			env,
		});
		if (packed.status !== 0) throw new Error(`npm pack in ${packageDir}: ${packed.stderr}`);
		const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as Array<{
			filename: string;
		}>;
		return path.join(destDir, info.filename);
	} finally {
		fs.rmSync(work, { recursive: true, force: true });
	}
}

if (require.main === module) {
	runCli(async () => {
		const tarball = process.argv[2] ?? (await packRepo());
		const registry = await startLocalRegistry();
		const packed = await registry.publish(tarball);
		console.log(
			JSON.stringify({ registry: registry.url, published: `${packed.name}@${packed.version}` }),
		);
		stopOnSignal(() => registry.stop());
	});
}
