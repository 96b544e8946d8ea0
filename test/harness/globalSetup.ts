/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- repository tooling: runs in Node.js, never inside n8n */
/**
 * Jest global setup of the real-n8n suite: install the pinned n8n runtime (once per machine, 2-5
 * minutes; instant afterwards) and build + pack this repo once for all test files. Test files read
 * the tarball from $BGC_E2E_TARBALL (see n8nInstance.packageTarball).
 *
 * $BGC_E2E_TARBALL set beforehand: use that tarball, do not build.
 * $BGC_E2E_REPO_DIR: pack another checkout (e.g. a clean `git worktree`) instead of this repo.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { ensureN8nRuntime, packRepo } from './n8n/runtime';

export default async function globalSetup(): Promise<void> {
	const t0 = Date.now();
	const log = (line: string) => process.stderr.write(`[e2e setup] ${line}\n`);
	await ensureN8nRuntime({ log });
	const given = process.env.BGC_E2E_TARBALL;
	if (given && fs.existsSync(given)) {
		log(`using ${given}`);
	} else {
		const destDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bgc-e2e-pack-'));
		process.env.BGC_E2E_PACK_DIR = destDir; // removed by globalTeardown
		const repoDir = process.env.BGC_E2E_REPO_DIR || path.resolve(__dirname, '..', '..');
		process.env.BGC_E2E_TARBALL = await packRepo({ repoDir, destDir, log });
	}
	log(`ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}
