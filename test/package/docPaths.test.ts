/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- repository tooling: runs in Node.js, never inside n8n */
/**
 * The docs point at files that exist: every repository path in backticks and every relative link in the
 * README, CONTRIBUTING, the changelog, docs/ and the sandbox's README, so that a newcomer following them finds
 * the file (a rename that forgets a doc fails here). And the README backs what it says: each of its sections
 * ends with the tests that show it (this replaced a hand-kept list of the README's claims in CONTRIBUTING).
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
	'CHANGELOG.md',
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

describe('the README', () => {
	const readme = readFileSync(join(root, 'README.md'), 'utf8');
	// Sections that state nothing of their own: links to other documents, and how to work on the repository.
	const NO_CLAIMS = ['More', 'Contributing'];
	const sections = readme
		.split(/^## /m)
		.slice(1)
		.map((text): [string, string] => [text.split('\n')[0], text]);

	it('has the sections a user looks for', () => {
		expect(sections.map(([title]) => title)).toEqual(
			expect.arrayContaining([
				'Install in n8n',
				'Credentials',
				'Background Check node',
				'Background Check Trigger',
				'Example workflows',
				'Troubleshooting',
			]),
		);
		expect(readme.split('\n').length).toBeLessThanOrEqual(320);
	});

	it.each(sections.filter(([title]) => !NO_CLAIMS.includes(title)))(
		'"%s" names the tests that show what it says',
		(_title, text) => {
			const tested = text.slice(text.lastIndexOf('\nTested: '));
			expect(tested).toMatch(/^\nTested: /);
			expect([...tested.matchAll(/`(test\/[^`\s]+)`/g)].length).toBeGreaterThan(0);
		},
	);
});
