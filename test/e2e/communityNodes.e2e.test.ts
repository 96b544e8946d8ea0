/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- repository tooling: runs in Node.js, never inside n8n */
/**
 * Installed the way users install it: the packed package published with `npm publish` to a real npm registry
 * on this machine (Verdaccio), and an n8n that does not have it installs it through the REST call its
 * Settings > Community Nodes page makes (POST /rest/community-packages), from where n8n looks for packages
 * (https://registry.npmjs.org, routed to the local registry: test/harness/n8n/registryRoute.ts). Then the nodes and
 * credentials are there without a restart, an example workflow imported from examples/ runs against the
 * sandbox, n8n logs no warning about the package, and n8n's own verification scanner
 * (@n8n/scan-community-package) is run on the package as the registry serves it. Last, in Chromium, as a person
 * does it on Settings > Community Nodes: Uninstall, with that example workflow active, shows n8n's own warning
 * listing it; the package goes; the Install dialog installs it again by name, and the example runs again.
 * Screenshots of each step go to test-artifacts/community-nodes/.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';

import type { Page } from 'playwright-core';

import type { Sandbox } from '../../sandbox';
import { integrityOf } from '../harness/n8n/registry';
import { selectedRuntimeName } from '../harness/n8n/runtime';
import {
	ACTION_NODE,
	API_CREDENTIAL,
	PACKAGE,
	WEBHOOK_CREDENTIAL,
	createApiCredential,
	executionError,
	requestsFrom,
	startTestSandbox,
} from '../harness/backgroundCheck';
import {
	communityNodesN8n,
	communityPackages,
	packageWarnings,
	startPublishedPackage,
	type PublishedPackage,
} from '../harness/communityPackages';
import { launchEditorBrowser, signIn, type EditorBrowser } from '../harness/browser';
import { waitForWebhook, type Workflow, type WorkflowInput } from '../harness/n8nApi';
import { expectedNodeTypes, REPO_DIR, startTestN8n, type TestN8n } from '../harness/n8nInstance';

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

const SCREENSHOT_DIR = path.join(REPO_DIR, 'test-artifacts', 'community-nodes');

let sandbox: Sandbox;
let published: PublishedPackage;
let n8n: TestN8n;
/** The example workflow, imported and active. */
let example: { workflow: Workflow; formPath: string };

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

/** Submits the example's form; the workflow runs, and the sandbox receives the case creation. */
async function expectTheExampleToOrder(firstName: string, lastName: string): Promise<void> {
	const before = (await n8n.api.listExecutions({ workflowId: example.workflow.id })).length;
	const requests = requestsFrom(sandbox);
	const email = `${firstName}.${lastName}@example.com`.toLowerCase();
	const body = new FormData();
	body.set('field-0', firstName);
	body.set('field-1', lastName);
	body.set('field-2', email);
	const response = await fetch(`${n8n.baseUrl}${example.formPath}`, { method: 'POST', body });

	expect(response.status).toBe(200);
	// Oldest first: this submission's is the last.
	const execution = (await n8n.api.waitForExecutions(example.workflow.id, before + 1)).at(-1)!;
	expect({ status: execution.status, error: executionError(execution) }).toEqual({
		status: 'success',
		error: undefined,
	});
	const create = requests.api().find((entry) => entry.path === '/case/create');
	expect(create?.status).toBe(200);
	// The reference's flat CreateCase: the package picked in the node, the candidate from the form.
	expect(create?.body).toEqual({
		packageId: 'pkg-basic-criminal',
		email,
		givenName: firstName,
		familyName: lastName,
	});
}

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
		const input = JSON.parse(
			fs
				.readFileSync(path.join(REPO_DIR, 'examples', 'order-a-background-check.json'), 'utf8')
				.split('http://127.0.0.1:7450')
				.join(sandbox.url),
		) as WorkflowInput;
		for (const node of input.nodes) {
			if (node.credentials?.[API_CREDENTIAL])
				node.credentials[API_CREDENTIAL] = { id: credential.id, name: credential.name };
		}
		const workflow = await n8n.api.createWorkflow({
			name: input.name,
			nodes: input.nodes,
			connections: input.connections,
			settings: input.settings,
		});
		await n8n.api.activateWorkflow(workflow.id);
		const form = input.nodes.find((node) => node.type === 'n8n-nodes-base.formTrigger')!;
		example = { workflow, formPath: `/form/${form.webhookId}` };
		// The form's page answers once n8n has registered it (404 before).
		await waitForWebhook(n8n.baseUrl, form.webhookId!, {
			prefix: 'form',
			probe: { method: 'GET' },
		});

		await expectTheExampleToOrder('Grace', 'Hopper');
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

	// The analysis does not depend on the n8n version and takes a minute on a busy machine: once, on the oldest runtime.
	const onOneRuntime = selectedRuntimeName() === 'oldest' ? it : it.skip;
	onOneRuntime(
		"runs the scanner's analysis, the steps after provenance, on the registry's tarball and on the sources: nothing found",
		async () => {
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
		},
	);
});

