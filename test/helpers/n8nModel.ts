/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @typescript-eslint/no-require-imports -- repository tooling: runs in Node.js, never inside n8n; require() in jest.isolateModules loads the node afresh */
/**
 * The one model of n8n the trigger's tests run the node in: one workflow's static data in the database,
 * execution rows, the webhook request handling, executions, the active workflow's trigger, crashes, starts
 * and Updates of the package. Each of n8n's steps is written once here; the simulation takes them one at a
 * time in any order (with jest's clock, `advance`), the integration tests run them to completion
 * (`handle`, `activate`, `tick`).
 *
 * What each step stands for (paths in n8n-io/n8n, packages/cli/src/; docs/trigger-state.md):
 * - a request (`webhooks/live-webhooks.ts`, `webhooks/webhook-helpers.ts`): static data loaded (n8n-workflow's
 *   change-tracking ObservableObject, as `new Workflow()` makes it), the node's webhook function, the
 *   execution row inserted and its run started (`workflow-runner.ts`; 2.41 wraps static data again there,
 *   which resets its changed flag), the answer (`webhookResponse`) read, static data serialized when changed,
 *   written, and the response ended ('prefinish'); when the run cannot start, 500 without reading the answer;
 *   a node that answered on the response object starts nothing; a thrown error answers 500 and saves nothing;
 * - an execution: the trigger's first step on the static data copied at its start, then its end, which
 *   saves that copy when the node changed it (`execution-lifecycle-hooks.ts`);
 * - activation (`active-workflow-manager.ts`): checkExists (create when it answers false), then the trigger
 *   function on static data the active workflow keeps; an emit saves it, then inserts and runs the execution
 *   and settles the emit's donePromise when it has ended; each step saves static data after it;
 * - a crash loses every process state (the node's modules are loaded anew at the next start); an Update
 *   loads the package anew for requests and executions while the active trigger keeps the version it started
 *   with (`community-packages/community-packages.service.ts`).
 */
import { EventEmitter } from 'events';
import * as http from 'http';
import type { AddressInfo } from 'net';
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
	WorkflowActivateMode,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import * as n8nWorkflow from 'n8n-workflow';
import { ObservableObject as ObservableObjectNewest } from 'n8n-workflow-newest';

import { authenticatedRequester, CredentialStore, httpRequest } from './n8nCore';

export { httpRequest };

const { ObservableObject, createDeferredPromise } = n8nWorkflow;

export const NODE_TYPE = 'n8n-nodes-background-check.backgroundCheckTrigger';

/** Loads the node's code afresh, with module state of its own: a new process, or a new package version. */
export function loadNode(): INodeType {
	let nodeType!: INodeType;
	jest.isolateModules(() => {
		// One n8n-workflow for every copy of the node, as n8n gives every package its own.
		jest.doMock('n8n-workflow', () => n8nWorkflow);
		const loaded = require('../../nodes/BackgroundCheckTrigger/BackgroundCheckTrigger.node') as {
			BackgroundCheckTrigger: new () => INodeType;
		};
		nodeType = new loaded.BackgroundCheckTrigger();
	});
	return nodeType;
}

/** The API's answer to a request the node makes, for a model without the sandbox. */
export type Api = (method: string, path: string) => { statusCode: number; body: unknown };

export interface TriggerSetup {
	/** Node parameters; the rest take the defaults of the node's description. */
	parameters?: IDataObject;
	/** Decrypted credential data by credential type name. */
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	/** 'manual' for "listen for test event": nothing is saved. */
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
	/** Answers the node's API requests in place of HTTP with the credential. */
	api?: Api;
}

type Root = IDataObject & { __dataChanged?: boolean };

/** Static data read from the database's JSON (or an execution's copy of it), behind n8n's proxy. */
const staticDataOf = (json: string): Root =>
	ObservableObject.create(JSON.parse(json) as IDataObject, undefined, {
		ignoreEmptyOnFirstChild: true,
	}) as Root;

/** Workflow static data as n8n keeps it in the database (JSON), saved whole, last writer wins. */
export class StaticDataStore {
	json = '{}';

	saves = 0;

	/** n8n's saveStaticData, serializing: the whole object when a node changed it. */
	static serialize(root: Root): string | undefined {
		if (root.__dataChanged !== true) return undefined;
		root.__dataChanged = false;
		return JSON.stringify(root);
	}

	write(json: string | undefined): void {
		if (json === undefined) return;
		this.json = json;
		this.saves++;
	}

