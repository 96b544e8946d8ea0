/**
 * What the real-n8n suites of this package share: the in-process sandbox, credentials that point n8n at
 * it, workflows built around the Background Check node, and views of what the sandbox received.
 */
import { randomUUID } from 'node:crypto';
import { sleep } from 'n8n-workflow';

import { eventKeyOf, parseEvent } from '../../nodes/BackgroundCheckTrigger/event';
import type { RequestLogEntry, Sandbox, Subscription } from '../../sandbox';
import {
	deployWebhookWorkflow,
	linearWebhookWorkflow,
	waitForWebhook,
	type Credential,
	type Execution,
	type N8nApi,
	type N8nNode,
	type WebhookResponse,
	type Workflow,
} from './n8nApi';

export const PACKAGE = 'n8n-nodes-background-check';
export const ACTION_NODE = `${PACKAGE}.backgroundCheck`;
export const TRIGGER_NODE = `${PACKAGE}.backgroundCheckTrigger`;
export const API_CREDENTIAL = 'backgroundCheckApi';
export const WEBHOOK_CREDENTIAL = 'backgroundCheckWebhookApi';

/** The sandbox of one test file: frozen clock (timeScale 0), free port on 127.0.0.1. */
export { startTestSandbox } from '../helpers/sandbox';

/**
 * A sandbox subscription to a trigger's production URL under `baseUrl` that never delivers `dropRate` of its
 * messages (every attempt fails), and the webhook credential in n8n holding its secret.
 */
export async function lossySubscription(
	n8n: { baseUrl: string; api: N8nApi },
	sandbox: Sandbox,
	opts: { name: string; dropRate: number; seed: string },
): Promise<{ webhookId: string; subscription: Subscription; webhookCredential: Credential }> {
	const webhookId = randomUUID();
	const subscription = sandbox.admin.createSubscription({
		url: `${n8n.baseUrl}/webhook/${webhookId}/webhook`,
	});
	sandbox.admin.injectDeliveryFault({
		subscriptionId: subscription.id,
		dropRate: opts.dropRate,
		seed: opts.seed,
	});
	const webhookCredential = await n8n.api.createCredential({
		name: opts.name,
		type: WEBHOOK_CREDENTIAL,
		data: { signingSecret: subscription.secret },
	});
	return { webhookId, subscription, webhookCredential };
}

/** Each message the sandbox published to a subscription: its content key, and whether an attempt arrived. */
export function publishedEvents(
	sandbox: Sandbox,
	subscriptionId: string,
): Array<{ key: string; delivered: boolean }> {
	const byMessage = new Map<string, { key: string; delivered: boolean }>();
	for (const attempt of sandbox.admin.deliveryLog({ subscriptionId })) {
		const known = byMessage.get(attempt.messageId);
		byMessage.set(attempt.messageId, {
			key: eventKeyOf(parseEvent(Buffer.from(JSON.stringify(attempt.payload)))!),
			delivered: (known?.delivered ?? false) || attempt.outcome === 'succeeded',
		});
	}
	return [...byMessage.values()];
}

/** A Background Check API credential in n8n for a demo group of the sandbox (0 East, 1 West). */
export async function createApiCredential(
	api: N8nApi,
	sandbox: Sandbox,
	opts: {
		group?: number;
		name?: string;
		apiKey?: string;
		clientAccessToken?: string;
		baseUrl?: string;
	} = {},
): Promise<Credential> {
	const demo = sandbox.demoCredentials[opts.group ?? 0];
	return await api.createCredential({
		name: opts.name ?? `Background Check API (${demo.groupProfileId})`,
		type: API_CREDENTIAL,
		data: {
			environment: 'custom',
			customBaseUrl: opts.baseUrl ?? sandbox.url,
			apiKey: opts.apiKey ?? demo.apiKey,
			clientAccessToken: opts.clientAccessToken ?? demo.clientAccessToken,
			// n8n 2.x adds these two fields to every credential with `authenticate`; its public-API schema
			// then requires allowedDomains unless allowedHttpRequestDomains is given and is not 'domains'.
			allowedHttpRequestDomains: 'all',
		},
	});
}

