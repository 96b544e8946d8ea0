/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- repository tooling: runs in Node.js, never inside n8n */
/**
 * Installed the way users install it: the packed package published with `npm publish` to a real npm registry
 * on this machine (Verdaccio), and an n8n that does not have it installs it through the REST call its
 * Settings > Community Nodes page makes (POST /rest/community-packages), from where n8n looks for packages
 * (https://registry.npmjs.org, routed to the local registry: scripts/n8n/registryRoute.ts). Then the nodes and
 * credentials are there without a restart, an example workflow imported from examples/ runs against the
 * sandbox, n8n logs no warning about the package, and n8n's own verification scanner
 * (@n8n/scan-community-package) is run on the package as the registry serves it.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';

import type { Sandbox } from '../../sandbox';
import { integrityOf } from '../../scripts/n8n/registry';
import {
	ACTION_NODE,
	API_CREDENTIAL,
	PACKAGE,
	WEBHOOK_CREDENTIAL,
	createApiCredential,
	executionError,
	requestsFrom,
	startTestSandbox,
} from './harness/backgroundCheck';
import {
	communityNodesN8n,
	communityPackages,
	packageWarnings,
	startPublishedPackage,
	type PublishedPackage,
} from './harness/communityPackages';
import type { WorkflowInput } from './harness/n8nApi';
import { expectedNodeTypes, REPO_DIR, startTestN8n, type TestN8n } from './harness/n8nInstance';

const run = promisify(execFile);
/**
 * The environment of a command run outside jest: without NODE_ENV=test, under which
 * eslint-plugin-n8n-nodes-base applies its node-file rules to every file.
 */
function outsideJest(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
	delete env.NODE_ENV;
	return env;
}

let sandbox: Sandbox;
let published: PublishedPackage;
let n8n: TestN8n;

beforeAll(async () => {
	sandbox = await startTestSandbox();
	published = await startPublishedPackage('community-nodes');
	n8n = await startTestN8n('community-nodes', communityNodesN8n(published));
}, 180_000);

afterAll(async () => {
	await n8n?.stop();
	await published?.stop();
	await sandbox?.stop();
});

describe('the local registry', () => {
	it('serves the bytes npm pack built, as the latest version', async () => {
		const { name, version, integrity } = published.packed;
		expect(name).toBe(PACKAGE);
		const document = await published.registry.packument(name);
		expect(document['dist-tags'].latest).toBe(version);
		expect(document.versions[version].dist.integrity).toBe(integrity);
		expect(integrityOf(await published.registry.tarballBytes(name, version))).toBe(integrity);
		expect(integrity).toBe(integrityOf(fs.readFileSync(published.tarball)));
	});
});