	load(): Root {
		return staticDataOf(this.json);
	}

	/** What is saved now, as n8n copies it into an execution it creates. */
	copy(): string {
		return this.json;
	}

	/** Loses everything saved, as a database restored from an old backup would. */
	clear(): void {
		this.json = '{}';
	}

	/** The node's part, as `getWorkflowStaticData('node')` sees it. */
	nodeData(nodeName: string): IDataObject | undefined {
		return (JSON.parse(this.json) as IDataObject)[`node:${nodeName}`] as IDataObject | undefined;
	}
}

/** The response object: what the node writes on it (express's subset), and n8n's end of it. */
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

export interface HandledDelivery {
	/** Undefined when the node answered nothing (n8n would leave the request open). */
	statusCode: number | undefined;
	body: unknown;
	/** Items of the execution started, if any. */
	items?: IDataObject[];
	/** The error a failed execution would show. */
	error?: Error;
}

export interface Row {
	id: number;
	items: INodeExecutionData[];
	/** The items, replaced by the first step's output once it has run. */
	output: IDataObject[];
	/** Started by the trigger's emit. */
	fromWatchdog: boolean;
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

type Settled<T> = { value?: T; error?: unknown };

export interface Request {
	delivery: IncomingDelivery;
	/** n8n cannot start the run (its database failing): 500, no answer read. */
	failRun: boolean;
	step: 'load' | 'webhook' | 'insert' | 'running' | 'answerRead' | 'save' | 'commit' | 'answer';
	staticData?: Root;
	response: ResponseRecorder;
	/** The node's webhook function, and what it returned. */
	webhook?: Promise<unknown>;
	result?: Settled<IWebhookResponseData>;
	handled?: HandledDelivery;
	row?: Row;
	written?: string;
	readStream?: () => Promise<Buffer>;
	/** Set once n8n has answered. */
	answer?: number;
}

export interface Execution {
	row: Row;
	nodeType: INodeType;
	staticData: Root;
	step: 'execute' | 'running' | 'end';
	run?: Promise<unknown>;
	result?: Settled<INodeExecutionData[][] | null>;
	onEnd?: () => void;
}

interface ActiveTrigger {
	nodeType: INodeType;
	staticData: Root;
	response?: ITriggerResponse;
	crons: Array<{ expression: string; onTick: () => unknown }>;
}

function settle<T>(promise: Promise<T>, into: { result?: Settled<T> }): Promise<unknown> {
	return promise.then(
		(value) => (into.result = { value }),
		(error: unknown) => (into.result = { error }),
	);
}

/** n8n reads credentials and workflows from its database: a real wait, during which other requests run. */
const databaseRead = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Lets every promise the node has pending run as far as it can without the clock moving. */
export async function flush(): Promise<void> {
	for (let round = 0; round < 4; round++) await databaseRead();
}

export interface LoggedLine {
	level: string;
	message: string;
}

export class N8nModel {
	store = new StaticDataStore();
	readonly rows: Row[] = [];
	requests: Request[] = [];
	/** Executions running now. */
	executing: Execution[] = [];
	up = true;
	/** Executions run on their own once started (integration tests); else the caller steps them. */
	runsByItself = true;
	/** False for a queue-mode webhook process: a worker runs the executions it starts, not this process. */
	runsExecutions = true;
	/** How many of the next runs n8n fails to start (it then answers 500, as when its database fails). */
	failStarts = 0;
	/** How many of the trigger's next emits n8n's runWorkflow fails (no execution, the donePromise never settles). */
	failRunWorkflows = 0;
	/** Step order: inserts, settled rows, Updates and stops. */
	order = 0;
	/** From each Update until n8n stops: two versions of the package in one process. */
	readonly afterUpdates: Array<{ from: number; to?: number }> = [];
	readonly failedExecutions: Error[] = [];
	/** Errors the trigger saved as failed executions (a failed watchdog run). */
	readonly failedTriggerRuns: Error[] = [];
	readonly logs: LoggedLine[] = [];
	/** Every request handled, with the body bytes the node saw. */
	readonly received: IncomingDelivery[] = [];
	private activeTrigger: ActiveTrigger | undefined;

	constructor(
		/** The package version requests and executions run. */
		public nodeType: INodeType,
		public setup: TriggerSetup,
	) {}

	get db(): string {
		return this.store.json;
	}

	/** The trigger's output items of each execution started, in order (its first step's, once it has run). */
	get executions(): IDataObject[][] {
		return this.rows.filter(({ status }) => status !== 'new').map(({ output }) => output);
	}

