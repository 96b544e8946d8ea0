/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- repository tooling: runs in Node.js, never inside n8n */
/**
 * A webhook trigger run the way n8n 2.x runs it, without n8n: node contexts (IWebhookFunctions,
 * IHookFunctions, IExecuteFunctions) backed by plain data, and the request handling of n8n's live webhooks
 * around them:
 * - workflow static data is loaded before each request, wrapped in n8n's own change-tracking proxy
 *   (n8n-workflow's ObservableObject, as `new Workflow()` does), and saved after the request when its
 *   `__dataChanged` flag is set, last writer wins (n8n's LiveWebhooks + WorkflowStaticDataService);
 * - with `runtime: 'newest'` (n8n 2.41), starting an execution wraps the same static data a second time,
 *   which resets that flag (WorkflowRunner.establishContextForPersistence), as 2.41's own ObservableObject does;
 * - a node that answers on the response object and returns `noWebhookResponse` starts nothing;
 * - no `workflowData`: 200 with `webhookResponse` (or n8n's "Webhook call received"); with it, n8n inserts
 *   and starts an execution (a wait, during which other requests run), then reads `webhookResponse` for the
 *   answer (the trigger's responseData is empty), saves static data and answers 200; the execution (the
 *   node's `execute`, then nothing else) runs after; when it cannot start the execution it answers 500
 *   without reading `webhookResponse`;
 * - a thrown error: 500, and n8n records a failed execution;
 * - the response emits 'prefinish', 'finish', then 'close', once answered, as Node's http response does; when
 *   the provider has given up first, 'close' at once, then only 'prefinish' when n8n ends the response;
 *   nothing when n8n's save never returns;
 * - a trigger's emit saves static data, then runs the execution and settles the emit's donePromise once
 *   it has run; when n8n's runWorkflow fails, no execution runs and the donePromise never settles (n8n's
 *   ActiveWorkflowManager only chains it to a started execution);
 * - parameters not set on the node take the defaults of the node's description.
 * `startTriggerReceiver` puts that behind a real HTTP server, for deliveries from the sandbox.
 */
import { EventEmitter } from 'events';
import * as http from 'http';
import type { AddressInfo } from 'net';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IDeferredPromise,
	IExecuteFunctions,
	IHookFunctions,
	INode,
	IObservableObject,
	INodeExecutionData,
	INodeType,
	IRun,
	ITriggerFunctions,
	ITriggerResponse,
	IWebhookFunctions,
	IWebhookResponseData,
	WorkflowActivateMode,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { ObservableObject, createDeferredPromise } from 'n8n-workflow';
import { ObservableObject as ObservableObjectNewest } from 'n8n-workflow-newest';

import { authenticatedRequester, CredentialStore, httpRequest } from './n8nCore';

export { httpRequest };

export interface TriggerSetup {
	/** Node parameters; the rest take the defaults of the node's description. */
	parameters?: IDataObject;
	/** Decrypted credential data by credential type name. */
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	/** 'webhook' for the production URL, 'manual' for "listen for test event". */
	mode?: WorkflowExecuteMode;
	workflowId?: string;
	/** False for the inactive copy n8n uses for test webhooks. */
	workflowActive?: boolean;
	nodeName?: string;
	nodeId?: string;
	/** Whose static data handling to imitate: n8n 2.8.4 ('oldest', default) or 2.41 ('newest'). */
	runtime?: 'oldest' | 'newest';
	/** The production webhook URL n8n gives activation (getNodeWebhookUrl). */
	webhookUrl?: string;
}

/** Workflow static data as n8n keeps it in the database (JSON): a copy per request, saved whole after it. */
export class StaticDataStore {
	private savedJson = '{}';

	saves = 0;

	load(): IDataObject {
		return JSON.parse(this.savedJson) as IDataObject;
	}

