/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- repository tooling: runs in Node.js, never inside n8n */
/** The two pinned n8n runtimes, the dev dependencies the package type-checks against, and what the README and package.json say. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { readRuntimePins } from './runtime';

const root = join(__dirname, '..', '..', '..');
const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const { oldest, newest } = readRuntimePins();

describe('test/harness/n8n/runtimes.json', () => {
	it('pins exact n8n, n8n-workflow and Node.js versions, the newest with the date it was checked', () => {
		for (const pin of [oldest, newest]) {
			expect(pin.n8n).toMatch(/^\d+\.\d+\.\d+$/);
			expect(pin.n8nWorkflow).toMatch(/^\d+\.\d+\.\d+$/);
		}
		expect(oldest.node).toBe('system');
		expect(newest.node).toMatch(/^\d+\.\d+\.\d+$/);
		expect(newest.checked).toMatch(/^\d{4}-\d{2}-\d{2}$/);
	});

	it('matches the n8n-workflow dev dependencies the package type-checks against', () => {
		expect(packageJson.devDependencies['n8n-workflow']).toBe(oldest.n8nWorkflow);
		expect(packageJson.devDependencies['n8n-workflow-newest']).toBe(
			`npm:n8n-workflow@${newest.n8nWorkflow}`,
		);
	});

	it('agrees with package.json engines (the oldest runtime needs Node.js 20.19) and the README', () => {
		const oldestNodeFloor = /^>=(\d+\.\d+)/.exec(oldest.nodeRange ?? '')?.[1];
		expect(packageJson.engines.node).toBe(`>=${oldestNodeFloor}`);
		const newestNodeMajor = newest.node.split('.')[0];
		expect(readme).toContain(
			`Tested with n8n ${oldest.n8n} (Node.js ${oldestNodeFloor?.split('.')[0]}) and n8n ${newest.n8n} (Node.js ${newestNodeMajor})`,
		);
	});
});
