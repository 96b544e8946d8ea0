/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- repository tooling: runs in Node.js, never inside n8n */
/**
 * A small deterministic model of one n8n instance (regular mode) running the trigger's real code: the
 * workflow's static data in the database, execution rows, the webhook request handling, executions, the
 * active workflow's watchdog, crashes, starts and Updates of the package. Time is jest's fake clock, moved
 * by the caller (`advance`); every step is one call, so a test can stop n8n between any two.
 *
 * What each step stands for (paths in n8n-io/n8n, packages/cli/src/; docs/trigger-state.md):
 * - a request (`webhooks/webhook-helpers.ts`): static data loaded, the node's webhook function, the execution
 *   row inserted, the run started (`workflow-runner.ts`), the answer read, static data serialized when
 *   changed, written, and the response ended; when the run cannot start, 500 without reading the answer;
 * - an execution: the trigger's first step on the static data copied at its start, then its end, which
 *   saves that copy when the node changed it (`execution-lifecycle-hooks.ts`);
 * - the watchdog (`active-workflow-manager.ts`): activation's checkExists, then the node's trigger function
 *   on the static data the active workflow keeps; an emit saves it, then inserts and runs the execution and
 *   settles the emit's donePromise when it has ended;
 * - a crash loses every process state (the node's modules are loaded anew at the next start); an Update
 *   loads the package anew for requests and executions while the watchdog keeps the version it started with
 *   (`community-packages/community-packages.service.ts`).
 */
import { EventEmitter } from 'events';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IDeferredPromise,
	IHttpRequestOptions,
	INode,
	INodeExecutionData,
	INodeType,
	IObservableObject,
	IRun,
	ITriggerResponse,
	IWebhookResponseData,
} from 'n8n-workflow';
import * as n8nWorkflow from 'n8n-workflow';

const { ObservableObject, createDeferredPromise } = n8nWorkflow;

/** Loads the node's code afresh, with module state of its own: a new process, or a new package version. */
export function loadNode(): INodeType {
	let nodeType!: INodeType;
	jest.isolateModules(() => {
		// One n8n-workflow for every copy of the node, as n8n gives every package its own.
		jest.doMock('n8n-workflow', () => n8nWorkflow);
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const loaded = require('../../nodes/BackgroundCheckTrigger/BackgroundCheckTrigger.node') as {
			BackgroundCheckTrigger: new () => INodeType;
		};
		nodeType = new loaded.BackgroundCheckTrigger();
	});
	return nodeType;
}

type Root = IDataObject & { __dataChanged?: boolean };

/** Static data as one request, execution or active workflow holds it: n8n's change-tracking proxy. */
const staticDataOf = (json: string): Root =>
	ObservableObject.create(JSON.parse(json) as IDataObject, undefined, {
		ignoreEmptyOnFirstChild: true,
	}) as Root;

/** n8n's saveStaticData: the whole object, when a node changed it. */
const serialized = (root: Root): string | undefined => {
	if (root.__dataChanged !== true) return undefined;
	root.__dataChanged = false;
	return JSON.stringify(root);
};

/** The API's answer to a request the node makes: status and body. */
export type Api = (method: string, path: string) => { statusCode: number; body: unknown };

export interface ModelSetup {
	parameters: IDataObject;
	credentials: Record<string, ICredentialDataDecryptedObject>;
	api: Api;
}

export interface Row {
	id: number;
	item: IDataObject;
	/** Started by the watchdog's emit. */
	found: boolean;
	status: 'new' | 'running' | 'success' | 'crashed';
	/** Its first step output nothing. */
	stopped?: boolean;
	/** Step order of its insert, and of the moment nothing of it was in flight any more. */
	insertedAs: number;
	settledAs?: number;
	ended?: boolean;
	answered?: boolean;
	/** Its execution's save, or its emit's, landed while a request's save was on its way to the database. */
	raced?: boolean;
}

export interface Request {
	headers: Record<string, string>;
	body: string;
	failRun: boolean;
	step: 'load' | 'webhook' | 'insert' | 'running' | 'answerRead' | 'save' | 'commit' | 'answer';
	nodeType?: INodeType;
	staticData?: Root;
	response: Response;
	result?: { value?: IWebhookResponseData; error?: unknown };
	row?: Row;
	written?: string;
	/** The HTTP status n8n answered, once answered. */
	answer?: number;
}

