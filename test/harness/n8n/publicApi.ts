/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- repository tooling: runs in Node.js, never inside n8n */
/**
 * A small client over n8n's public API (`/api/v1`, header X-N8N-API-KEY), used by `npm start` and the e2e tests,
 * plus the webhook helpers that run a workflow in a running n8n without `n8n execute`.
 */

import type { IncomingHttpHeaders } from 'node:http';

import { httpRequest } from './http';

export interface N8nNode {
	id?: string;
	name: string;
	type: string;
	typeVersion: number;
	position: [number, number];
	parameters: Record<string, unknown>;
	credentials?: Record<string, { id: string; name: string }>;
	webhookId?: string;
	disabled?: boolean;
	[key: string]: unknown;
}

export type N8nConnections = Record<
	string,
	Record<string, Array<Array<{ node: string; type: string; index: number }>>>
>;

export interface WorkflowInput {
	name: string;
	nodes: N8nNode[];
	connections: N8nConnections;
	settings?: Record<string, unknown>;
	staticData?: unknown;
}

export interface Workflow extends WorkflowInput {
	id: string;
	active: boolean;
	createdAt?: string;
	updatedAt?: string;
}

export interface Credential {
	id: string;
	name: string;
	type: string;
	createdAt?: string;
	updatedAt?: string;
}

export type ExecutionStatus =
	| 'canceled'
	| 'crashed'
	| 'error'
	| 'new'
	| 'running'
	| 'success'
	| 'unknown'
	| 'waiting';

export interface Execution {
	id: string;
	workflowId: string;
	mode: string;
	status: ExecutionStatus;
	finished: boolean;
	startedAt: string;
	stoppedAt: string | null;
	/** Present with includeData=true: the run data (`data.resultData.runData[nodeName][run].data.main[0]`). */
	data?: {
		resultData: {
			runData: Record<
				string,
				Array<{ data?: { main: Array<Array<{ json: unknown }> | null> }; error?: unknown }>
			>;
			error?: { message: string; [k: string]: unknown };
			lastNodeExecuted?: string;
		};
		[k: string]: unknown;
	};
	[k: string]: unknown;
}