export const credentialRef = (credential: Credential) => ({
	id: credential.id,
	name: credential.name,
});

/** A Background Check node with the given parameters (resource, operation, ...) and credential. */
export function actionNode(
	parameters: Record<string, unknown>,
	credential: Credential,
	opts: {
		name?: string;
		onError?: 'continueRegularOutput' | 'continueErrorOutput' | 'stopWorkflow';
	} = {},
): N8nNode {
	return {
		name: opts.name ?? 'Background Check',
		type: ACTION_NODE,
		typeVersion: 1,
		position: [440, 0],
		parameters,
		credentials: { [API_CREDENTIAL]: credentialRef(credential) },
		...(opts.onError ? { onError: opts.onError } : {}),
	};
}

/** Resource-locator values, as the editor stores them. */
export { byId, fromList } from '../helpers/executeContext';

export const TRIGGER_NAME = 'Background Check Trigger';
/** The trigger's version that the editor adds to a new workflow (its defaultVersion). */
export const TRIGGER_NODE_VERSION = 1.1;

/**
 * Creates and activates a workflow holding only the trigger, and waits until its production URL answers:
 * an unsigned POST must get 401 and start nothing. Returns the workflow and the path under /webhook/.
 */
export async function deployTriggerWorkflow(
	n8n: { baseUrl: string; api: N8nApi },
	options: {
		name: string;
		webhookId: string;
		parameters: Record<string, unknown>;
		webhookCredential: Credential;
		apiCredential?: Credential;
		typeVersion?: number;
		/**
		 * With Reconcile Missed Events on: the sandbox the watchdog reads. Resolves only once its record of
		 * activation has listed the cases (n8n 2.41 activates a workflow after answering the activate call), so
		 * that a case created next is a change to it, not part of the record.
		 */
		sandbox?: Sandbox;
	},
): Promise<{ workflow: Workflow; webhookPath: string }> {
	const workflow = await n8n.api.createWorkflow({
		name: options.name,
		nodes: [
			{
				name: TRIGGER_NAME,
				type: TRIGGER_NODE,
				typeVersion: options.typeVersion ?? TRIGGER_NODE_VERSION,
				position: [0, 0],
				webhookId: options.webhookId,
				parameters: options.parameters,
				credentials: {
					[WEBHOOK_CREDENTIAL]: credentialRef(options.webhookCredential),
					...(options.apiCredential
						? { [API_CREDENTIAL]: credentialRef(options.apiCredential) }
						: {}),
				},
			},
		],
		connections: {},
	});
	const requests = options.sandbox && requestsFrom(options.sandbox);
	await n8n.api.activateWorkflow(workflow.id);
	const webhookPath = `${options.webhookId}/webhook`;
	const probe = await waitForWebhook(n8n.baseUrl, webhookPath, {
		probe: { method: 'POST', body: {} },
	});
	if (probe?.status !== 401)
		throw new Error(
			`the trigger's production URL answered ${probe?.status} to an unsigned POST, not 401`,
		);
	if (requests && options.parameters.reconcile === true) {
		// Its list pages, until none came for half a second.
		const pages = () =>
			requests.api().filter(({ method, path }) => method === 'GET' && path === '/case/list').length;
		const deadline = Date.now() + 60_000;
		for (let seen = 0, quietSince = Date.now(); seen === 0 || Date.now() - quietSince < 500; ) {
			if (Date.now() > deadline)
				throw new Error("the watchdog's record of activation did not list the cases within 60 s");
			await sleep(100);
			if (pages() !== seen) [seen, quietSince] = [pages(), Date.now()];
		}
	}
	return { workflow, webhookPath };
}

