/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- repository tooling: runs in Node.js, never inside n8n */
/**
 * Smoke test of the real-n8n harness: n8n 2.8.4 starts with the packed package installed as a
 * community package, loads its types under their real names, runs a workflow through a production
 * webhook, and talks to nothing outside the machine.
 */
import { spawnSync } from 'node:child_process';
import Module from 'node:module';
import * as path from 'node:path';

import { linearWebhookWorkflow, nodeOutput, runWorkflowViaWebhook } from '../harness/n8nApi';
import {
	expectedNodeTypes,
	findOutboundConnectionErrors,
	packageJsonUnderTest,
	startTestN8n,
	type TestN8n,
} from '../harness/n8nInstance';

let n8n: TestN8n;

beforeAll(async () => {
	n8n = await startTestN8n('smoke');
}, 180_000);

afterAll(async () => {
	await n8n?.stop();
});

describe('n8n loads the packed package', () => {
	test('credential type backgroundCheckApi is loaded', async () => {
		const credentialTypes = (await n8n.loadedCredentialTypes()).map((c) => c.name);
		expect(credentialTypes).toContain('backgroundCheckApi');
		// The public API knows it too (it answers 404 for unknown types).
		const schema = await n8n.api.credentialSchema('backgroundCheckApi');
		expect(schema).toHaveProperty('properties');
	});

	const nodeTypes = expectedNodeTypes();
	(nodeTypes.length ? test : test.skip)(
		`node types from package.json are loaded: ${nodeTypes.join(', ') || '(none listed yet)'}`,
		async () => {
			const loaded = await n8n.loadedNodeTypes();
			const names = loaded.map((n) => n.name);
			for (const type of nodeTypes) {
				expect(names).toContain(type);
				expect(loaded.find((n) => n.name === type)).toHaveProperty('displayName');
			}
			// Loaded as an installed package, not through N8N_CUSTOM_EXTENSIONS.
			expect(names.filter((n) => n.startsWith('CUSTOM.'))).toEqual([]);
		},
	);

	test('no node of the package is loaded that package.json does not list', async () => {
		const prefix = `${packageJsonUnderTest().name}.`;
		const ours = (await n8n.loadedNodeTypeNames()).filter((n) => n.startsWith(prefix));
		// n8n adds a "<name>Tool" variant of each node that sets usableAsTool.
		const allowed = expectedNodeTypes().flatMap((t) => [t, `${t}Tool`]);
		expect(ours.filter((n) => !allowed.includes(n))).toEqual([]);
		for (const t of expectedNodeTypes()) expect(ours).toContain(t);
	});

	test("the installed package gets n8n's own n8n-workflow, as in a user's ~/.n8n", () => {
		const { home, nodeBin } = n8n.runtime;
		const packageDir = path.join(
			n8n.userFolder,
			'.n8n',
			'nodes',
			'node_modules',
			packageJsonUnderTest().name,
		);
		// n8n sets NODE_PATH to the module paths of its loader (load-nodes-and-credentials.js) for packages.
		const loaderPaths = (
			Module as unknown as { _nodeModulePaths(from: string): string[] }
		)._nodeModulePaths(path.join(home, 'node_modules', 'n8n', 'dist'));
		const resolved = spawnSync(nodeBin, ['-p', "require.resolve('n8n-workflow')"], {
			cwd: packageDir,
			env: { PATH: process.env.PATH, NODE_PATH: loaderPaths.join(path.delimiter) },
			encoding: 'utf8',
		});
		expect(resolved.stderr).toBe('');
		expect(resolved.stdout.trim()).toBe(
			path.join(home, 'node_modules', 'n8n-workflow', 'dist', 'cjs', 'index.js'),
		);
	});
});

describe('harness', () => {
	test('a Webhook -> Set workflow runs through its production webhook', async () => {
		const workflow = linearWebhookWorkflow('smoke: webhook to set', 'smoke-set', [
			{
				name: 'Set',
				type: 'n8n-nodes-base.set',
				typeVersion: 3.4,
				position: [220, 0],
				parameters: {
					mode: 'manual',
					assignments: {
						assignments: [
							{
								id: 'greeting',
								name: 'greeting',
								value: '=hello {{ $json.body.name }}',
								type: 'string',
							},
						],
					},
					includeOtherFields: false,
					options: {},
				},
			},
		]);
		const { items, deployed } = await runWorkflowViaWebhook<{ greeting: string }>(
			n8n.api,
			workflow,
			{ name: 'n8n' },
		);
		expect(items).toEqual([{ greeting: 'hello n8n' }]);

		const [execution] = await n8n.api.waitForExecutions(deployed.workflow.id, 1);
		expect(execution.status).toBe('success');
		expect(execution.mode).toBe('webhook');
		expect(nodeOutput(execution, 'Set')).toEqual([{ greeting: 'hello n8n' }]);

		// A second run of the same deployed workflow: one more execution, same answer.
		const again = await runWorkflowViaWebhook<{ greeting: string }>(n8n.api, deployed, {
			name: 'again',
		});
		expect(again.items).toEqual([{ greeting: 'hello again' }]);
		expect(await n8n.api.waitForExecutions(deployed.workflow.id, 2)).toHaveLength(2);
	});

	test('credentials can be created and deleted through the public API', async () => {
		const credential = await n8n.api.createCredential({
			name: 'smoke header auth',
			type: 'httpHeaderAuth',
			data: { name: 'X-Smoke', value: 'smoke-secret-value' },
		});
		expect(credential).toMatchObject({ name: 'smoke header auth', type: 'httpHeaderAuth' });
		expect(JSON.stringify(credential)).not.toContain('smoke-secret-value');
		await n8n.api.deleteCredential(credential.id);
	});

	test("n8n's log shows no failed outbound connection", () => {
		const log = n8n.readLog();
		expect(log).toContain('Editor is now accessible');
		expect(findOutboundConnectionErrors(log)).toEqual([]);
	});
});