export class N8nApiError extends Error {
	constructor(
		message: string,
		readonly status: number,
		readonly body: unknown,
	) {
		super(message);
		this.name = 'N8nApiError';
	}
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class N8nApi {
	constructor(
		readonly baseUrl: string,
		private readonly apiKey: string,
	) {
		this.baseUrl = baseUrl.replace(/\/+$/, '');
	}

	/** Raw call to `/api/v1<path>`; throws N8nApiError on a non-2xx answer. */
	async request<T = unknown>(method: string, apiPath: string, body?: unknown): Promise<T> {
		const res = await httpRequest(`${this.baseUrl}/api/v1${apiPath}`, {
			method,
			headers: { 'X-N8N-API-KEY': this.apiKey, accept: 'application/json' },
			body,
		});
		const parsed = res.json;
		if (res.status < 200 || res.status >= 300) {
			throw new N8nApiError(
				`${method} /api/v1${apiPath} -> ${res.status}: ${res.text.slice(0, 500)}`,
				res.status,
				parsed,
			);
		}
		return parsed as T;
	}

	// ---- credentials ----
	createCredential(input: {
		name: string;
		type: string;
		data: Record<string, unknown>;
	}): Promise<Credential> {
		return this.request('POST', '/credentials', input);
	}

	/** Replaces the credential's data (PATCH; every field not given is removed). */
	updateCredential(id: string, input: { data: Record<string, unknown> }): Promise<Credential> {
		return this.request('PATCH', `/credentials/${encodeURIComponent(id)}`, input);
	}

	deleteCredential(id: string): Promise<unknown> {
		return this.request('DELETE', `/credentials/${encodeURIComponent(id)}`);
	}

	/** JSON schema of a credential type's fields, as n8n sees it (404 if the type is not loaded). */
	credentialSchema(type: string): Promise<Record<string, unknown>> {
		return this.request('GET', `/credentials/schema/${encodeURIComponent(type)}`);
	}

	// ---- workflows ----
	createWorkflow(input: WorkflowInput): Promise<Workflow> {
		const { name, nodes, connections, settings, staticData } = input;
		return this.request('POST', '/workflows', {
			name,
			nodes,
			connections,
			settings: settings ?? { executionOrder: 'v1' },
			...(staticData === undefined ? {} : { staticData }),
		});
	}

	getWorkflow(id: string): Promise<Workflow> {
		return this.request('GET', `/workflows/${encodeURIComponent(id)}`);
	}

	activateWorkflow(id: string): Promise<Workflow> {
		return this.request('POST', `/workflows/${encodeURIComponent(id)}/activate`);
	}

	deleteWorkflow(id: string): Promise<unknown> {
		return this.request('DELETE', `/workflows/${encodeURIComponent(id)}`);
	}

	// ---- executions ----
	/**
	 * Executions, newest first, up to `limit`. Without `status`, running ones included: n8n 2.41 leaves out of
	 * its list the executions its own process is running unless asked for status=running (2.8 lists them).
	 * An execution that has just ended is then missing from both lists for a moment (its row already says so,
	 * its process still holds it as running), so both are read until two reads `settleMs` apart agree (at most
	 * 10 reads).
	 */
	async listExecutions(
		opts: {
			workflowId?: string;
			status?: ExecutionStatus;
			includeData?: boolean;
			limit?: number;
			settleMs?: number;
		} = {},
	): Promise<Execution[]> {
		if (opts.status) return await this.listExecutionPages(opts);
		let previous: string | undefined;
		for (let read = 1; ; read++) {
			if (previous !== undefined && opts.settleMs) await sleep(opts.settleMs);
			const [listed, running] = await Promise.all([
				this.listExecutionPages(opts),
				this.listExecutionPages({ ...opts, status: 'running' }),
			]);
			const byId = new Map([...running, ...listed].map((execution) => [execution.id, execution]));
			const executions = [...byId.values()]
				.sort((a, b) => Number(b.id) - Number(a.id))
				.slice(0, opts.limit ?? 100);
			const seen = executions.map(({ id, status }) => `${id}:${status}`).join();
			if (seen === previous || read === 10) return executions;
			previous = seen;
		}
	}

	/** Follows nextCursor until `limit` items or the end. */
	private async listExecutionPages(opts: {
		workflowId?: string;
		status?: ExecutionStatus;
		includeData?: boolean;
		limit?: number;
	}): Promise<Execution[]> {
		const want = opts.limit ?? 100;
		const out: Execution[] = [];
		let cursor: string | undefined;
		do {
			const q = new URLSearchParams();
			if (opts.workflowId) q.set('workflowId', opts.workflowId);
			if (opts.status) q.set('status', opts.status);
			q.set('includeData', String(opts.includeData ?? true));
			q.set('limit', String(Math.min(250, want - out.length)));
			if (cursor) q.set('cursor', cursor);
			const page = await this.request<{ data: Execution[]; nextCursor?: string | null }>(
				'GET',
				`/executions?${q.toString()}`,
			);
			out.push(...page.data);
			cursor = page.nextCursor ?? undefined;
		} while (cursor && out.length < want);
		return out;
	}

	getExecution(id: string, includeData = true): Promise<Execution> {
		return this.request('GET', `/executions/${encodeURIComponent(id)}?includeData=${includeData}`);
	}

	/**
	 * Wait until the workflow has at least `count` finished executions (status not new/running/waiting)
	 * and return them oldest first, with data. Rejects after timeoutMs with what was seen.
	 */
	async waitForExecutions(
		workflowId: string,
		count: number,
		opts: { timeoutMs?: number; intervalMs?: number } = {},
	): Promise<Execution[]> {
		const deadline = Date.now() + (opts.timeoutMs ?? 20_000);
		let seen: Execution[] = [];
		for (;;) {
			seen = await this.listExecutions({
				workflowId,
				includeData: true,
				limit: Math.max(count, 20),
			});
			const done = seen.filter((e) => !['new', 'running', 'waiting'].includes(e.status));
			if (done.length >= count) return done.reverse();
			if (Date.now() > deadline) {
				throw new Error(
					`workflow ${workflowId}: expected ${count} finished executions, saw ${done.length} ` +
						`(${seen.map((e) => `${e.id}:${e.status}`).join(', ') || 'none'})`,
				);
			}
			await sleep(opts.intervalMs ?? 250);
		}
	}
}

/** Items (json only) a node produced in an execution's first run, output 0 (or `output`). */
export function nodeOutput(execution: Execution, nodeName: string, output = 0, run = 0): unknown[] {
	const runs = execution.data?.resultData.runData[nodeName];
	if (!runs) throw new Error(`node "${nodeName}" did not run in execution ${execution.id}`);
	const items = runs[run]?.data?.main[output] ?? [];
	return items.map((i) => i.json);
}

// ---------------------------------------------------------------------------------------------
// Webhook-started workflows
// ---------------------------------------------------------------------------------------------

export interface WebhookResponse<T = unknown> {
	status: number;
	headers: IncomingHttpHeaders;
	/** Parsed JSON when the answer is JSON, else the text. */
	body: T;
	text: string;
}

/**
 * A Webhook node that answers with the last node's items (`responseMode: lastNode`; all of them unless
 * `responseData` says `firstEntryJson`), for workflows run via runWorkflowViaWebhook.
 */
export function webhookTriggerNode(
	webhookPath: string,
	opts: {
		name?: string;
		httpMethod?: string;
		position?: [number, number];
		responseData?: 'allEntries' | 'firstEntryJson';
	} = {},
): N8nNode {
	return {
		id: `webhook-${webhookPath}`,
		name: opts.name ?? 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position: opts.position ?? [0, 0],
		webhookId: webhookPath,
		parameters: {
			httpMethod: opts.httpMethod ?? 'POST',
			path: webhookPath,
			responseMode: 'lastNode',
			responseData: opts.responseData ?? 'allEntries',
			options: {},
		},
	};
}

/**
 * Build a linear workflow: Webhook -> nodes[0] -> nodes[1] -> ... (main output 0 to input 0).
 * Node positions are laid out left to right when not given.
 */
export function linearWebhookWorkflow(
	name: string,
	webhookPath: string,
	nodes: N8nNode[],
): WorkflowInput {
	const trigger = webhookTriggerNode(webhookPath);
	const all = [
		trigger,
		...nodes.map((n, i) => ({ ...n, position: n.position ?? [(i + 1) * 220, 0] })),
	];
	const connections: N8nConnections = {};
	for (let i = 0; i < all.length - 1; i++) {
		connections[all[i].name] = { main: [[{ node: all[i + 1].name, type: 'main', index: 0 }]] };
	}
	return { name, nodes: all as N8nNode[], connections, settings: { executionOrder: 'v1' } };
}

/**
 * Wait until n8n serves the production webhook `path` for `method` (default POST). n8n answers
 * "webhook not registered" until the workflow's webhooks are registered: at once after an activation
 * through the API, about 3 s after start-up for workflows that were already active.
 *
 * Probes with a CORS preflight (OPTIONS with Origin and Access-Control-Request-Method), which n8n
 * answers from its webhook registry without starting the workflow: 204 once registered, an error
 * status (500 in 2.8.4, with a stack trace in n8n's log) before. Pass `probe` to poll with a request
 * of your own instead (e.g. an unsigned POST that a trigger refuses with 401); then any status other
 * than 404 counts as registered, and the last answer is returned.
 */
export async function waitForWebhook(
	baseUrl: string,
	webhookPath: string,
	opts: {
		method?: string;
		timeoutMs?: number;
		intervalMs?: number;
		prefix?: string;
		probe?: { method?: string; body?: unknown; headers?: Record<string, string> };
	} = {},
): Promise<WebhookResponse | undefined> {
	const timeoutMs = opts.timeoutMs ?? 20_000;
	const deadline = Date.now() + timeoutMs;
	let last = '';
	for (;;) {
		try {
			if (opts.probe) {
				const res = await callWebhook(baseUrl, webhookPath, { ...opts.probe, prefix: opts.prefix });
				if (res.status !== 404) return res;
				last = `${res.status} ${res.text.slice(0, 200)}`;
			} else {
				const res = await callWebhook(baseUrl, webhookPath, {
					method: 'OPTIONS',
					prefix: opts.prefix,
					headers: { origin: baseUrl, 'access-control-request-method': opts.method ?? 'POST' },
				});
				if (res.status >= 200 && res.status < 300) return undefined;
				last = `${res.status}`;
			}
		} catch (e) {
			last = String(e);
		}
		if (Date.now() > deadline) {
			throw new Error(
				`webhook ${opts.method ?? 'POST'} /${opts.prefix ?? 'webhook'}/${webhookPath} not registered after ${timeoutMs} ms (last: ${last})`,
			);
		}
		await sleep(opts.intervalMs ?? 200);
	}
}

/** Send a request to a production webhook and return the answer (whatever its status). */
export async function callWebhook<T = unknown>(
	baseUrl: string,
	webhookPath: string,
	opts: {
		method?: string;
		body?: unknown;
		headers?: Record<string, string | string[]>;
		prefix?: string;
		query?: Record<string, string>;
	} = {},
): Promise<WebhookResponse<T>> {
	const q = opts.query ? `?${new URLSearchParams(opts.query).toString()}` : '';
	const url = `${baseUrl.replace(/\/+$/, '')}/${opts.prefix ?? 'webhook'}/${webhookPath}${q}`;
	const res = await httpRequest(url, {
		method: opts.method ?? 'POST',
		headers: opts.headers,
		body: opts.body,
	});
	const text = res.text;
	const body = res.json ?? text;
	return { status: res.status, headers: res.headers, body: body as T, text };
}

export interface DeployedWebhookWorkflow {
	workflow: Workflow;
	webhookPath: string;
	/**
	 * Send `body` to the workflow's webhook with its Webhook node's method (as the query string for
	 * GET); resolves with n8n's answer (the last node's items with responseMode lastNode).
	 */
	run<T = unknown>(
		body?: unknown,
		opts?: { headers?: Record<string, string> },
	): Promise<WebhookResponse<T>>;
}

/**
 * Create and activate a workflow whose first node is a Webhook (see webhookTriggerNode), and wait
 * until its production URL is served. The workflow's webhook path is read from its Webhook node.
 */
export async function deployWebhookWorkflow(
	api: N8nApi,
	input: WorkflowInput,
): Promise<DeployedWebhookWorkflow> {
	const hook = input.nodes.find((n) => n.type === 'n8n-nodes-base.webhook');
	if (!hook) throw new Error(`workflow "${input.name}" has no n8n-nodes-base.webhook node`);
	const webhookPath = String(hook.parameters.path);
	const method = String(hook.parameters.httpMethod ?? 'GET').toUpperCase();
	const workflow = await api.createWorkflow(input);
	await api.activateWorkflow(workflow.id);
	await waitForWebhook(api.baseUrl, webhookPath, { method });
	return {
		workflow,
		webhookPath,
		run: (body, opts) =>
			callWebhook(api.baseUrl, webhookPath, {
				method,
				body: method === 'GET' || method === 'HEAD' ? undefined : (body ?? {}),
				query:
					method === 'GET' && body && typeof body === 'object'
						? (body as Record<string, string>)
						: undefined,
				headers: opts?.headers,
			}),
	};
}

/**
 * The fast way to run a workflow in a running n8n: deploy it (create, activate, wait for its
 * webhook) unless it is already deployed, POST `body` to `<baseUrl>/webhook/<path>`, and return the
 * last node's output items. Throws when n8n does not answer 200.
 */
export async function runWorkflowViaWebhook<T = Record<string, unknown>>(
	api: N8nApi,
	workflow: WorkflowInput | DeployedWebhookWorkflow,
	body: unknown = {},
	opts: { headers?: Record<string, string> } = {},
): Promise<{ items: T[]; response: WebhookResponse<T[]>; deployed: DeployedWebhookWorkflow }> {
	const deployed = 'run' in workflow ? workflow : await deployWebhookWorkflow(api, workflow);
	const response = await deployed.run<T[]>(body, opts);
	if (response.status !== 200) {
		throw new Error(
			`webhook ${deployed.webhookPath} answered ${response.status}: ${response.text.slice(0, 500)}`,
		);
	}
	const items = Array.isArray(response.body) ? response.body : [response.body as unknown as T];
	return { items, response, deployed };
}
