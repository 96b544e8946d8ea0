/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- repository tooling: runs in Node.js, never inside n8n */
/**
 * One real n8n per test file: the pinned runtime, this repo's packed package installed the way n8n
 * installs a community package, an owner account and a public-API key.
 *
 *   let n8n: TestN8n;
 *   beforeAll(async () => { n8n = await startTestN8n('my-suite'); }, 180_000);
 *   afterAll(() => n8n?.stop());
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import {
	installPackageIntoUserFolder,
	packRepo,
	startN8n,
	type N8nInstance,
	type StartN8nOptions,
} from './n8n/runtime';
import { httpRequest } from './n8n/http';
import { N8nApi } from './n8nApi';

export const REPO_DIR = path.resolve(__dirname, '..', '..');
/** Logs of e2e runs (each user folder's n8n.log, copied when it stops); git-ignored. */
export const ARTIFACTS_DIR = path.join(REPO_DIR, 'test-artifacts', 'n8n');
/** User folders live outside the repository, as a user's do (why: startUserFolder in n8n/runtime.ts). */
export const USER_FOLDERS_DIR = path.join(os.tmpdir(), 'bgc-n8n-user-folders');
export interface PackageJson {
	name: string;
	version: string;
	n8n: { credentials: string[]; nodes: string[] };
}

/**
 * package.json of the package under test: read from the tarball in $BGC_E2E_TARBALL (set by the
 * global setup, so what n8n gets is what is asserted), else this repo's.
 */
const packedJson = new Map<string, PackageJson>();
export function packageJsonUnderTest(): PackageJson {
	const tarball = process.env.BGC_E2E_TARBALL;
	if (tarball && packedJson.has(tarball)) return packedJson.get(tarball)!;
	if (tarball && fs.existsSync(tarball)) {
		const out = spawnSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' });
		if (out.status === 0) {
			packedJson.set(tarball, JSON.parse(out.stdout) as PackageJson);
			return packedJson.get(tarball)!;
		}
	}
	return JSON.parse(fs.readFileSync(path.join(REPO_DIR, 'package.json'), 'utf8')) as PackageJson;
}

