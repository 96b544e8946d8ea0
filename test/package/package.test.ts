/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @typescript-eslint/no-require-imports -- repository tooling: runs in Node.js, never inside n8n; loads the built files with require() as n8n does */
/** The package as n8n and npm see it. Reads dist/, so `npm run build` comes first (npm test does). */
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';

const root = join(__dirname, '..', '..');
const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const registered: string[] = [...packageJson.n8n.credentials, ...packageJson.n8n.nodes];

describe('package.json', () => {
	it('is a community node package with no runtime dependencies and no install scripts', () => {
		expect(packageJson.name).toBe('n8n-nodes-background-check');
		expect(packageJson.keywords).toContain('n8n-community-node-package');
		expect(packageJson.license).toBe('MIT');
		expect(packageJson.files).toEqual(['dist']);
		expect(packageJson.dependencies ?? {}).toEqual({});
		expect(packageJson.peerDependencies).toEqual({ 'n8n-workflow': '*' });
		for (const script of ['prepare', 'preinstall', 'install', 'postinstall'])
			expect(packageJson.scripts[script]).toBeUndefined();
		expect(packageJson.n8n.n8nNodesApiVersion).toBe(1);
	});

	it('pins every dev dependency to an exact version', () => {
		for (const [name, version] of Object.entries<string>(packageJson.devDependencies)) {
			expect(`${name}@${version}`).toMatch(/@\d+\.\d+\.\d+$/);
		}
	});
});

describe.each(registered)('%s', (file) => {
	it('loads with require() and its class constructs, under the name n8n will use', () => {
		const path = join(root, file);
		if (!existsSync(path)) throw new Error(`${file} is missing: run npm run build first`);
		const className = basename(file).replace(/\.(node|credentials)\.js$/, '');
		const exported = require(path)[className];
		expect(exported).toEqual(expect.any(Function));
		const instance = new exported();
		const typeName = file.endsWith('.credentials.js') ? instance.name : instance.description.name;
		expect(typeName).toBe(className.charAt(0).toLowerCase() + className.slice(1));
	});

	it('is re-exported by index.js', () => {
		const className = basename(file).replace(/\.(node|credentials)\.js$/, '');
		expect(require(join(root, 'index.js'))[className]).toBe(require(join(root, file))[className]);
	});
});

it('shows users what it showed before: every node and credential description', () => {
	// A change here is a change users see: update the snapshot (`npx jest -u test/package`) only on purpose.
	const shown = registered.map((file) => {
		const instance = new (require(join(root, file))[
			basename(file).replace(/\.(node|credentials)\.js$/, '')
		])();
		return file.endsWith('.credentials.js')
			? { ...instance }
			: { description: instance.description };
	});
	expect(shown).toMatchSnapshot();
});