/** Entries of the sandbox's request log appended after the moment this was called. */
export function requestsFrom(sandbox: Sandbox): {
	all(): RequestLogEntry[];
	api(): RequestLogEntry[];
	exchanges(): RequestLogEntry[];
} {
	const log = sandbox.admin.requestLog();
	const after = log.length ? log[log.length - 1].id : 0;
	const all = () => sandbox.admin.requestLog().filter((entry) => entry.id > after);
	return {
		all,
		api: () => all().filter((entry) => entry.path !== '/auth/api'),
		exchanges: () => all().filter((entry) => entry.method === 'POST' && entry.path === '/auth/api'),
	};
}

export const requestLine = (entry: RequestLogEntry) =>
	`${entry.method} ${entry.path} ${entry.status}`;

let workflowNumber = 0;

export interface WorkflowRun<T = Record<string, unknown>> {
	/** n8n's answer to the webhook call (the last node's items when it answers 200). */
	response: WebhookResponse<T[]>;
	/** The last node's items (empty unless n8n answered 200 with an array). */
	items: T[];
	/** The finished execution, with its run data. */
	execution: Execution;
	/** What the sandbox received while the workflow ran, token exchanges included. */
	requests: RequestLogEntry[];
	workflowId: string;
}

/**
 * Deploy Webhook -> nodes[0] -> nodes[1] ... as an active workflow, POST `body` to its production webhook
 * once, and return n8n's answer, the saved execution and the sandbox requests of that run. Does not throw
 * when the workflow fails (the answer is then not 200 and the execution has status error).
 */
export async function runOnce<T = Record<string, unknown>>(
	api: N8nApi,
	sandbox: Sandbox,
	label: string,
	nodes: N8nNode[],
	body: unknown = {},
): Promise<WorkflowRun<T>> {
	workflowNumber++;
	const slug = `${label
		.toLowerCase()
		.replace(/[^a-z0-9]+/g, '-')
		.replace(/^-|-$/g, '')}-${workflowNumber}`;
	const deployed = await deployWebhookWorkflow(
		api,
		linearWebhookWorkflow(`e2e: ${label}`, slug, nodes),
	);
	const requests = requestsFrom(sandbox);
	const response = await deployed.run<T[]>(body);
	const [execution] = await api.waitForExecutions(deployed.workflow.id, 1);
	const items = response.status === 200 && Array.isArray(response.body) ? response.body : [];
	return { response, items, execution, requests: requests.all(), workflowId: deployed.workflow.id };
}

/**
 * The trigger ran and output nothing: an execution its process did not start (a row n8n ran at its start), for
 * a change that process had started itself from a delivery or the watchdog (latestCase.ts).
 */
export function stoppedAtTrigger(execution: Execution): boolean {
	const [run] = execution.data?.resultData.runData[TRIGGER_NAME] ?? [];
	return run !== undefined && !run.error && (run.data?.main[0] ?? []).length === 0;
}

/** An execution's error message (workflow-level, else the first node error), or undefined. */
export function executionError(execution: Execution): string | undefined {
	const resultData = execution.data?.resultData;
	if (resultData?.error?.message) return resultData.error.message;
	for (const runs of Object.values(resultData?.runData ?? {})) {
		for (const run of runs) {
			const error = run.error as { message?: string } | undefined;
			if (error?.message) return error.message;
		}
	}
	return undefined;
}

/** Every string in `haystack` among `secrets` (values shorter than 6 characters are ignored). */
export function leakedSecrets(
	haystack: string,
	secrets: Record<string, string | undefined>,
): string[] {
	return Object.entries(secrets)
		.filter(
			([, value]) => typeof value === 'string' && value.length >= 6 && haystack.includes(value),
		)
		.map(([name]) => name);
}

/** Anything shaped like a JWT (three base64url parts, the first two JSON objects). */
export const JWT_PATTERN = /eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g;