	/** n8n's saveStaticData: writes the whole object when a node changed it (its `__dataChanged` flag), replacing whatever was there. */
	saveIfChanged(loaded: LoadedStaticData): void {
		if (loaded.root.__dataChanged !== true) return;
		this.savedJson = JSON.stringify(loaded.root);
		loaded.root.__dataChanged = false;
		this.saves++;
	}

	/** What is saved now, as n8n copies it into an execution it creates. */
	copy(): string {
		return this.savedJson;
	}

	/** Loses everything saved, as a database restored from an old backup would. */
	clear(): void {
		this.savedJson = '{}';
	}

	/** The node's part, as `getWorkflowStaticData('node')` sees it. */
	nodeData(nodeName: string): IDataObject | undefined {
		return this.load()[`node:${nodeName}`] as IDataObject | undefined;
	}
}

/** Static data as one request sees it: the object read from the database and n8n's proxy over it. */
export interface LoadedStaticData {
	raw: IDataObject;
	root: IDataObject & { __dataChanged?: boolean };
}

function loadStaticData(store: StaticDataStore): LoadedStaticData {
	return staticDataOf(store.load());
}

/** Static data read from `raw` (the database's JSON, or an execution's copy of it). */
function staticDataOf(raw: IDataObject): LoadedStaticData {
	return {
		raw,
		root: ObservableObject.create(raw, undefined, {
			ignoreEmptyOnFirstChild: true,
		}) as LoadedStaticData['root'],
	};
}

/** n8n 2.41's WorkflowRunner.establishContextForPersistence: a second Workflow over the same static data. */
function wrapAgainAsNewestDoes(loaded: LoadedStaticData): void {
	ObservableObjectNewest.create(loaded.raw, undefined, { ignoreEmptyOnFirstChild: true });
}

/**
 * Records what the node writes on the response object (the express subset n8n's nodes use); the harness
 * emits its events.
 */
export class ResponseRecorder extends EventEmitter {
	statusCode = 200;

	body: unknown;

	headersSent = false;

	status(code: number) {
		this.statusCode = code;
		return this;
	}

	json(body: unknown) {
		this.body = body;
		this.headersSent = true;
		return this;
	}

	send(body?: unknown) {
		return this.json(body);
	}

	end() {
		this.headersSent = true;
		return this;
	}
}

export interface IncomingDelivery {
	headers: Record<string, string | string[] | undefined>;
	/** The bytes as sent. */
	body: Buffer | string;
	/** False: `rawBody` is absent until the node calls `readRawBody()`, as for content types n8n does not parse. */
	rawBodyPresent?: boolean;
}

interface RequestObject {
	headers: IncomingDelivery['headers'];
	rawBody?: Buffer;
	readRawBody: () => Promise<void>;
	body: unknown;
}

function requestObject(
	delivery: IncomingDelivery,
	readStream?: () => Promise<Buffer>,
): RequestObject {
	const bytes = Buffer.isBuffer(delivery.body) ? delivery.body : Buffer.from(delivery.body);
	const request: RequestObject = {
		headers: delivery.headers,
		rawBody: delivery.rawBodyPresent === false ? undefined : bytes,
		readRawBody: async () => {
			request.rawBody ??= readStream ? await readStream() : bytes;
		},
		body: {},
	};
	return request;
}

/** n8n reads credentials and workflows from its database: a real wait, during which other requests run. */
const databaseRead = () => new Promise<void>((resolve) => setImmediate(resolve));

export const NODE_TYPE = 'n8n-nodes-background-check.backgroundCheckTrigger';

/** Top-level defaults of the description, overlaid with the node's own parameters, like n8n fills them. */
function effectiveParameters(nodeType: INodeType, parameters: IDataObject = {}): IDataObject {
	const defaults: IDataObject = {};
	for (const property of nodeType.description.properties) {
		if (property.type !== 'notice')
			defaults[property.name] = structuredClone(property.default) as IDataObject[string];
	}
	return { ...defaults, ...parameters };
}