interface Execution {
	row: Row;
	nodeType: INodeType;
	staticData: Root;
	step: 'execute' | 'running' | 'end';
	result?: { value?: INodeExecutionData[][] | null; error?: unknown };
	onEnd?: () => void;
}

/** The response object: what the node writes, and n8n's end of it ('prefinish', as Node's http emits). */
class Response extends EventEmitter {
	statusCode = 200;
	status(code: number) {
		this.statusCode = code;
		return this;
	}
	json() {
		return this;
	}
	send() {
		return this;
	}
	end() {
		return this;
	}
}

interface Process {
	/** The package version requests and executions run. */
	nodeType: INodeType;
	watchdog?: {
		nodeType: INodeType;
		staticData: Root;
		look?: () => Promise<void> | void;
		close?: () => Promise<void>;
	};
}

const settled = <T>(promise: Promise<T>, into: { result?: { value?: T; error?: unknown } }) =>
	promise.then(
		(value) => (into.result = { value }),
		(error: unknown) => (into.result = { error }),
	);

/** Lets every promise the node has pending run as far as it can without the clock moving. */
export const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

export class N8nModel {
	db = '{}';
	readonly rows: Row[] = [];
	requests: Request[] = [];
	executions: Execution[] = [];
	process: Process | undefined;
	/** Step order: inserts, settled rows, Updates and stops. */
	order = 0;
	/** From each Update until n8n stops: two versions of the package in one process. */
	readonly afterUpdates: Array<{ from: number; to?: number }> = [];
	readonly failedExecutions: string[] = [];
	private readonly node: INode;
	private readonly parameters: IDataObject;

	constructor(private readonly setup: ModelSetup) {
		const described = loadNode().description.properties;
		const defaults = Object.fromEntries(
			described
				.filter(({ type }) => type !== 'notice')
				.map(({ name, default: value }) => [name, structuredClone(value)]),
		) as IDataObject;
		this.parameters = { ...defaults, ...setup.parameters };
		this.node = {
			id: 'node-1',
			name: 'Background Check Trigger',
			type: 'n8n-nodes-background-check.backgroundCheckTrigger',
			typeVersion: 1,
			position: [0, 0],
			parameters: this.parameters as INode['parameters'],
			credentials: Object.fromEntries(
				Object.keys(setup.credentials).map((type) => [type, { id: type, name: type }]),
			),
		};
	}

	get up(): boolean {
		return this.process !== undefined;
	}

	/** Moves the clock: the node's waits see the time pass. */
	async advance(ms: number): Promise<void> {
		jest.advanceTimersByTime(ms);
		await flush();
	}

	// --- the provider's side of a request ---

	deliver(headers: Record<string, string>, body: string, failRun = false): Request | undefined {
		if (!this.process) return undefined;
		const request: Request = { headers, body, failRun, step: 'load', response: new Response() };
		this.requests.push(request);
		return request;
	}

	/** Advances one request by one of n8n's steps. */
	stepRequest(request: Request): void {
		const process = this.process;
		if (!process || !this.requests.includes(request)) return;
		switch (request.step) {
			case 'load': {
				request.nodeType = process.nodeType;
				request.staticData = staticDataOf(this.db);
				const context = this.context(request.staticData, 'webhook', {
					getRequestObject: () => ({
						headers: request.headers,
						rawBody: Buffer.from(request.body),
						body: JSON.parse(request.body) as unknown,
					}),
					getHeaderData: () => request.headers,
					getResponseObject: () => request.response,
				});
				void settled(Promise.resolve(request.nodeType.webhook!.call(context as never)), request);
				request.step = 'webhook';
				return;
			}
			case 'webhook': {
				if (!request.result) return;
				const { value, error } = request.result;
				if (error !== undefined) return this.answer(request, 500);
				if (value?.noWebhookResponse) return this.answer(request, request.response.statusCode);
				request.step = value?.workflowData ? 'insert' : 'save';
				return;
			}
			case 'insert':
				request.row = this.insert(request.result!.value!.workflowData![0][0].json, false);
				request.step = 'running';
				return;
			case 'running':
				if (request.failRun) {
					// run() threw after the insert (the database closing in a stop): 500, no answer read, no save.
					this.answer(request, 500);
					this.crash();
					return;
				}
				this.startExecution(request.row!);
				request.step = 'answerRead';
				return;
			case 'answerRead':
				void request.result!.value!.webhookResponse;
				request.step = 'save';
				return;
			case 'save':
				request.written = serialized(request.staticData!);
				request.step = 'commit';
				return;
			case 'commit':
				if (request.written !== undefined) this.db = request.written;
				request.written = undefined;
				request.step = 'answer';
				return;
			case 'answer':
				this.answer(request, 200);
		}
	}

