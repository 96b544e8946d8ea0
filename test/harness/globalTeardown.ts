/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- repository tooling: runs in Node.js, never inside n8n */
/** Jest global teardown of the real-n8n suite: remove the tarball folder the global setup made. */
import * as fs from 'node:fs';

export default async function globalTeardown(): Promise<void> {
	const dir = process.env.BGC_E2E_PACK_DIR;
	if (dir && process.env.BGC_E2E_KEEP !== '1') fs.rmSync(dir, { recursive: true, force: true });
}
