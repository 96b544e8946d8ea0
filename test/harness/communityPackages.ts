/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- repository tooling: runs in Node.js, never inside n8n */
/**
 * The package as users get it: published to a real npm registry on this machine (test/harness/n8n/registry.ts),
 * and an n8n without it that reaches that registry where it looks for packages, https://registry.npmjs.org
 * (test/harness/n8n/registryRoute.ts says why through a proxy), and installs, updates and uninstalls it through
 * its own REST calls, the ones its Settings > Community Nodes page makes.
 *
 *   const published = await startPublishedPackage('label');
 *   const n8n = await startTestN8n('label', communityNodesN8n(published));
 *   await communityPackages(n8n).install(PACKAGE);
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import {
	readPackedPackage,
	startLocalRegistry,
	withVersion,
	type LocalRegistry,
	type PackedPackage,
} from './n8n/registry';
import { routeNpmjsTo, type RegistryRoute } from './n8n/registryRoute';
import { packageTarball, type TestN8n } from './n8nInstance';

export interface PublishedPackage {
	registry: LocalRegistry;
	route: RegistryRoute;
	/** The tarball `npm pack` built, and what it holds. */
	tarball: string;
	packed: PackedPackage;
	/** A folder for more tarballs (removed by stop). */
	workDir: string;
	stop(): Promise<void>;
}

/**
 * Starts the registry, publishes the package under test (or the tarball `from`, an earlier version) to it, and
 * routes registry.npmjs.org there.
 */
export async function startPublishedPackage(
	label: string,
	from?: string,
): Promise<PublishedPackage> {
	const workDir = fs.mkdtempSync(path.join(os.tmpdir(), `bgc-${label}-`));
	const registry = await startLocalRegistry({ dir: path.join(workDir, 'registry') });
	let route: RegistryRoute | undefined;
	try {
		const tarball = from ?? (await packageTarball());
		const packed = await registry.publish(tarball);
		route = await routeNpmjsTo(registry.url, path.join(workDir, 'route'));
		const started = route;
		return {
			registry,
			route,
			tarball,
			packed,
			workDir,
			stop: async () => {
				await started.stop();
				await registry.stop();
				if (process.env.BGC_E2E_KEEP !== '1') fs.rmSync(workDir, { recursive: true, force: true });
			},
		};
	} catch (e) {
		await route?.stop();
		await registry.stop();
		throw e;
	}
}

/**
 * startTestN8n options for an n8n with Community Nodes on (n8n's default; the suites' quiet environment
 * turns it off), no package preinstalled, and registry.npmjs.org routed to the local registry.
 */
export function communityNodesN8n(published: PublishedPackage) {
	return {
		install: false,
		env: { N8N_COMMUNITY_PACKAGES_ENABLED: 'true', ...published.route.env },
	};
}

export interface InstalledPackage {
	packageName: string;
	installedVersion: string;
	authorName?: string;
	authorEmail?: string;
	installedNodes: Array<{ name: string; type: string; latestVersion: number }>;
	updateAvailable?: string;
	failedLoading?: boolean;
}

interface RestAnswer<T> {
	status: number;
	/** n8n's `data` on success. */
	data?: T;
	/** n8n's error message otherwise. */
	message?: string;
}

/** n8n's community-packages REST calls, as the Settings page makes them (owner session). */
export function communityPackages(n8n: TestN8n) {
	const call = async <T>(method: string, query: string, body?: unknown): Promise<RestAnswer<T>> => {
		const answer = await n8n.rest(method, `/rest/community-packages${query}`, body);
		return { status: answer.status, data: answer.body?.data, message: answer.body?.message };
	};
	return {
		/** Settings > Community Nodes > Install: POST /rest/community-packages { name } */
		install: (name: string) => call<InstalledPackage>('POST', '', { name }),
		/** The Update button: PATCH /rest/community-packages { name } */
		update: (name: string) => call<InstalledPackage>('PATCH', '', { name }),
		/** Uninstall: DELETE /rest/community-packages?name= */
		uninstall: (name: string) => call<unknown>('DELETE', `?name=${encodeURIComponent(name)}`),
		/** The list the page shows (with updateAvailable from `npm outdated`). */
		list: () => call<InstalledPackage[]>('GET', ''),
	};
}

/**
 * The package at the next patch version, published to the registry: the same code (a real bump), or `tarball`'s
 * (this repository's, after an earlier version).
 */
export async function publishNextPatch(
	published: PublishedPackage,
	tarball = published.tarball,
): Promise<PackedPackage> {
	const [major, minor, patch] = published.packed.version.split('.').map(Number);
	const next = withVersion(
		tarball,
		`${major}.${minor}.${patch + 1}`,
		path.join(published.workDir, 'next'),
	);
	const packed = readPackedPackage(next);
	await published.registry.publish(next);
	return packed;
}

/**
 * n8n's log lines (JSON, one per line) at level warn or error that mention the package, its node types or
 * its credential types.
 */
export function packageWarnings(log: string, packageName: string): string[] {
	return log
		.split('\n')
		.filter((line) => /"level":"(warn|error)"/.test(line) || /\b(WARN|ERROR)\b/.test(line))
		.filter((line) => line.includes(packageName) || /backgroundCheck/i.test(line));
}