function parameterGetter(parameters: IDataObject) {
	return (name: string, fallback?: unknown) => {
		let value: unknown = parameters;
		for (const part of name.split('.')) value = (value as IDataObject | undefined)?.[part];
		return value === undefined ? fallback : value;
	};
}

export interface LoggedLine {
	level: string;
	message: string;
}

interface ContextParts {
	nodeType: INodeType;
	setup: TriggerSetup;
	staticData: LoadedStaticData;
	logs: LoggedLine[];
}

function baseContext({ nodeType, setup, staticData, logs }: ContextParts) {
	const parameters = effectiveParameters(nodeType, setup.parameters);
	const credentials = setup.credentials ?? {};
	const node: INode = {
		id: setup.nodeId ?? 'node-1',
		name: setup.nodeName ?? 'Background Check Trigger',
		type: NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: parameters as INode['parameters'],
	};
	const log = (level: string) => (message: string) => logs.push({ level, message });
	return {
		getNode: () => node,
		getWorkflow: () => ({
			id: setup.workflowId ?? 'workflow-1',
			name: 'Test workflow',
			active: setup.workflowActive ?? true,
		}),
		getMode: () => setup.mode ?? 'webhook',
		getNodeParameter: parameterGetter(parameters),
		getCredentials: async (type: string) => {
			await databaseRead();
			if (!credentials[type])
				throw new Error(`Node "${node.name}" does not have any credentials of type "${type}" set`);
			return { ...credentials[type] };
		},
		// n8n-workflow's Workflow.getStaticData.
		getWorkflowStaticData: (type: string) => {
			const key = type === 'node' ? `node:${node.name}` : type;
			if (staticData.root[key] === undefined)
				staticData.root[key] = ObservableObject.create(
					{},
					staticData.root as unknown as IObservableObject,
				) as IDataObject;
			return staticData.root[key] as IDataObject;
		},
		logger: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') },
		helpers: {
			createDeferredPromise,
			returnJsonArray: (items: IDataObject[]): INodeExecutionData[] =>
				items.map((json) => ({ json })),
			httpRequest,
			// Stores over the setup's own credential objects: a token exchanged in one request is there for the next.
			httpRequestWithAuthentication: authenticatedRequester(
				node,
				Object.fromEntries(
					Object.entries(credentials).map(([type, data]) => [type, new CredentialStore(data)]),
				),
			),
		},
	};
}

export function createWebhookContext(
	parts: ContextParts & { request: RequestObject; response: ResponseRecorder },
): IWebhookFunctions {
	return {
		...baseContext(parts),
		getRequestObject: () => parts.request,
		getResponseObject: () => parts.response,
		getHeaderData: () => parts.request.headers,
		getBodyData: () => parts.request.body,
		getWebhookName: () => 'default',
	} as unknown as IWebhookFunctions;
}

export function createExecuteContext(
	parts: ContextParts & { items: INodeExecutionData[] },
): IExecuteFunctions {
	const base = baseContext(parts);
	return {
		...base,
		getInputData: () => parts.items,
		getNodeParameter: (name: string, _itemIndex: number, fallback?: unknown) =>
			base.getNodeParameter(name, fallback),
		continueOnFail: () => false,
	} as unknown as IExecuteFunctions;
}

interface TriggerParts {
	activation: WorkflowActivateMode;
	emit: (
		data: INodeExecutionData[][],
		responsePromise?: unknown,
		donePromise?: IDeferredPromise<IRun>,
	) => void;
	saveFailedExecution: (error: Error) => void;
	registerCron: (cron: { expression: string }, onTick: () => unknown) => void;
}

export function createTriggerContext(parts: ContextParts & TriggerParts): ITriggerFunctions {
	const base = baseContext(parts);
	return {
		...base,
		getMode: () => (parts.setup.mode === 'manual' ? 'manual' : 'trigger'),
		getActivationMode: () => parts.activation,
		emit: parts.emit,
		saveFailedExecution: parts.saveFailedExecution,
		emitError: (error: Error) => {
			throw error;
		},
		helpers: { ...base.helpers, registerCron: parts.registerCron },
	} as unknown as ITriggerFunctions;
}