describe('Settings > Community Nodes in Chromium, with the example workflow active', () => {
	let ui: EditorBrowser;
	let page: Page;
	const card = () => page.getByTestId('community-package-card').filter({ hasText: PACKAGE });

	beforeAll(async () => {
		fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
		for (const old of fs.readdirSync(SCREENSHOT_DIR))
			if (old.endsWith('.png')) fs.rmSync(path.join(SCREENSHOT_DIR, old));
		ui = await launchEditorBrowser({
			baseUrl: n8n.baseUrl,
			screenshotDir: SCREENSHOT_DIR,
			timeoutMs: 30_000,
		});
		page = ui.page;
		await signIn(page, n8n.baseUrl, n8n.owner);
		// On a machine without Chromium, scripts/ensure-chromium.mjs installs it first (bounded at 15 minutes).
	}, 960_000);

	afterAll(() => ui?.close(), 60_000);

	it("shows the installed package, and on Uninstall n8n's own warning listing the active workflow that uses it", async () => {
		await page.goto(`${n8n.baseUrl}/settings/community-nodes`);
		await card().waitFor();
		expect(await card().textContent()).toContain(`v${published.packed.version}`);
		await ui.shot('01-installed-package');

		await card().getByTestId('action-toggle').click();
		await page.getByText('Uninstall package', { exact: true }).click();
		const dialog = page.getByRole('dialog').filter({ hasText: 'Uninstall node package' });
		// The dialog fills in the workflows that use the nodes after it opens.
		await dialog.getByText(example.workflow.name).waitFor();
		await ui.shot('02-uninstall-warning');
		const warning = (await dialog.textContent()) ?? '';
		expect(warning).toContain('Package includes: Background Check, Background Check Trigger');
		expect(warning).toContain(
			'Uninstalling the package will remove every instance of nodes included in this package. The following workflows will be effected:',
		);
		expect(warning).toContain(`${example.workflow.name}PersonalActive`);

		await dialog.getByRole('button', { name: 'Confirm uninstall' }).click();
		await card().waitFor({ state: 'detached', timeout: 60_000 });
		await ui.shot('03-uninstalled');
		expect((await communityPackages(n8n).list()).data).toEqual([]);
		expect(
			(await n8n.loadedNodeTypeNames()).filter((name) => name.startsWith(`${PACKAGE}.`)),
		).toEqual([]);
	});

	it('installs it again by name from the Install dialog, and the example workflow orders again', async () => {
		await page.goto(`${n8n.baseUrl}/settings/community-nodes`);
		await page
			.getByRole('button', { name: /^Install( a community node)?$/ })
			.first()
			.click();
		await page.getByPlaceholder('e.g. n8n-nodes-chatwork').fill(PACKAGE);
		await page.getByTestId('user-agreement-checkbox').click();
		await ui.shot('04-install-dialog');
		await page.getByTestId('install-community-package-button').click();
		await card().waitFor({ timeout: 120_000 });
		await ui.shot('05-installed-again');

		expect((await communityPackages(n8n).list()).data).toEqual([
			expect.objectContaining({ packageName: PACKAGE, installedVersion: published.packed.version }),
		]);
		expect(
			(await n8n.loadedNodeTypeNames()).filter((name) => name.startsWith(`${PACKAGE}.`)).sort(),
		).toEqual([...expectedNodeTypes(), `${ACTION_NODE}Tool`].sort());
		await expectTheExampleToOrder('Ada', 'Lovelace');
	});
});