	get runCount(): number {
		return this.executions.length;
	}

	get activeNodeType(): INodeType | undefined {
		return this.activeTrigger?.nodeType;
	}

	/** Moves jest's clock: the node's waits see the time pass. */
	async advance(ms: number): Promise<void> {
		jest.advanceTimersByTime(ms);
		await flush();
	}

	// --- a request, step by step ---

	deliver(delivery: IncomingDelivery, failRun = false): Request | undefined {
		if (!this.up) return undefined;
		const request: Request = { delivery, failRun, step: 'load', response: new ResponseRecorder() };
		this.requests.push(request);
		return request;
	}

	/** Advances one request by one of n8n's steps; a request whose webhook function runs stays until it returns. */
	stepRequest(request: Request): void {
		if (!this.up || !this.requests.includes(request)) return;
		switch (request.step) {
			case 'load':
				return this.load(request);
			case 'webhook': {
				if (!request.result) return;
				const { value, error } = request.result;
				if (error !== undefined) {
					this.failedExecutions.push(error as Error);
					const message = (error as Error).message;
					return this.answer(request, {
						statusCode: 500,
						body: { message },
						error: error as Error,
					});
				}
				if (value?.noWebhookResponse) {
					const { headersSent, statusCode, body } = request.response;
					request.handled = { statusCode: headersSent ? statusCode : undefined, body };
				} else if (value?.workflowData === undefined)
					request.handled = {
						statusCode: 200,
						body: value?.webhookResponse ?? { message: 'Webhook call received' },
					};
				request.step = request.handled ? 'save' : 'insert';
				return;
			}
			case 'insert':
				request.row = this.insert(request.result!.value!.workflowData![0], false);
				request.step = 'running';
				return;
			case 'running':
				if (request.failRun) {
					request.handled = { statusCode: 500, body: { message: 'Could not start the execution' } };
					return this.answer(request, request.handled);
				}
				// 2.41's WorkflowRunner.establishContextForPersistence: a second Workflow over the same static data.
				if (this.setup.runtime === 'newest')
					ObservableObjectNewest.create(request.staticData!, undefined, {
						ignoreEmptyOnFirstChild: true,
					});
				this.startExecution(request.row!);
				request.step = 'answerRead';
				return;
			case 'answerRead':
				request.handled = {
					statusCode: 200,
					body: request.result!.value!.webhookResponse,
					items: request.row!.items.map(({ json }) => json),
				};
				request.step = 'save';
				return;
			case 'save':
				if (this.setup.mode !== 'manual')
					request.written = StaticDataStore.serialize(request.staticData!);
				request.step = 'commit';
				return;
			case 'commit':
				this.store.write(request.written);
				request.written = undefined;
				request.step = 'answer';
				return;
			case 'answer':
				this.answer(request, request.handled!);
		}
	}

	private load(request: Request): void {
		const { delivery, readStream } = request;
		request.staticData = this.store.load();
		const bytes = Buffer.isBuffer(delivery.body) ? delivery.body : Buffer.from(delivery.body);
		const object = {
			headers: delivery.headers,
			rawBody: delivery.rawBodyPresent === false ? undefined : bytes,
			readRawBody: async () => {
				object.rawBody ??= readStream ? await readStream() : bytes;
			},
			body: {},
		};
		const context = this.context(request.staticData, 'webhook', {
			getRequestObject: () => object,
			getResponseObject: () => request.response,
			getHeaderData: () => delivery.headers,
			getBodyData: () => object.body,
			getWebhookName: () => 'default',
		});
		request.webhook = settle(
			Promise.resolve().then(() => this.nodeType.webhook!.call(context as never)),
			request,
		);
		this.received.push({ headers: delivery.headers, body: bytes });
		request.step = 'webhook';
	}

	private answer(request: Request, handled: HandledDelivery): void {
		request.handled = handled;
		request.answer = handled.statusCode;
		if (handled.statusCode !== undefined) request.response.statusCode = handled.statusCode;
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
		if (row.ended && (row.fromWatchdog || row.answered)) row.settledAs = this.order++;
	}

	private insert(items: INodeExecutionData[], fromWatchdog: boolean): Row {
		const row: Row = {
			id: this.rows.length,
			items,
			output: items.map(({ json }) => json),
			fromWatchdog,
			status: 'new',
			insertedAs: this.order++,
		};
		this.rows.push(row);
		return row;
	}

