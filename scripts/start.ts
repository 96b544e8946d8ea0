/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- repository tooling: runs in Node.js, never inside n8n */
/**
 * `npm start`: this package inside a real n8n, against the sandbox, ready to click through.
 *
 * Installs the pinned n8n once (cached), builds and installs this package the way n8n installs a
 * community package, starts the sandbox and n8n on 127.0.0.1, sets up the owner, the credentials and the
 * example workflows (trigger workflows active and subscribed in the sandbox), prints the editor URL and
 * login, and writes them with a public-API key to .dev/session.json. Ctrl-C stops everything. n8n's user
 * folder is outside the repository (startUserFolder), as a user's ~/.n8n is.
 *
 * Environment: N8N_PORT (5678), SANDBOX_PORT (7450), SANDBOX_TIME_SCALE (60), BGC_DEV_DIR (.dev).
 * A port of 0 means any free port; the session file tells which.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { REREAD_AFTER_REFUSAL_MS } from '../nodes/BackgroundCheckTrigger/secretCache';
import { DEMO_CREDENTIALS, describeSandbox, startSandbox, type Sandbox } from '../sandbox';
import { N8nApi, type N8nNode, type WorkflowInput } from '../test/harness/n8n/publicApi';
import {
	ensureN8nRuntime,
	installPackageIntoUserFolder,
	packRepo,
	startN8n,
	startUserFolder,
	type N8nInstance,
} from '../test/harness/n8n/runtime';

const REPO_DIR = path.resolve(__dirname, '..');
const EXAMPLES_DIR = path.join(REPO_DIR, 'examples');
const EXAMPLE_SANDBOX_URL = 'http://127.0.0.1:7450';

const TRIGGER_TYPE = 'n8n-nodes-background-check.backgroundCheckTrigger';
const FORM_TRIGGER_TYPE = 'n8n-nodes-base.formTrigger';
const API_CREDENTIAL = { type: 'backgroundCheckApi', name: 'Background Check API (sandbox)' };
const WEBHOOK_CREDENTIAL_TYPE = 'backgroundCheckWebhookApi';

export interface StartedSession {
	editorUrl: string;
	owner: { email: string; password: string };
	n8nApiKey: string;
	/** n8n's user folder (database, installed package, n8n.log). */
	userFolder: string;
	sandbox: { url: string; adminUrl: string; demoCredentials: typeof DEMO_CREDENTIALS };
	workflows: Array<{ id: string; name: string; active: boolean; url?: string }>;
	credentials: Array<{ id: string; name: string; type: string }>;
}

interface Listed<T> {
	data: T[];
}

const log = (line: string) => process.stdout.write(`[start] ${line}\n`);

function numberFromEnv(name: string, fallback: number): number {
	const value = process.env[name];
	if (value === undefined || value === '') return fallback;
	const number = Number(value);
	if (!Number.isFinite(number) || number < 0)
		throw new Error(`${name} must be a number >= 0, got ${value}`);
	return number;
}

/**
 * Creates the credential, or updates the one of that name and type (a re-run keeps its ID).
 * n8n 2.x adds an "Allowed HTTP Request Domains" setting to credentials that authenticate requests, and
 * its public API then wants it set: use the editor's default, "all".
 */
async function upsertCredential(
	api: N8nApi,
	name: string,
	type: string,
	fields: Record<string, unknown>,
) {
	const schema = (await api.credentialSchema(type)) as { properties?: Record<string, unknown> };
	const data = schema.properties?.allowedHttpRequestDomains
		? { allowedHttpRequestDomains: 'all', ...fields }
		: fields;
	const existing = (
		await api.request<Listed<{ id: string; name: string; type: string }>>(
			'GET',
			'/credentials?limit=250',
		)
	).data.find((credential) => credential.name === name && credential.type === type);
	if (existing) {
		await api.request('PATCH', `/credentials/${existing.id}`, { name, type, data });
		return { id: existing.id, name, type };
	}
	const created = await api.createCredential({ name, type, data });
	return { id: created.id, name, type };
}

function loadExamples(sandboxUrl: string): WorkflowInput[] {
	return fs
		.readdirSync(EXAMPLES_DIR)
		.filter((file) => file.endsWith('.json'))
		.sort()
		.map((file) => {
			// The examples post to the sandbox's demo inbox on its default port; follow the port in use.
			const text = fs
				.readFileSync(path.join(EXAMPLES_DIR, file), 'utf8')
				.split(EXAMPLE_SANDBOX_URL)
				.join(sandboxUrl);
			const { name, nodes, connections, settings } = JSON.parse(text) as WorkflowInput;
			return { name, nodes, connections, settings };
		});
}

const productionWebhookUrl = (baseUrl: string, node: N8nNode) =>
	`${baseUrl}/webhook/${node.webhookId}/webhook`;

