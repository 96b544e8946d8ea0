#!/usr/bin/env node
// `npm run lint`: n8n's own lint, then n8n's community package scanner. Run `npm run build` first.
// 1. `n8n-node lint` (@n8n/node-cli): ESLint with the CLI's config over the repository; in strict mode it also
//    checks that eslint.config.mjs is the one the CLI generates (the Cloud-eligibility condition).
// 2. The tree is formatted with prettier and n8n's settings (.prettierrc.js; `npm run format` formats it).
// 3. No inline eslint-disable in nodes/ or credentials/: n8n's verification ignores them, so neither may we.
// 4. The scanner's rules (@n8n/scan-community-package: its own ESLint config, inline disables ignored) over the
//    sources (package.json, nodes/, credentials/) and over the packed tarball's compiled JavaScript.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
	analyzePackage,
	SOURCE_FILE_PATTERNS,
} from '@n8n/scan-community-package/scanner/scanner.mjs';

const root = resolve(import.meta.dirname, '..');
let failed = false;

const n8nLint = spawnSync(join(root, 'node_modules', '.bin', 'n8n-node'), ['lint'], {
	cwd: root,
	stdio: 'inherit',
});
if (n8nLint.status === 0) console.log('lint: n8n-node lint: no errors');
else {
	failed = true;
	console.error(`lint: n8n-node lint failed (exit ${n8nLint.status ?? n8nLint.signal})`);
}

const prettier = spawnSync(join(root, 'node_modules', '.bin', 'prettier'), ['--check', '.'], {
	cwd: root,
	stdio: ['ignore', 'ignore', 'inherit'],
});
if (prettier.status === 0) console.log('lint: prettier: the tree is formatted');
else {
	failed = true;
	console.error('lint: prettier: the files above are not formatted: run npm run format');
}

const disabled = ['nodes', 'credentials'].flatMap((folder) =>
	readdirSync(join(root, folder), { recursive: true })
		.map((file) => join(folder, String(file)))
		.filter(
			(file) =>
				file.endsWith('.ts') && readFileSync(join(root, file), 'utf8').includes('eslint-disable'),
		),
);
if (disabled.length === 0) console.log('lint: no eslint-disable in nodes/ or credentials/');
else {
	failed = true;
	console.error(
		`lint: eslint-disable in ${disabled.join(', ')}: n8n's verification ignores it; fix the code instead`,
	);
}

const work = mkdtempSync(join(tmpdir(), 'bgc-lint-'));
try {
	const source = await analyzePackage(root, SOURCE_FILE_PATTERNS);
	report('sources (package.json, nodes/, credentials/)', source);

	execFileSync('npm', ['pack', '--silent', '--pack-destination', work], {
		cwd: root,
		stdio: ['ignore', 'ignore', 'inherit'],
	});
	const tarball = readdirSync(work).find((file) => file.endsWith('.tgz'));
	execFileSync('tar', ['-xzf', join(work, tarball), '-C', work]);
	const dist = await analyzePackage(join(work, 'package'), ['**/*.js', 'package.json']);
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