	// --- an execution, step by step ---

	/** runMainProcess: static data copied for the execution, the row set running, the run started. */
	startExecution(row: Row, onEnd?: () => void): Execution | undefined {
		row.status = 'running';
		if (!this.runsExecutions) return undefined;
		const execution: Execution = {
			row,
			nodeType: this.nodeType,
			staticData: this.store.load(),
			step: 'execute',
			onEnd,
		};
		this.executing.push(execution);
		if (this.runsByItself) void this.runToEnd(execution);
		return execution;
	}

	/** Advances one execution: its first step starts, or has returned, or the execution ends. */
	stepExecution(execution: Execution): void {
		if (!this.up || !this.executing.includes(execution)) return;
		if (execution.step === 'execute') {
			const context = this.context(
				execution.staticData,
				execution.row.fromWatchdog ? 'trigger' : 'webhook',
				{
					getInputData: () => execution.row.items,
					continueOnFail: () => false,
				},
			);
			execution.run = settle(
				Promise.resolve().then(() => execution.nodeType.execute!.call(context as never)),
				execution,
			);
			execution.step = 'running';
			return;
		}
		if (execution.step === 'running') {
			if (!execution.result) return;
			const { value, error } = execution.result;
			if (error !== undefined) this.failedExecutions.push(error as Error);
			const output = value?.[0] ?? [];
			execution.row.stopped = output.length === 0;
			execution.row.output.splice(
				0,
				execution.row.output.length,
				...output.map(({ json }) => json),
			);
			execution.step = 'end';
			return;
		}
		const written = StaticDataStore.serialize(execution.staticData);
		if (written !== undefined && this.saveOnItsWay()) execution.row.raced = true;
		if (this.setup.mode !== 'manual') this.store.write(written);
		execution.row.status = execution.result?.error === undefined ? 'success' : 'crashed';
		this.settle(execution.row, 'ended');
		this.executing = this.executing.filter((other) => other !== execution);
		execution.onEnd?.();
	}

	private async runToEnd(execution: Execution): Promise<void> {
		this.stepExecution(execution);
		await execution.run;
		this.stepExecution(execution);
		this.stepExecution(execution);
	}

	// --- to completion ---

	/**
	 * Handles one request to its answer; an execution it started goes on after that (see {@link idle}).
	 * `saveAfterMs` delays the save of static data, to order saves of concurrent requests. `startAfter` holds
	 * the request where n8n inserts and starts the execution. `providerGivesUp`: the provider closes the
	 * connection before n8n saves. `saveHangs`: n8n's save never returns: no answer.
	 */
	async handle(
		delivery: IncomingDelivery,
		options: {
			readStream?: () => Promise<Buffer>;
			saveAfterMs?: number;
			startAfter?: Promise<void>;
			providerGivesUp?: boolean;
			saveHangs?: boolean;
		} = {},
	): Promise<HandledDelivery> {
		const request = this.deliver(delivery)!;
		request.readStream = options.readStream;
		this.stepRequest(request);
		await request.webhook;
		this.stepRequest(request);
		if (request.step === 'insert') {
			await (options.startAfter ?? databaseRead());
			if (this.failStarts > 0) {
				this.failStarts--;
				request.failRun = true;
			}
			this.stepRequest(request);
			this.stepRequest(request);
			this.stepRequest(request);
		}
		if (options.providerGivesUp) request.response.emit('close');
		if (request.step === 'save') {
			this.stepRequest(request);
			await (options.saveAfterMs
				? new Promise((resolve) => setTimeout(resolve, options.saveAfterMs))
				: databaseRead());
			if (options.saveHangs) {
				this.requests = this.requests.filter((other) => other !== request);
				return { statusCode: undefined, body: undefined, items: request.handled?.items };
			}
			this.stepRequest(request);
			this.stepRequest(request);
		}
		if (!options.providerGivesUp) {
			request.response.emit('finish');
			request.response.emit('close');
		}
		return request.handled!;
	}

	/** Resolves once every execution started so far has ended. */
	async idle(): Promise<void> {
		while (this.executing.length > 0) await Promise.all(this.executing.map(({ run }) => run));
		await databaseRead();
	}

	/** Runs a row n8n left `new` (at its start): the first step's output. */
	async runRow(items: INodeExecutionData[]): Promise<INodeExecutionData[] | undefined> {
		const execution = this.startExecution(this.insert(items, false));
		if (!execution) return undefined;
		while (this.executing.includes(execution)) await databaseRead();
		return execution.result?.value?.[0] ?? undefined;
	}