export function createHookContext(
	parts: ContextParts & { activation: WorkflowActivateMode },
): IHookFunctions {
	return {
		...baseContext(parts),
		getActivationMode: () => parts.activation,
		getWebhookName: () => 'default',
		getNodeWebhookUrl: () => parts.setup.webhookUrl ?? 'http://127.0.0.1:5678/webhook/test/webhook',
	} as unknown as IHookFunctions;
}

export interface HandledDelivery {
	/** Undefined when the node answered nothing (n8n would leave the request open). */
	statusCode: number | undefined;
	body: unknown;
	/** Items of the execution started, if any. */
	items?: IDataObject[];
	/** The error a failed execution would show. */
	error?: Error;
}

/** One trigger node in one workflow, with its static data and the executions it started. */
export class TriggerHarness {
	readonly store = new StaticDataStore();

	/** The trigger's output items of each execution started, in order (filled in once its `execute` has run). */
	readonly executions: IDataObject[][] = [];

	readonly failedExecutions: Error[] = [];

	readonly logs: LoggedLine[] = [];

	/** Every request handled, with the body bytes the node saw. */
	readonly received: IncomingDelivery[] = [];

	private readonly running = new Set<Promise<unknown>>();

	/** How many of the next executions n8n fails to start (it then answers 500, as when its database fails). */
	failStarts = 0;

	/** False for a queue-mode webhook process: a worker runs the executions it starts, not this process. */
	runsExecutions = true;

	/** How many of the trigger's next emits n8n's runWorkflow fails (no execution, the donePromise never settles). */
	failRunWorkflows = 0;

	/** What the node's trigger method set up at activation: its static data, scheduled ticks, and close function. */
	private activeTrigger:
		| { response: ITriggerResponse; crons: Array<{ expression: string; onTick: () => unknown }> }
		| undefined;

	/** Errors the trigger saved as failed executions (a failed look of the watchdog). */
	readonly failedTriggerRuns: Error[] = [];

	constructor(
		public nodeType: INodeType,
		public setup: TriggerSetup,
	) {}

	/**
	 * Handles one request as n8n's live webhook handler does and resolves with the answer; an execution it
	 * started goes on after that (see {@link idle}). `saveAfterMs` delays the static data save, as starting
	 * the execution does in n8n, to order saves of concurrent requests. `startAfter` holds the request
	 * where n8n inserts and starts the execution, between the node's answer and the read of `webhookResponse`.
	 * `providerGivesUp`: the provider closes the connection (its deadline passed) before n8n saves static data.
	 * `saveHangs`: n8n's save of static data never returns (a database that stopped answering): no answer.
	 */
	async handle(
		delivery: IncomingDelivery,
		{
			readStream,
			saveAfterMs,
			startAfter,
			providerGivesUp = false,
			saveHangs = false,
		}: {
			readStream?: () => Promise<Buffer>;
			saveAfterMs?: number;
			startAfter?: Promise<void>;
			providerGivesUp?: boolean;
			saveHangs?: boolean;
		} = {},
	): Promise<HandledDelivery> {
		const staticData = loadStaticData(this.store);
		const response = new ResponseRecorder();
		const request = requestObject(delivery, readStream);
		const parts = { nodeType: this.nodeType, setup: this.setup, staticData, logs: this.logs };
		const context = createWebhookContext({ ...parts, request, response });
		let handled: HandledDelivery;
		let started: INodeExecutionData[] | undefined;
		try {
			const result: IWebhookResponseData = await this.nodeType.webhook!.call(context);
			const starts = !result.noWebhookResponse && result.workflowData !== undefined;
			// n8n inserts and starts the execution before it reads the answer.
			if (starts) await (startAfter ?? databaseRead());
			if (result.noWebhookResponse) {
				handled = {
					statusCode: response.headersSent ? response.statusCode : undefined,
					body: response.body,
				};
			} else if (result.workflowData === undefined) {
				handled = {
					statusCode: 200,
					body: result.webhookResponse ?? { message: 'Webhook call received' },
				};
			} else if (this.failStarts > 0) {
				this.failStarts--;
				handled = { statusCode: 500, body: { message: 'Could not start the execution' } };
			} else {
				started = result.workflowData[0];
				if (this.setup.runtime === 'newest') wrapAgainAsNewestDoes(staticData);
				// responseMode onReceived with an empty responseData: the answer is webhookResponse, read after the start.
				handled = {
					statusCode: 200,
					body: result.webhookResponse,
					items: started.map((item) => item.json),
				};
			}
		} catch (error) {
			this.failedExecutions.push(error as Error);
			handled = {
				statusCode: 500,
				body: { message: (error as Error).message },
				error: error as Error,
			};
		}
		if (providerGivesUp) response.emit('close');
		await (saveAfterMs
			? new Promise((resolve) => setTimeout(resolve, saveAfterMs))
			: databaseRead());
		if (this.setup.mode !== 'manual' && !saveHangs) this.store.saveIfChanged(staticData);
		this.received.push({
			headers: delivery.headers,
			body: request.rawBody ?? Buffer.from(delivery.body),
		});
		if (started) void this.startExecution(started);
		if (handled.statusCode !== undefined) response.statusCode = handled.statusCode;
		if (saveHangs) return { statusCode: undefined, body: undefined, items: handled.items };
		response.emit('prefinish');
		if (providerGivesUp) return handled;
		response.emit('finish');
		response.emit('close');
		return handled;
	}

