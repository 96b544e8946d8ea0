#!/usr/bin/env node
// Lints the package the way n8n's community package scanner does (@n8n/scan-community-package):
// its own ESLint config, inline eslint-disable comments ignored, over the sources (package.json,
// nodes/, credentials/) and over the packed tarball's compiled JavaScript. Run `npm run build` first.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { analyzePackage, SOURCE_FILE_PATTERNS } from '@n8n/scan-community-package/scanner/scanner.mjs';

const root = resolve(import.meta.dirname, '..');
const work = mkdtempSync(join(tmpdir(), 'bgc-lint-'));
let failed = false;
try {
	const source = await analyzePackage(root, SOURCE_FILE_PATTERNS);
	report('sources (package.json, nodes/, credentials/)', source);

	execFileSync('npm', ['pack', '--silent', '--pack-destination', work], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
	const tarball = readdirSync(work).find((file) => file.endsWith('.tgz'));
	const unpacked = join(work, 'package');
	execFileSync('tar', ['-xzf', join(work, tarball), '-C', work]);
	const dist = await analyzePackage(unpacked, ['**/*.js', 'package.json']);
	report(`packed tarball (${tarball})`, dist);
} finally {
	rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);

function report(label, result) {
	if (result.passed) {
		console.log(`lint: ${label}: no errors`);
		if (result.details) console.log(result.details);
		return;
	}
	failed = true;
	console.error(`lint: ${label}: ${result.message}`);
	if (result.details) console.error(result.details);
}
