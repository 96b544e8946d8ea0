/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- repository tooling: runs in Node.js, never inside n8n */
/**
 * One real n8n for a benchmark: the pinned runtime (test/harness/n8n/runtime.ts), this repo built, packed and
 * installed the way n8n installs a community package, in a temporary user folder that is removed on stop.
 * Loopback only (the runtime's quiet environment listens on 127.0.0.1).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { N8nApi } from '../../test/harness/n8n/publicApi';
import {
	installPackageIntoUserFolder,
	packRepo,
	startN8n,
	type N8nInstance,
} from '../../test/harness/n8n/runtime';
import { log } from './report';

let packed: Promise<string> | undefined;

/** `npm run build && npm pack` of this repo, once per process ($BGC_BENCH_TARBALL to use a given tarball). */
export function benchTarball(): Promise<string> {
	const given = process.env.BGC_BENCH_TARBALL;
	if (given && fs.existsSync(given)) return Promise.resolve(given);
	if (!packed) {
		const destDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bgc-bench-pack-'));
		process.once('exit', () => fs.rmSync(destDir, { recursive: true, force: true }));
		packed = packRepo({ destDir, log });
	}
	return packed;
}

export interface BenchN8n extends N8nInstance {
	api: N8nApi;
	/** Stops n8n and removes its user folder. */
	stop(): Promise<void>;
}

export async function startBenchN8n(
	label: string,
	opts: { install?: boolean; env?: Record<string, string> } = {},
): Promise<BenchN8n> {
	const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), `bgc-bench-${label}-`));
	try {
		if (opts.install !== false)
			await installPackageIntoUserFolder(userFolder, { tarball: await benchTarball(), log });
		const instance = await startN8n({ userFolder, log, env: opts.env });
		return {
			...instance,
			api: new N8nApi(instance.baseUrl, instance.apiKey),
			stop: async () => {
				await instance.stop();
				fs.rmSync(userFolder, { recursive: true, force: true });
			},
		};
	} catch (error) {
		fs.rmSync(userFolder, { recursive: true, force: true });
		throw error;
	}
}