	/**
	 * The execution n8n runs after answering (or after the trigger emitted, or at its start for a row left
	 * `new`): the trigger's `execute` on its items. Resolves with the first step's output.
	 */
	async startExecution(items: INodeExecutionData[]): Promise<INodeExecutionData[] | undefined> {
		const output = items.map((item) => item.json);
		this.executions.push(output);
		const execute = this.nodeType.execute;
		if (!execute || !this.runsExecutions) return undefined;
		const staticData = loadStaticData(this.store);
		const context = createExecuteContext({
			nodeType: this.nodeType,
			setup: this.setup,
			staticData,
			logs: this.logs,
			items,
		});
		const run = (async () => {
			try {
				const [result] = (await execute.call(context)) as INodeExecutionData[][];
				output.splice(0, output.length, ...result.map((item) => item.json));
				// n8n saves the static data an execution changed when it ends.
				this.store.saveIfChanged(staticData);
				return result;
			} catch (error) {
				this.failedExecutions.push(error as Error);
				return undefined;
			}
		})();
		this.running.add(run);
		void run.finally(() => this.running.delete(run));
		return await run;
	}

	/**
	 * A queue-mode worker running an execution: `execute` of `nodeType` (loaded afresh: no process memory)
	 * on `items`, with the static data n8n copied into the execution when it created it, saved as n8n saves
	 * it when the execution ends.
	 */
	async executeOnWorker(
		nodeType: INodeType,
		items: INodeExecutionData[],
		copyAtCreation: string,
	): Promise<void> {
		const staticData = staticDataOf(JSON.parse(copyAtCreation) as IDataObject);
		const context = createExecuteContext({
			nodeType,
			setup: this.setup,
			staticData,
			logs: this.logs,
			items,
		});
		await nodeType.execute!.call(context);
		this.store.saveIfChanged(staticData);
	}

	/** Resolves once every execution started so far has finished. */
	async idle(): Promise<void> {
		while (this.running.size > 0) await Promise.all([...this.running]);
	}

	/** Runs a webhook lifecycle method (checkExists, create, delete) with the saved static data. */
	async lifecycle(
		method: 'checkExists' | 'create' | 'delete',
		activation: WorkflowActivateMode = 'activate',
	): Promise<boolean> {
		const staticData = loadStaticData(this.store);
		const context = createHookContext({
			nodeType: this.nodeType,
			setup: this.setup,
			staticData,
			logs: this.logs,
			activation,
		});
		const lifecycleMethod = this.nodeType.webhookMethods?.default?.[method];
		if (!lifecycleMethod) throw new Error(`The node has no webhook method ${method}`);
		const result = await lifecycleMethod.call(context);
		this.store.saveIfChanged(staticData);
		return result;
	}