	private answer(request: Request, status: number): void {
		request.answer = status;
		this.requests = this.requests.filter((other) => other !== request);
		request.response.emit('prefinish');
		if (request.row) this.settle(request.row, 'answered');
	}

	/** A request's save serialized and not yet written: a save landing meanwhile may be overwritten. */
	private saveOnItsWay(): boolean {
		return this.requests.some(({ step, written }) => step === 'commit' && written !== undefined);
	}

	private settle(row: Row, what: 'ended' | 'answered'): void {
		row[what] = true;
		if (row.ended && (row.found || row.answered)) row.settledAs = this.order++;
	}

	private insert(item: IDataObject, found: boolean): Row {
		const row: Row = { id: this.rows.length, item, found, status: 'new', insertedAs: this.order++ };
		this.rows.push(row);
		return row;
	}

	private startExecution(row: Row, onEnd?: () => void): Execution {
		row.status = 'running';
		const execution: Execution = {
			row,
			nodeType: this.process!.nodeType,
			staticData: staticDataOf(this.db),
			step: 'execute',
			onEnd,
		};
		this.executions.push(execution);
		return execution;
	}

	/** Advances one execution: its first step starts, or has returned, or the execution ends. */
	stepExecution(execution: Execution): void {
		if (!this.process || !this.executions.includes(execution)) return;
		if (execution.step === 'execute') {
			const context = this.context(
				execution.staticData,
				execution.row.found ? 'trigger' : 'webhook',
				{
					getInputData: () => [{ json: execution.row.item }],
				},
			);
			void settled(Promise.resolve(execution.nodeType.execute!.call(context as never)), execution);
			execution.step = 'running';
			return;
		}
		if (execution.step === 'running') {
			if (!execution.result) return;
			execution.row.stopped = (execution.result.value?.[0]?.length ?? 0) === 0;
			execution.step = 'end';
			return;
		}
		const written = serialized(execution.staticData);
		if (written !== undefined) {
			this.db = written;
			if (this.saveOnItsWay()) execution.row.raced = true;
		}
		execution.row.status = execution.result?.error === undefined ? 'success' : 'crashed';
		this.settle(execution.row, 'ended');
		this.executions = this.executions.filter((other) => other !== execution);
		execution.onEnd?.();
	}

	// --- the active workflow ---

	/** Activation (a user's, or n8n's at its start): checkExists, then the watchdog; each saves static data. */
	async activate(mode: 'activate' | 'init'): Promise<void> {
		const process = this.process!;
		const staticData = staticDataOf(this.db);
		const watchdog: NonNullable<Process['watchdog']> = { nodeType: process.nodeType, staticData };
		process.watchdog = watchdog;
		const hook = this.context(staticData, 'trigger', {
			getNodeWebhookUrl: () => 'http://n8n.test/webhook/trigger',
		});
		const checking = settled(
			watchdog.nodeType.webhookMethods!.default!.checkExists.call(hook as never),
			{},
		);
		await flush();
		await checking;
		this.saveActive(watchdog);
		const trigger = this.context(staticData, 'trigger', {
			getActivationMode: () => mode,
			emit: (data: INodeExecutionData[][], _response: unknown, done?: IDeferredPromise<IRun>) =>
				this.emit(watchdog, data, done),
			saveFailedExecution: (error: Error) => this.failedExecutions.push(error.message),
		});
		const response: { result?: { value?: ITriggerResponse; error?: unknown } } = {};
		const starting = settled(
			Promise.resolve(watchdog.nodeType.trigger!.call(trigger as never)),
			response,
		);
		await flush();
		await starting;
		watchdog.close = response.result?.value?.closeFunction;
		this.saveActive(watchdog);
	}