/** Imports the examples that are not there yet (a re-run keeps the user's edits), credentials wired in. */
async function setUpExamples(api: N8nApi, n8n: N8nInstance, sandbox: Sandbox) {
	const credentials = [
		await upsertCredential(api, API_CREDENTIAL.name, API_CREDENTIAL.type, {
			environment: 'custom',
			customBaseUrl: sandbox.url,
			apiKey: DEMO_CREDENTIALS[0].apiKey,
			clientAccessToken: DEMO_CREDENTIALS[0].clientAccessToken,
		}),
	];
	const existing = (
		await api.request<Listed<{ id: string; name: string; active: boolean; nodes: N8nNode[] }>>(
			'GET',
			'/workflows?limit=250',
		)
	).data;
	const workflows: StartedSession['workflows'] = [];

	for (const example of loadExamples(sandbox.url)) {
		const trigger = example.nodes.find((node) => node.type === TRIGGER_TYPE);
		let webhookCredential: { id: string; name: string; type: string } | undefined;
		if (trigger) {
			// One endpoint, one subscription, one signing secret (spec 6.1): a credential per trigger workflow.
			const url = productionWebhookUrl(n8n.baseUrl, trigger);
			const event = trigger.parameters?.event as string;
			const subscription = sandbox.admin.createSubscription({
				url,
				eventTypes: event === 'any' ? undefined : [event],
			});
			webhookCredential = await upsertCredential(
				api,
				`Background Check Webhook API (${example.name})`,
				WEBHOOK_CREDENTIAL_TYPE,
				{
					signingSecret: subscription.secret,
				},
			);
			credentials.push(webhookCredential);
		}
		for (const node of example.nodes) {
			if (!node.credentials) continue;
			if (node.credentials.backgroundCheckApi)
				node.credentials.backgroundCheckApi = { id: credentials[0].id, name: credentials[0].name };
			if (node.credentials.backgroundCheckWebhookApi && webhookCredential) {
				node.credentials.backgroundCheckWebhookApi = {
					id: webhookCredential.id,
					name: webhookCredential.name,
				};
			}
		}

		const workflow =
			existing.find((candidate) => candidate.name === example.name) ??
			(await api.createWorkflow(example));
		const activatable = example.nodes.some(
			(node) => node.type === TRIGGER_TYPE || node.type === FORM_TRIGGER_TYPE,
		);
		if (activatable && !workflow.active) await api.activateWorkflow(workflow.id);
		const form = example.nodes.find((node) => node.type === FORM_TRIGGER_TYPE);
		workflows.push({
			id: workflow.id,
			name: example.name,
			active: activatable,
			url: trigger
				? productionWebhookUrl(n8n.baseUrl, trigger)
				: form
					? `${n8n.baseUrl}/form/${form.webhookId}`
					: undefined,
		});
	}
	return { credentials, workflows };
}

async function main(): Promise<void> {
	const devDir = path.resolve(REPO_DIR, process.env.BGC_DEV_DIR ?? '.dev');
	const userFolder = startUserFolder(devDir);
	fs.mkdirSync(userFolder, { recursive: true });

	await ensureN8nRuntime({ log });
	log('building and installing the package into n8n (as n8n installs a community package)');
	const tarball = await packRepo({ repoDir: REPO_DIR, destDir: devDir, log });
	await installPackageIntoUserFolder(userFolder, { tarball, log });

	const sandbox = await startSandbox({
		port: numberFromEnv('SANDBOX_PORT', 7450),
		timeScale: numberFromEnv('SANDBOX_TIME_SCALE', 60),
	});
	let n8n: N8nInstance | undefined;
	let stopping = false;
	const stop = async (code: number) => {
		if (stopping) return;
		stopping = true;
		log('stopping n8n and the sandbox');
		await n8n?.stop();
		await sandbox.stop();
		process.exit(code);
	};
	process.once('SIGINT', () => void stop(0));
	process.once('SIGTERM', () => void stop(0));

	try {
		n8n = await startN8n({ userFolder, port: numberFromEnv('N8N_PORT', 5678) || undefined, log });
		const api = new N8nApi(n8n.baseUrl, n8n.apiKey);
		const { credentials, workflows } = await setUpExamples(api, n8n, sandbox);
		// Started again, a trigger may hold the secrets n8n read at its start; a delivery those refuse makes it
		// read this sandbox's new ones, once they are REREAD_AFTER_REFUSAL_MS old.
		await new Promise((resolve) => setTimeout(resolve, REREAD_AFTER_REFUSAL_MS));

		const session: StartedSession = {
			editorUrl: n8n.baseUrl,
			owner: n8n.owner,
			n8nApiKey: n8n.apiKey,
			userFolder,
			sandbox: { url: sandbox.url, adminUrl: sandbox.adminUrl, demoCredentials: DEMO_CREDENTIALS },
			workflows,
			credentials,
		};
		fs.writeFileSync(path.join(devDir, 'session.json'), `${JSON.stringify(session, null, 2)}\n`, {
			mode: 0o600,
		});

		process.stdout.write(
			[
				'',
				`n8n editor:   ${n8n.baseUrl}`,
				`login:        ${n8n.owner.email} / ${n8n.owner.password}`,
				...workflows.map(
					(workflow) =>
						`workflow:     ${workflow.name}${workflow.active ? ' (active)' : ''}${workflow.url ? ` ${workflow.url}` : ''}`,
				),
				'',
				describeSandbox(sandbox),
				'',
				`Session (with an n8n API key): ${path.relative(REPO_DIR, path.join(devDir, 'session.json'))}`,
				'Ctrl-C stops n8n and the sandbox.',
				'',
			].join('\n'),
		);
	} catch (error) {
		process.stderr.write(`[start] ${error instanceof Error ? error.message : String(error)}\n`);
		await stop(1);
	}
}

void main();