	/**
	 * n8n's activation: checkExists, then create when it answered false; then the trigger method, whose
	 * static data stays loaded for the whole activation (saved when it emits, as n8n does).
	 */
	async activate(activation: WorkflowActivateMode = 'activate'): Promise<void> {
		if (!(await this.lifecycle('checkExists', activation)))
			await this.lifecycle('create', activation);
		await this.deactivateTrigger();
		if (!this.nodeType.trigger) return;
		const staticData = loadStaticData(this.store);
		const crons: Array<{ expression: string; onTick: () => unknown }> = [];
		const context = createTriggerContext({
			nodeType: this.nodeType,
			setup: this.setup,
			staticData,
			logs: this.logs,
			activation,
			emit: (data, _responsePromise, donePromise) => {
				this.store.saveIfChanged(staticData);
				if (this.failRunWorkflows > 0) {
					this.failRunWorkflows--;
					return;
				}
				void this.startExecution(data[0]).then(() =>
					donePromise?.resolve({ status: 'success' } as IRun),
				);
			},
			saveFailedExecution: (error) => this.failedTriggerRuns.push(error),
			registerCron: (cron, onTick) => crons.push({ expression: cron.expression, onTick }),
		});
		const response = await this.nodeType.trigger.call(context);
		this.store.saveIfChanged(staticData);
		this.activeTrigger = { response: response ?? {}, crons };
	}

	/** The cron expressions the trigger registered with n8n's scheduler. */
	get schedules(): string[] {
		return this.activeTrigger?.crons.map((cron) => cron.expression) ?? [];
	}

	/** Runs every scheduled task once, as n8n's scheduler does when they fall due, and waits for them. */
	async tick(): Promise<void> {
		for (const { onTick } of this.activeTrigger?.crons ?? []) await onTick();
	}

	/** n8n's deactivation of the trigger method: its close function. */
	async deactivateTrigger(): Promise<void> {
		await this.activeTrigger?.response.closeFunction?.();
		this.activeTrigger = undefined;
	}

	get runCount(): number {
		return this.executions.length;
	}
}

export interface TriggerReceiver {
	/** The webhook URL to subscribe in the sandbox. */
	url: string;
	/** Status codes answered, in order. */
	answers: Array<number | undefined>;
	stop(): Promise<void>;
}

/** Serves a harness over HTTP on 127.0.0.1; the raw body is read from the socket only when the node asks. */
export async function startTriggerReceiver(
	harness: TriggerHarness,
	options: { rawBodyPresent?: boolean } = {},
): Promise<TriggerReceiver> {
	const answers: Array<number | undefined> = [];
	const server = http.createServer((request, response) => {
		const readStream = () =>
			new Promise<Buffer>((resolve, reject) => {
				const chunks: Buffer[] = [];
				request.on('data', (chunk: Buffer) => chunks.push(chunk));
				request.on('end', () => resolve(Buffer.concat(chunks)));
				request.on('error', reject);
			});
		const answer = async () => {
			const body = options.rawBodyPresent === false ? Buffer.alloc(0) : await readStream();
			const handled = await harness.handle(
				{ headers: request.headers, body, rawBodyPresent: options.rawBodyPresent },
				{ readStream },
			);
			answers.push(handled.statusCode);
			response.statusCode = handled.statusCode ?? 204;
			if (handled.body !== undefined) response.setHeader('content-type', 'application/json');
			response.end(handled.body === undefined ? undefined : JSON.stringify(handled.body));
		};
		answer().catch((error: Error) => {
			response.statusCode = 500;
			response.end(error.message);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/webhook/background-check`,
		answers,
		stop: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