describe("installed through n8n's Community Nodes (POST /rest/community-packages)", () => {
	it('is not there before, and n8n installs the published version from the registry', async () => {
		const names = await n8n.loadedNodeTypeNames();
		expect(names.filter((name) => name.startsWith(`${PACKAGE}.`))).toEqual([]);
		const forwardedBefore = published.route.forwarded.length;

		const answer = await communityPackages(n8n).install(PACKAGE);

		expect(answer).toMatchObject({ status: 200 });
		expect(answer.data).toMatchObject({
			packageName: PACKAGE,
			installedVersion: published.packed.version,
		});
		expect(answer.data!.installedNodes.map((node) => node.type).sort()).toEqual(
			expectedNodeTypes().sort(),
		);
		// n8n's npm fetched the package document and the tarball from the registry.
		const fetched = published.route.forwarded.slice(forwardedBefore);
		expect(fetched).toContain(`GET /${PACKAGE}`);
		expect(fetched).toContain(`GET /${PACKAGE}/-/${PACKAGE}-${published.packed.version}.tgz`);
		// What n8n unpacked is that tarball's package.json, at that version.
		const installed = JSON.parse(
			fs.readFileSync(
				path.join(n8n.userFolder, '.n8n', 'nodes', 'node_modules', PACKAGE, 'package.json'),
				'utf8',
			),
		);
		expect(installed).toMatchObject({ name: PACKAGE, version: published.packed.version });
		expect((await communityPackages(n8n).list()).data).toEqual([
			expect.objectContaining({ packageName: PACKAGE, installedVersion: published.packed.version }),
		]);
	});

	it('loads the two nodes and the two credentials without a restart', async () => {
		const names = await n8n.loadedNodeTypeNames();
		// n8n adds a "<name>Tool" variant of the action node (usableAsTool) for AI agents.
		expect(names.filter((name) => name.startsWith(`${PACKAGE}.`)).sort()).toEqual(
			[...expectedNodeTypes(), `${ACTION_NODE}Tool`].sort(),
		);
		const credentials = (await n8n.loadedCredentialTypes()).map((type) => type.name);
		expect(credentials).toEqual(expect.arrayContaining([API_CREDENTIAL, WEBHOOK_CREDENTIAL]));
	});

	it('runs an example workflow imported from examples/ against the sandbox', async () => {
		const credential = await createApiCredential(n8n.api, sandbox, {
			name: 'Background Check API',
		});
		const example = JSON.parse(
			fs
				.readFileSync(path.join(REPO_DIR, 'examples', 'order-a-background-check.json'), 'utf8')
				.split('http://127.0.0.1:7450')
				.join(sandbox.url),
		) as WorkflowInput;
		for (const node of example.nodes) {
			if (node.credentials?.[API_CREDENTIAL])
				node.credentials[API_CREDENTIAL] = { id: credential.id, name: credential.name };
		}
		const workflow = await n8n.api.createWorkflow({
			name: example.name,
			nodes: example.nodes,
			connections: example.connections,
			settings: example.settings,
		});
		await n8n.api.activateWorkflow(workflow.id);
		const form = example.nodes.find((node) => node.type === 'n8n-nodes-base.formTrigger')!;
		const requests = requestsFrom(sandbox);

		const body = new FormData();
		body.set('field-0', 'Grace');
		body.set('field-1', 'Hopper');
		body.set('field-2', 'grace.hopper@example.com');
		const response = await fetch(`${n8n.baseUrl}/form/${form.webhookId}`, { method: 'POST', body });

		expect(response.status).toBe(200);
		const [execution] = await n8n.api.waitForExecutions(workflow.id, 1);
		expect({ status: execution.status, error: executionError(execution) }).toEqual({
			status: 'success',
			error: undefined,
		});
		const create = requests.api().find((entry) => entry.path === '/case/create');
		expect(create?.status).toBe(201);
		expect(create?.body).toMatchObject({
			candidate: { firstName: 'Grace', lastName: 'Hopper', email: 'grace.hopper@example.com' },
		});
	});

	it("leaves no warning or error about the package in n8n's log", () => {
		expect(packageWarnings(n8n.readLog(), PACKAGE)).toEqual([]);
		// n8n's log names the install: the check reads the right file.
		expect(n8n.readLog()).toContain(`Community package installed: ${PACKAGE}`);
	});

	it('is refused a second time with n8n’s own message, pointing at the update button', async () => {
		const again = await communityPackages(n8n).install(PACKAGE);
		expect(again.status).toBe(400);
		expect(again.message).toBe(
			`Package "${PACKAGE}" is already installed.To update it, click the corresponding button in the UI`,
		);
	});
});

describe("n8n's verification scanner (@n8n/scan-community-package) on the package as the registry serves it", () => {
	it('downloads it from the registry and stops at the provenance check, which only a CI publish can pass', async () => {
		const forwardedBefore = published.route.forwarded.length;
		const spec = `${PACKAGE}@${published.packed.version}`;
		const scanned = await run(
			path.join(REPO_DIR, 'node_modules', '.bin', 'scan-community-package'),
			[spec],
			{ env: outsideJest(published.route.env), timeout: 120_000 },
		);
		// It asked registry.npmjs.org, and got the local registry's document.
		expect(published.route.forwarded.slice(forwardedBefore)).toContain(`GET /${PACKAGE}`);
		expect(scanned.stdout).toContain(`❌ Package ${spec} has failed security checks`);
		expect(scanned.stdout).toContain(
			'Reason: Package was not published with npm provenance. Learn how to publish community nodes with provenance',
		);
	});

	it("runs the scanner's analysis, the steps after provenance, on the registry's tarball and on the sources: nothing found", async () => {
		const unpacked = path.join(published.workDir, 'scanned');
		fs.mkdirSync(unpacked, { recursive: true });
		const tarball = path.join(published.workDir, 'scanned.tgz');
		fs.writeFileSync(
			tarball,
			await published.registry.tarballBytes(PACKAGE, published.packed.version),
		);
		await run('tar', ['-xzf', tarball, '-C', unpacked, '--strip-components=1']);
		// The CLI's own calls: analyzePackage(sourceDir, SOURCE_FILE_PATTERNS), analyzePackage(packageDir, [js, package.json]).
		const script = `
			import { analyzePackage, SOURCE_FILE_PATTERNS } from '@n8n/scan-community-package/scanner/scanner.mjs';
			const [source, dist] = [await analyzePackage(process.argv[1], SOURCE_FILE_PATTERNS),
				await analyzePackage(process.argv[2], ['**/*.js', 'package.json'])];
			const verdict = ({ passed, message, details }) => ({ passed, message, details });
			console.log(JSON.stringify({ source: verdict(source), dist: verdict(dist) }));`;
		const analysed = await run(
			process.execPath,
			['--input-type=module', '-e', script, REPO_DIR, unpacked],
			{ cwd: REPO_DIR, env: outsideJest(), timeout: 180_000 },
		);
		const verdict = JSON.parse(analysed.stdout.trim().split('\n').pop()!);
		expect(verdict).toEqual({
			source: { passed: true },
			dist: { passed: true },
		});
	});
});