	/**
	 * A queue-mode worker running an execution: the first step of `nodeType` (loaded afresh: no process
	 * memory) on `items`, with the static data n8n copied into the execution when it created it.
	 */
	async executeOnWorker(
		nodeType: INodeType,
		items: INodeExecutionData[],
		copyAtCreation: string,
	): Promise<void> {
		const staticData = staticDataOf(copyAtCreation);
		const context = this.context(staticData, 'webhook', { getInputData: () => items });
		await nodeType.execute!.call(context as never);
		this.store.write(StaticDataStore.serialize(staticData));
	}

	// --- the active workflow ---

	/** Runs a webhook lifecycle method (checkExists, create, delete) on the saved static data, saving after. */
	async lifecycle(
		method: 'checkExists' | 'create' | 'delete',
		activation: WorkflowActivateMode = 'activate',
	): Promise<boolean> {
		const staticData = this.store.load();
		const context = this.context(staticData, 'trigger', {
			getActivationMode: () => activation,
			getWebhookName: () => 'default',
			getNodeWebhookUrl: () =>
				this.setup.webhookUrl ?? 'http://127.0.0.1:5678/webhook/test/webhook',
		});
		const lifecycleMethod = this.nodeType.webhookMethods?.default?.[method];
		if (!lifecycleMethod) throw new Error(`The node has no webhook method ${method}`);
		const result = await lifecycleMethod.call(context as never);
		this.store.write(StaticDataStore.serialize(staticData));
		return result;
	}

	/**
	 * Activation: checkExists, then create when it answered false; then the trigger function, whose static
	 * data stays loaded while the workflow is active (saved when it emits).
	 */
	async activate(activation: WorkflowActivateMode = 'activate'): Promise<void> {
		if (!(await this.lifecycle('checkExists', activation)))
			await this.lifecycle('create', activation);
		await this.deactivateTrigger();
		if (!this.nodeType.trigger) return;
		const active: ActiveTrigger = {
			nodeType: this.nodeType,
			staticData: this.store.load(),
			crons: [],
		};
		this.activeTrigger = active;
		const context = this.context(active.staticData, 'trigger', {
			getActivationMode: () => activation,
			emit: (data: INodeExecutionData[][], _response: unknown, done?: IDeferredPromise<IRun>) =>
				this.emit(active, data, done),
			saveFailedExecution: (error: Error) => this.failedTriggerRuns.push(error),
			emitError: (error: Error) => {
				throw error;
			},
		});
		context.helpers.registerCron = (cron: { expression: string }, onTick: () => unknown) =>
			active.crons.push({ expression: cron.expression, onTick });
		active.response = (await active.nodeType.trigger!.call(context as never)) ?? {};
		this.store.write(StaticDataStore.serialize(active.staticData));
	}

	private emit(active: ActiveTrigger, data: INodeExecutionData[][], done?: IDeferredPromise<IRun>) {
		if (this.activeTrigger !== active || !this.up) return;
		const written = StaticDataStore.serialize(active.staticData);
		if (this.setup.mode !== 'manual') this.store.write(written);
		if (this.failRunWorkflows > 0) {
			this.failRunWorkflows--;
			return;
		}
		const row = this.insert(data[0], true);
		row.raced = this.saveOnItsWay();
		const execution = this.startExecution(row, () => done?.resolve({ status: 'success' } as IRun));
		if (!execution) done?.resolve({ status: 'success' } as IRun);
	}

	/** The cron expressions the trigger registered with n8n's scheduler. */
	get schedules(): string[] {
		return this.activeTrigger?.crons.map((cron) => cron.expression) ?? [];
	}

	/** Runs every scheduled task once, as n8n's scheduler does when they fall due, and waits for them. */
	async tick(): Promise<void> {
		for (const { onTick } of this.activeTrigger?.crons ?? []) {
			const done = Promise.resolve(onTick());
			await flush();
			await done;
		}
	}

	/** n8n's deactivation of the trigger function: its close function. */
	async deactivateTrigger(): Promise<void> {
		await this.activeTrigger?.response?.closeFunction?.();
		this.activeTrigger = undefined;
	}

	// --- the process ---

	/** n8n's Update of the package: requests and executions load the new version; the trigger keeps its own. */
	update(): void {
		if (!this.up) return;
		this.afterUpdates.push({ from: this.order++ });
		this.nodeType = loadNode();
	}