	/** One scheduled look of the watchdog, run to its end (its executions are only started). */
	async look(): Promise<void> {
		const look = this.process?.watchdog?.look;
		if (!look) return;
		const done = Promise.resolve(look());
		await flush();
		await done;
	}

	private saveActive(watchdog: NonNullable<Process['watchdog']>): void {
		const written = serialized(watchdog.staticData);
		if (written !== undefined) this.db = written;
	}

	private emit(
		watchdog: NonNullable<Process['watchdog']>,
		data: INodeExecutionData[][],
		done?: IDeferredPromise<IRun>,
	): void {
		if (this.process?.watchdog !== watchdog) return;
		const written = serialized(watchdog.staticData);
		if (written !== undefined) this.db = written;
		const row = this.insert(data[0][0].json, true);
		row.raced = this.saveOnItsWay();
		this.startExecution(row, () => done?.resolve({} as IRun));
	}

	// --- the process ---

	/** n8n's Update of the package: requests and executions load the new version; the watchdog keeps its own. */
	update(): void {
		if (!this.process) return;
		this.afterUpdates.push({ from: this.order++ });
		this.process.nodeType = loadNode();
	}

	/** n8n dies: every request, execution and process state is gone. */
	crash(): void {
		if (!this.process) return;
		this.process = undefined;
		for (const span of this.afterUpdates) span.to ??= this.order++;
		this.requests = [];
		this.executions = [];
		// The node's pending waits die with the process; clearing them resets jest's clock, put back here.
		const now = Date.now();
		jest.clearAllTimers();
		jest.setSystemTime(now);
	}

	/**
	 * n8n starts (`commands/start.ts`): running rows are marked crashed; rows left new are run, or marked
	 * crashed too when the event log shows them begun (`newRowsCrashed`), without being awaited; then the
	 * workflow is activated. `recoveredFirst`: their first steps run before the activation.
	 */
	async start(
		newRowsCrashed = false,
		recoveredFirst = false,
		mode: 'activate' | 'init' = 'init',
	): Promise<void> {
		if (this.process) return;
		this.process = { nodeType: loadNode() };
		for (const row of this.rows)
			if (row.status === 'running' || (newRowsCrashed && row.status === 'new'))
				row.status = 'crashed';
		const recovered = this.rows
			.filter(({ status }) => status === 'new')
			.map((row) => this.startExecution(row));
		if (recoveredFirst) {
			for (const execution of recovered) this.stepExecution(execution);
			await flush();
			for (const execution of recovered) this.stepExecution(execution);
		}
		await this.activate(mode);
	}

	/** A node context: what n8n's contexts offer the trigger, over `staticData`. */
	private context(staticData: Root, mode: 'webhook' | 'trigger', extra: IDataObject) {
		const parameters = this.parameters;
		const valueOf = (name: string, fallback?: unknown) => {
			let value: unknown = parameters;
			for (const part of name.split('.')) value = (value as IDataObject | undefined)?.[part];
			return value === undefined ? fallback : value;
		};
		const process = this.process!;
		const api = this.setup.api;
		const quiet = () => undefined;
		return {
			getNode: () => this.node,
			getWorkflow: () => ({ id: 'workflow-1', name: 'Workflow', active: true }),
			getMode: () => mode,
			getNodeParameter: (name: string, indexOrFallback?: unknown, fallback?: unknown) =>
				'getInputData' in extra ? valueOf(name, fallback) : valueOf(name, indexOrFallback),
			getCredentials: async (type: string) => ({ ...this.setup.credentials[type] }),
			getWorkflowStaticData: (type: string) => {
				const key = type === 'node' ? `node:${this.node.name}` : type;
				if (staticData[key] === undefined)
					staticData[key] = ObservableObject.create(
						{},
						staticData as unknown as IObservableObject,
					) as IDataObject;
				return staticData[key] as IDataObject;
			},
			logger: { debug: quiet, info: quiet, warn: quiet, error: quiet },
			helpers: {
				createDeferredPromise,
				registerCron: (_schedule: unknown, look: () => Promise<void> | void) => {
					if (process.watchdog) process.watchdog.look = look;
				},
				httpRequestWithAuthentication: async (_type: string, options: IHttpRequestOptions) => {
					const path = new URL(options.url).pathname;
					return await Promise.resolve(api(options.method ?? 'GET', path));
				},
			},
			...extra,
		};
	}
}