export interface TestN8n extends N8nInstance {
	api: N8nApi;
	/** n8n's log so far (stdout + stderr, JSON lines). */
	readLog(): string;
	/** GET /types/nodes.json (owner session): every node type description n8n loaded (about 15 MB). */
	loadedNodeTypes(): Promise<
		Array<{ name: string; version: number | number[]; [k: string]: unknown }>
	>;
	/** GET /types/node-versions.json (owner session, small): names of every node type n8n loaded. */
	loadedNodeTypeNames(): Promise<string[]>;
	/** GET /types/credentials.json (owner session): every credential type n8n loaded. */
	loadedCredentialTypes(): Promise<Array<{ name: string; [k: string]: unknown }>>;
	/** A /rest call with the owner's session cookie; returns status and parsed body. */
	rest(method: string, restPath: string, body?: unknown): Promise<{ status: number; body: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any
	/**
	 * Stop this n8n and start it again on the same user folder (database, installed package) and port,
	 * as after a server restart; active workflows are activated again by n8n. Use the returned instance
	 * from then on (new API key and session). `env` is added to this instance's environment for the new start.
	 */
	restart(env?: Record<string, string>): Promise<TestN8n>;
}

let packing: Promise<string> | undefined;

/**
 * The packed tarball of this repo: $BGC_E2E_TARBALL (set by the e2e global setup) or a fresh
 * `npm run build && npm pack` of $BGC_E2E_REPO_DIR (default: this repo), once per process.
 */
export function packageTarball(): Promise<string> {
	const fromEnv = process.env.BGC_E2E_TARBALL;
	if (fromEnv && fs.existsSync(fromEnv)) return Promise.resolve(fromEnv);
	packing ??= packRepo({ repoDir: process.env.BGC_E2E_REPO_DIR || REPO_DIR });
	return packing;
}

/** Type names n8n should give the nodes listed in package.json: dist/.../BackgroundCheck.node.js -> <pkg>.backgroundCheck. */
export function expectedNodeTypes(pkg: PackageJson = packageJsonUnderTest()): string[] {
	return (pkg.n8n.nodes ?? []).map((p) => {
		const base = path.basename(p).replace(/\.node\.js$/, '');
		return `${pkg.name}.${base.charAt(0).toLowerCase()}${base.slice(1)}`;
	});
}

/**
 * Start a fresh n8n (new user folder under {@link USER_FOLDERS_DIR}) with the package installed.
 * `stop()` stops it, copies its n8n.log to test-artifacts/n8n/ and removes the user folder (kept with
 * BGC_E2E_KEEP=1).
 */
export async function startTestN8n(
	label: string,
	opts: Omit<StartN8nOptions, 'userFolder'> & { install?: boolean } = {},
	/** Internal (restart): the user folder of a stopped instance to start again. */
	existingUserFolder?: string,
): Promise<TestN8n> {
	const userFolder =
		existingUserFolder ??
		path.join(
			USER_FOLDERS_DIR,
			`${label}-${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}`,
		);
	fs.mkdirSync(userFolder, { recursive: true });
	if (opts.install !== false && !existingUserFolder) {
		await installPackageIntoUserFolder(userFolder, {
			tarball: await packageTarball(),
			log: opts.log,
		});
	}
	const inst = await startN8n({ ...opts, userFolder });
	const api = new N8nApi(inst.baseUrl, inst.apiKey);

	const rest = async (method: string, restPath: string, body?: unknown) => {
		const res = await httpRequest(`${inst.baseUrl}${restPath}`, {
			method,
			headers: {
				cookie: inst.authCookie,
				'browser-id': 'bgc-e2e-harness',
				accept: 'application/json',
			},
			body,
		});
		return { status: res.status, body: res.json as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
	};
	const typesFile = async (file: string) => {
		const r = await rest('GET', `/types/${file}`);
		if (r.status !== 200 || !Array.isArray(r.body))
			throw new Error(`GET /types/${file} -> ${r.status}`);
		return r.body;
	};

	const stop = async (timeoutMs?: number, keepUserFolder = false) => {
		await inst.stop(timeoutMs);
		if (keepUserFolder) return;
		fs.mkdirSync(ARTIFACTS_DIR, { recursive: true });
		if (fs.existsSync(inst.logFile))
			fs.copyFileSync(inst.logFile, path.join(ARTIFACTS_DIR, `${path.basename(userFolder)}.log`));
		if (process.env.BGC_E2E_KEEP !== '1') fs.rmSync(userFolder, { recursive: true, force: true });
	};

	return {
		...inst,
		stop,
		api,
		rest,
		readLog: () => fs.readFileSync(inst.logFile, 'utf8'),
		loadedNodeTypes: () => typesFile('nodes.json'),
		loadedNodeTypeNames: async () => {
			const entries = (await typesFile('node-versions.json')) as string[];
			return [...new Set(entries.map((e) => e.replace(/@[^@]*$/, '')))];
		},
		loadedCredentialTypes: () => typesFile('credentials.json'),
		restart: async (env = {}) => {
			await stop(undefined, true);
			return await startTestN8n(
				label,
				{ ...opts, env: { ...opts.env, ...env }, port: inst.port },
				userFolder,
			);
		},
	};
}

const LOCAL_HOST = /(127\.0\.0\.1|localhost|::1|\[::1\])/;
const CONNECTION_ERROR =
	/ENOTFOUND|EAI_AGAIN|ENETUNREACH|EHOSTUNREACH|ECONNREFUSED|ECONNRESET|ETIMEDOUT|getaddrinfo|socket hang up|self[- ]signed certificate|unable to verify the first certificate|certificate has expired/i;

/**
 * Log lines that report a failed connection to somewhere other than this machine (telemetry,
 * version checks, license server, templates, ...). Errors naming 127.0.0.1/localhost are left out:
 * they are about the tests' own servers.
 */
export function findOutboundConnectionErrors(log: string): string[] {
	return log.split('\n').filter((line) => CONNECTION_ERROR.test(line) && !LOCAL_HOST.test(line));
}