	/** n8n dies: every request, execution and process state is gone. */
	crash(): void {
		if (!this.up) return;
		this.up = false;
		for (const span of this.afterUpdates) span.to ??= this.order++;
		this.requests = [];
		this.executing = [];
		this.activeTrigger = undefined;
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
	async start(newRowsCrashed = false, recoveredFirst = false): Promise<void> {
		if (this.up) return;
		this.up = true;
		this.nodeType = loadNode();
		for (const row of this.rows)
			if (row.status === 'running' || (newRowsCrashed && row.status === 'new'))
				row.status = 'crashed';
		const recovered = this.rows
			.filter(({ status }) => status === 'new')
			.map((row) => this.startExecution(row)!);
		if (recoveredFirst) {
			for (const execution of recovered) this.stepExecution(execution);
			await flush();
			for (const execution of recovered) this.stepExecution(execution);
		}
		await this.activate('init');
	}

	/** A node context: what n8n's contexts offer the trigger, over `staticData`, reading the setup now. */
	private context(staticData: Root, mode: 'webhook' | 'trigger', extra: IDataObject) {
		const { setup } = this;
		const parameters = this.parameters();
		const valueOf = (name: string, fallback?: unknown) => {
			let value: unknown = parameters;
			for (const part of name.split('.')) value = (value as IDataObject | undefined)?.[part];
			return value === undefined ? fallback : value;
		};
		const credentials = setup.credentials ?? {};
		const node: INode = {
			id: setup.nodeId ?? 'node-1',
			name: setup.nodeName ?? 'Background Check Trigger',
			type: NODE_TYPE,
			typeVersion: 1,
			position: [0, 0],
			parameters: parameters as INode['parameters'],
		};
		const log = (level: string) => (message: string) => this.logs.push({ level, message });
		const { api } = setup;
		return {
			getNode: () => node,
			getWorkflow: () => ({
				id: setup.workflowId ?? 'workflow-1',
				name: 'Test workflow',
				active: setup.workflowActive ?? true,
			}),
			getMode: () => (setup.mode === 'manual' ? 'manual' : mode),
			getNodeParameter: (name: string, indexOrFallback?: unknown, fallback?: unknown) =>
				'getInputData' in extra ? valueOf(name, fallback) : valueOf(name, indexOrFallback),
			getCredentials: async (type: string) => {
				await databaseRead();
				if (!credentials[type])
					throw new Error(
						`Node "${node.name}" does not have any credentials of type "${type}" set`,
					);
				return { ...credentials[type] };
			},
			// n8n-workflow's Workflow.getStaticData.
			getWorkflowStaticData: (type: string) => {
				const key = type === 'node' ? `node:${node.name}` : type;
				if (staticData[key] === undefined)
					staticData[key] = ObservableObject.create(
						{},
						staticData as unknown as IObservableObject,
					) as IDataObject;
				return staticData[key] as IDataObject;
			},
			logger: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') },
			helpers: {
				createDeferredPromise,
				returnJsonArray: (items: IDataObject[]): INodeExecutionData[] =>
					items.map((json) => ({ json })),
				httpRequest,
				registerCron: undefined as unknown,
				httpRequestWithAuthentication: api
					? async (_type: string, options: IHttpRequestOptions) =>
							await Promise.resolve(api(options.method ?? 'GET', new URL(options.url).pathname))
					: // Stores over the setup's own credential objects: a token exchanged in one request is there for the next.
						authenticatedRequester(
							node,
							Object.fromEntries(
								Object.entries(credentials).map(([type, data]) => [
									type,
									new CredentialStore(data),
								]),
							),
						),
			} as IDataObject & { registerCron: unknown },
			...extra,
		};
	}

	/** Top-level defaults of the description, overlaid with the node's own parameters, as n8n fills them. */
	private parameters(): IDataObject {
		const defaults: IDataObject = {};
		for (const property of this.nodeType.description.properties)
			if (property.type !== 'notice')
				defaults[property.name] = structuredClone(property.default) as IDataObject[string];
		return { ...defaults, ...this.setup.parameters };
	}
}

export interface TriggerReceiver {
	/** The webhook URL to subscribe in the sandbox. */
	url: string;
	/** Status codes answered, in order. */
	answers: Array<number | undefined>;
	stop(): Promise<void>;
}

/** Serves a model over HTTP on 127.0.0.1; the raw body is read from the socket only when the node asks. */
export async function startTriggerReceiver(
	n8n: N8nModel,
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
			const handled = await n8n.handle(
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
