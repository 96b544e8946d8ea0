/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- repository tooling: runs in Node.js, never inside n8n */
/**
 * The layout shows the architecture. Imports run one way: credentials/ import nothing from nodes/;
 * the two nodes import nothing from each other (what both use lives in nodes/shared/, the request module
 * among it; its parts never import its index); the signature module and the other pure modules have no
 * run-time n8n import.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = join(__dirname, '..', '..');

/** Every relative import of every .ts file under `folder`, resolved to a path from the repository root. */
function importsUnder(folder: string): Array<{ file: string; target: string }> {
	return readdirSync(join(root, folder), { recursive: true })
		.map(String)
		.filter((file) => file.endsWith('.ts'))
		.flatMap((file) => {
			const path = join(root, folder, file);
			const source = readFileSync(path, 'utf8');
			return [...source.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)].map(([, specifier]) => ({
				file: relative(root, path),
				target: specifier.startsWith('.')
					? relative(root, resolve(dirname(path), specifier))
					: specifier,
			}));
		});
}

describe('the direction of imports', () => {
	it('credentials/ import nothing from nodes/', () => {
		const imports = importsUnder('credentials');
		expect(imports.length).toBeGreaterThan(0);
		expect(imports.filter(({ target }) => target.startsWith('nodes/'))).toEqual([]);
	});

	it('the action node and the trigger import nothing from each other', () => {
		const across = [
			...importsUnder('nodes/BackgroundCheck').filter(({ target }) =>
				target.startsWith('nodes/BackgroundCheckTrigger'),
			),
			...importsUnder('nodes/BackgroundCheckTrigger').filter(({ target }) =>
				/^nodes\/BackgroundCheck(\/|$)/.test(target),
			),
		];
		expect(across).toEqual([]);
	});

	it('nodes/shared/ imports no node, and the request module both nodes use lives there', () => {
		expect(
			importsUnder('nodes/shared').filter(({ target }) => /^nodes\/BackgroundCheck/.test(target)),
		).toEqual([]);
		const users = new Set(
			[...importsUnder('nodes/BackgroundCheck'), ...importsUnder('nodes/BackgroundCheckTrigger')]
				.filter(({ target }) => target === 'nodes/shared/transport')
				.map(({ file }) => file.split('/')[1]),
		);
		expect(users).toEqual(new Set(['BackgroundCheck', 'BackgroundCheckTrigger']));
	});

	it('the parts of the request module do not import its index (index.ts imports them)', () => {
		expect(
			importsUnder('nodes/shared/transport').filter(
				({ file, target }) =>
					!file.endsWith('/index.ts') &&
					(target === 'nodes/shared/transport' || target === 'nodes/shared/transport/index'),
			),
		).toEqual([]);
	});

	it.each([
		'nodes/shared/webhookSignature.ts',
		'nodes/shared/transport/paths.ts',
		'nodes/shared/transport/redaction.ts',
		'nodes/shared/transport/apiErrors.ts',
		'nodes/BackgroundCheckTrigger/verification.ts',
		'nodes/BackgroundCheckTrigger/event.ts',
	])('%s is pure: no run-time import from n8n', (file) => {
		const source = readFileSync(join(root, file), 'utf8');
		expect(
			[...source.matchAll(/^import (?!type )[^;]*?from '([^']+)'/gms)]
				.map(([, specifier]) => specifier)
				.filter((specifier) => specifier.includes('n8n')),
		).toEqual([]);
	});
});
