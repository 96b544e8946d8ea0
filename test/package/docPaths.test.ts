/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- repository tooling: runs in Node.js, never inside n8n */
/**
 * The docs point at files that exist: every repository path in backticks and every relative link in the
 * README, CONTRIBUTING, docs/ and the sandbox's README, so that a newcomer following them finds the file (a
 * rename that forgets a doc fails here).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const root = join(__dirname, '..', '..');
const TOP_FOLDERS = [
	'test/',
	'nodes/',
	'credentials/',
	'sandbox/',
	'scripts/',
	'bench/',
	'docs/',
	'examples/',
	'api/',
	'.ci/',
	'.github/',
];
const DOCS = [
	'README.md',
	'CONTRIBUTING.md',
	'sandbox/README.md',
	...readdirSync(join(root, 'docs'))
		.filter((name) => name.endsWith('.md'))
		.map((name) => `docs/${name}`),
];

/** Repository paths a doc names: `path` in backticks (no placeholders), and relative Markdown links. */
function pathsIn(doc: string): string[] {
	const text = readFileSync(join(root, doc), 'utf8');
	const quoted = [...text.matchAll(/`([^`\s]+)`/g)]
		.map(([, token]) => token.replace(/[.,:;]+$/, ''))
		.filter((token) => TOP_FOLDERS.some((folder) => token.startsWith(folder)))
		.filter((token) => !/[<>*{}]/.test(token))
		.map((token) => token.split('#')[0].split(':')[0]);
	const linked = [...text.matchAll(/\]\(([^)#\s]+)/g)]
		.map(([, target]) => target)
		.filter((target) => !/^[a-z]+:/.test(target))
		.map((target) => join(dirname(doc), target));
	return [...quoted, ...linked];
}

describe('paths named in the docs', () => {
	it.each(DOCS)('%s names only files and folders that exist', (doc) => {
		const missing = pathsIn(doc).filter((path) => !existsSync(join(root, path)));
		expect(missing).toEqual([]);
	});
});
