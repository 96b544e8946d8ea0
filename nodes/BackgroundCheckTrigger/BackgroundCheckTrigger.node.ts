import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	INodeCredentialTestResult,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	ITriggerFunctions,
	ITriggerResponse,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { BACKGROUND_CHECK_API_CREDENTIAL } from '../../credentials/BackgroundCheckApi.credentials';
import { BACKGROUND_CHECK_WEBHOOK_CREDENTIAL } from '../../credentials/BackgroundCheckWebhookApi.credentials';
import { apiPath, apiRequest, type RequestContext } from '../shared/transport';
import { DEFAULT_TOLERANCE_SECONDS } from '../shared/webhookSignature';
import {
	ANY_EVENT,
	CASE_DATA_STATUS_CHANGE,
	CASE_STATUS_CHANGE,
	NO_SECONDARY_STATUS,
	caseIdOf,
	configurationProblems,
	contentKey,
	orderingSubject,
	outputItem,
	parseEvent,
	parseStatusList,
	unselectedEventType,
	unselectedStatus,
	verifyDelivery,
	type SignatureScheme,
	type VerificationConfig,
	type WebhookEvent,
} from './delivery';
import { SAVED_LIMIT, deduplicatorFor, forgetDeduplicator, type Claim, type DeliveryDeduplicator } from './deliveryDeduplicator';
import { SavedCopy, coordinators, type SavedPart } from './savedCopy';
import {
	DEFAULT_LOOK_INTERVAL,
	LOOK_INTERVALS,
	lookSchedule,
	watchdogs,
	type CaseApi,
	type LookInterval,
	type Watchdog,
} from './watchdog';

/** Keys of this node's workflow static data. */
const ACTIVATED_AT = 'activatedAt';
const DEDUP_STATE = 'deliveryDedup';
const WATCHDOG_STATE = 'watchdog';

type NodeContext = IHookFunctions | IWebhookFunctions | ITriggerFunctions;

type SecretsOnly = Partial<Record<'signingSecret' | 'previousSigningSecret' | 'legacySecret', unknown>>;

const secretValue = (value: unknown) => (typeof value === 'string' ? value.trim() : '');

function verificationConfig(
	credentials: SecretsOnly,
	scheme: SignatureScheme,
	legacyHeaderName: unknown,
	toleranceSeconds: unknown,
): VerificationConfig {
	return {
		scheme,
		signingSecrets: [secretValue(credentials.signingSecret), secretValue(credentials.previousSigningSecret)],
		legacySecret: secretValue(credentials.legacySecret),
		legacyHeaderName: typeof legacyHeaderName === 'string' ? legacyHeaderName.trim().toLowerCase() : '',
		toleranceSeconds: Number(toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS),
	};
}

async function readConfig(this: IHookFunctions | IWebhookFunctions): Promise<VerificationConfig> {
	const credentials = (await this.getCredentials(BACKGROUND_CHECK_WEBHOOK_CREDENTIAL)) as SecretsOnly;
	const scheme = this.getNodeParameter('signatureScheme', 'standard') as SignatureScheme;
	return verificationConfig(
		credentials,
		scheme,
		scheme === 'standard' ? '' : this.getNodeParameter('legacyHeaderName', ''),
		this.getNodeParameter('options.toleranceSeconds', DEFAULT_TOLERANCE_SECONDS),
	);
}

/** Duplicate Memory Size as configured (an expression evaluated), or why it cannot be used. */
function readSavedLimit(context: NodeContext): number | { problem: string } {
	const value: unknown = context.getNodeParameter('options.dedupMemorySize', SAVED_LIMIT.default);
	const size = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof size === 'number' && Number.isInteger(size) && size >= SAVED_LIMIT.min && size <= SAVED_LIMIT.max) return size;
	return {
		problem: `Duplicate Memory Size must be a whole number from ${SAVED_LIMIT.min} to ${SAVED_LIMIT.max.toLocaleString('en-US')}, not ${JSON.stringify(value) ?? String(value)}`,
	};
}

/** Runs at activation, so a wrong secret or setting is an error there rather than a failure on every delivery later. */
async function assertValidConfiguration(this: IHookFunctions): Promise<void> {
	const problems = configurationProblems(await readConfig.call(this));
	const savedLimit = readSavedLimit(this);
	if (typeof savedLimit !== 'number') problems.push(savedLimit.problem);
	if (problems.length > 0) {
		throw new NodeOperationError(this.getNode(), problems[0], {
			description: problems.length > 1 ? problems.slice(1).join(' ') : undefined,
		});
	}
	const needsApi = [this.getNodeParameter('fetchLatestCase', false), this.getNodeParameter('reconcile', false)].includes(true);
	if (needsApi) {
		try {
			await this.getCredentials(BACKGROUND_CHECK_API_CREDENTIAL);
		} catch (error) {
			throw new NodeOperationError(this.getNode(), 'Fetch Latest Case and the watchdog need a Background Check API credential', {
				description: (error as Error).message,
			});
		}
	}
}

function dedupScope(context: NodeContext): string {
	return `${context.getWorkflow().id ?? ''}:${context.getNode().id}`;
}

/** Answers on the response object and starts no execution. */
function refuse(context: IWebhookFunctions, statusCode: number, message: string): IWebhookResponseData {
	context.getResponseObject().status(statusCode).json({ message });
	return { noWebhookResponse: true };
}

/** Answers 2xx so the provider does not retry, and starts no execution. */
const acknowledgeWithoutRun = (reason: string): IWebhookResponseData => ({
	webhookResponse: { received: true, workflowStarted: false, reason },
});

const ADMISSION_REFUSALS = {
	duplicate: 'duplicate',
	outOfOrder: 'older than an event already received for the same subject',
} as const;

/** The duplicate memory of this trigger node in this n8n process. */
function deduplicatorOf(context: IWebhookFunctions | ITriggerFunctions): DeliveryDeduplicator {
	const savedLimit = readSavedLimit(context);
	if (typeof savedLimit !== 'number') {
		// Checked at activation; an expression can still change its value later. The memory stays on.
		context.logger.warn(`Background Check Trigger: ${savedLimit.problem}; using ${SAVED_LIMIT.default}`);
	}
	return deduplicatorFor(dedupScope(context), typeof savedLimit === 'number' ? savedLimit : SAVED_LIMIT.default);
}

const watchdogOn = (context: NodeContext) => context.getNodeParameter('reconcile', false) === true;

/** The process's state of this trigger node (duplicate memory, watchdog) and what a request read of it. */
class NodeState {
	readonly deduplicator: DeliveryDeduplicator;

	readonly watchdog: Watchdog | undefined;

	readonly copy: SavedCopy;

	constructor(context: IWebhookFunctions | ITriggerFunctions, nowSeconds: number) {
		const scope = dedupScope(context);
		this.deduplicator = deduplicatorOf(context);
		this.watchdog = watchdogOn(context) ? watchdogs.get(scope) : undefined;
		const parts: SavedPart[] = [savedPart(DEDUP_STATE, this.deduplicator)];
		if (this.watchdog) parts.push(savedPart(WATCHDOG_STATE, this.watchdog));
		this.copy = new SavedCopy(context.getWorkflowStaticData('node'), parts, coordinators.get(scope));
		this.deduplicator.absorb(this.copy.loadedValue(DEDUP_STATE), nowSeconds);
		this.watchdog?.absorb(this.copy.loadedValue(WATCHDOG_STATE));
	}
}

function savedPart(key: string, state: Omit<SavedPart, 'key'>): SavedPart {
	return {
		key,
		get changes() {
			return state.changes;
		},
		persistedView: state.persistedView,
		isBehind: (persisted) => state.isBehind(persisted),
		wrote: (persisted) => state.wrote(persisted),
	};
}

/**
 * Checks and claims the event in one synchronous step (no await in between, so two copies arriving together
 * cannot both pass).
 */
function admitOnce(context: IWebhookFunctions | ITriggerFunctions, state: NodeState, event: WebhookEvent, nowSeconds: number): Claim | 'duplicate' | 'outOfOrder' {
	const admission = state.deduplicator.admit(
		{ key: contentKey(event), ...orderingSubject(event), dropOlder: context.getNodeParameter('options.dropOutOfOrder', false) === true },
		nowSeconds,
	);
	return admission.outcome === 'admitted' ? admission.claim : admission.outcome;
}

/**
 * Starts the execution with `item`. n8n starts it, then asks for the answer (this getter, as responseData
 * is empty), then saves static data and answers. The request's save (if it makes one) is handed over again
 * here: see {@link SavedCopy.handOver}.
 */
function startExecution(item: IDataObject, copy: SavedCopy | undefined): IWebhookResponseData {
	return {
		workflowData: [[{ json: item }]],
		get webhookResponse() {
			copy?.handOver();
			// The provider ignores response bodies (spec 6.5): an empty 200.
			return '';
		},
	};
}

/** Pages of GET /case/list the watchdog asks for (the sandbox's most; an API that ignores it pages its own way). */
const LIST_PAGE_SIZE = 100;

/**
 * The watchdog's reads, through the one request function. A context object of its own per look: the
 * transport keeps one credential session per context object, so each look reads the credential afresh (a
 * changed or re-exchanged token is used from the next look on) instead of for the whole activation.
 */
function caseApi(context: ITriggerFunctions): CaseApi {
	const session = Object.create(context) as RequestContext;
	return {
		listPage: async (page) => await apiRequest.call(session, 'GET', apiPath`/case/list`, { qs: { page, pageSize: LIST_PAGE_SIZE } }),
		getCase: async (caseId) => await apiRequest.call(session, 'GET', apiPath`/case/id/${caseId}`),
		getCaseData: async (caseId, serviceTypeId) =>
			await apiRequest.call(session, 'GET', apiPath`/case/id/${caseId}/data/${serviceTypeId}`),
	};
}

/** The event types the trigger is set to, as the watchdog needs them. */
function watchedEvents(context: ITriggerFunctions) {
	const selected = context.getNodeParameter('event', CASE_STATUS_CHANGE) as string;
	return { cases: selected !== CASE_DATA_STATUS_CHANGE, caseData: selected !== CASE_STATUS_CHANGE };
}

function readLookInterval(context: ITriggerFunctions): LookInterval {
	const interval = context.getNodeParameter('reconcileEvery', DEFAULT_LOOK_INTERVAL) as string;
	if (interval in LOOK_INTERVALS) return interval as LookInterval;
	throw new NodeOperationError(context.getNode(), `"${interval}" is not a watchdog interval; choose one of the list`);
}

/**
 * One look of the watchdog: every change it finds that no delivery reported and that passes the trigger's
 * filters starts one execution (output `source: 'reconciliation'`). A change also delivered is one event
 * for the duplicate memory, whichever came first. Failures are saved as failed executions, so they show.
 */
async function lookOnce(context: ITriggerFunctions, watchdog: Watchdog, isClosed: () => boolean): Promise<void> {
	const node = context.getNode();
	let look;
	try {
		look = await watchdog.look(caseApi(context), watchedEvents(context));
	} catch (error) {
		context.saveFailedExecution(new NodeOperationError(node, `The watchdog could not list the cases: ${(error as Error).message}`));
		return;
	}
	const nowSeconds = Math.floor(Date.now() / 1000);
	const state = new NodeState(context, nowSeconds);
	const filter = {
		caseStatuses: parseStatusList(context.getNodeParameter('caseStatus', '')),
		secondaryStatuses: parseStatusList(context.getNodeParameter('secondaryStatus', '')),
	};
	const fetchLatestCase = context.getNodeParameter('fetchLatestCase', false) === true;
	const items: IDataObject[] = [];
	for (const { event, latestCase } of look.events) {
		const claim = admitOnce(context, state, event, nowSeconds);
		if (claim === 'duplicate' || claim === 'outOfOrder') continue;
		if (unselectedStatus(event, filter)) {
			claim.release();
			continue;
		}
		claim.commit(nowSeconds);
		items.push({ ...(outputItem(event) as IDataObject), ...(fetchLatestCase ? { latestCase } : {}) });
	}
	// n8n saves static data when a trigger emits: hand it what this look changed.
	state.copy.handOverUncoordinated();
	for (const item of items) {
		if (isClosed()) return;
		context.emit([[{ json: item }]]);
	}
	if (look.failures.length > 0) {
		const [{ caseId, error }] = look.failures;
		context.saveFailedExecution(
			new NodeOperationError(node, `The watchdog could not read ${look.failures.length} case(s); they are looked at again next time`, {
				description: `Case ${caseId}: ${error.message}`,
			}),
		);
	}
}

export class BackgroundCheckTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Background Check Trigger',
		name: 'backgroundCheckTrigger',
		icon: { light: 'file:backgroundCheck.svg', dark: 'file:backgroundCheck.dark.svg' },
		group: ['trigger'],
		// 1.1 behaves as 1. n8n evaluates a legacy "binaryData" expression for every request to a webhook node of
		// version 1, and from 2.3x on that costs an expression-isolate evaluation per delivery; it skips it above 1.
		version: [1, 1.1],
		defaultVersion: 1.1,
		subtitle:
			'={{ {"case.statuschange": "Case Status Change", "casedata.statuschange": "Case Data Status Change"}[$parameter["event"]] ?? "Any Event" }}',
		description: 'Starts the workflow when a background check case or one of its services changes status',
		defaults: { name: 'Background Check Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{ name: BACKGROUND_CHECK_WEBHOOK_CREDENTIAL, required: true, testedBy: 'checkWebhookSecrets' },
			// Needed by Fetch Latest Case and by the watchdog; n8n's display rules cannot say "either", so it
			// shows always and activation says when it is missing.
			{ name: BACKGROUND_CHECK_API_CREDENTIAL, required: false },
		],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				// Empty: n8n then takes the answer from webhookResponse, read after the execution has started
				// (see startExecution). The provider ignores response bodies (spec 6.5).
				responseData: '',
				path: 'webhook',
			},
		],
		properties: [
			{
				displayName:
					'Subscriptions are made in the provider\'s webhook settings, not by this node: paste the Production URL above there, choose the events, and put the endpoint\'s signing secret (whsec_...) into the credential. The workflow must be active for the Production URL to answer.',
				name: 'setupNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Event',
				name: 'event',
				type: 'options',
				options: [
					{ name: 'Any Event', value: ANY_EVENT, description: 'Every event type, including ones added later' },
					{ name: 'Case Data Status Change', value: CASE_DATA_STATUS_CHANGE, description: 'The status of one service in a case changed' },
					{ name: 'Case Status Change', value: CASE_STATUS_CHANGE, description: 'The status of a case changed' },
				],
				default: CASE_STATUS_CHANGE,
			},
			{
				displayName: 'Case Status',
				name: 'caseStatus',
				type: 'string',
				default: '',
				placeholder: 'e.g. Complete',
				description:
					'Run only for these case statuses (names or IDs, comma-separated, case-insensitive), for example Complete. Empty: any status. Events without a case status do not match.',
				displayOptions: { show: { event: [CASE_STATUS_CHANGE, ANY_EVENT] } },
			},
			{
				displayName: 'Secondary Status',
				name: 'secondaryStatus',
				type: 'string',
				default: '',
				placeholder: 'e.g. Waiting for Authorization',
				description: `Run only for these secondary statuses (names or IDs, comma-separated, case-insensitive); "${NO_SECONDARY_STATUS}" matches a case without one. Empty: any.`,
				displayOptions: { show: { event: [CASE_STATUS_CHANGE, ANY_EVENT] } },
			},
			{
				displayName: 'Signature Scheme',
				name: 'signatureScheme',
				type: 'options',
				options: [
					{
						name: 'Standard',
						value: 'standard',
						description: 'Webhook-ID, webhook-timestamp and webhook-signature headers; whsec_ secret',
					},
					{
						name: 'Legacy',
						value: 'legacy',
						description: 'The older delivery system: one BRAND-signature header, secret without prefix',
					},
					{
						name: 'Both',
						value: 'both',
						description: 'Either; use while both delivery systems are on. An event that arrives through both runs once.',
					},
				],
				default: 'standard',
			},
			{
				displayName: 'Legacy Signature Header',
				name: 'legacyHeaderName',
				type: 'string',
				default: '',
				placeholder: 'e.g. acme-signature',
				description:
					'Name of the header that carries t=...,v1=... in legacy deliveries. Empty: the one header whose name ends in -signature and carries such a value.',
				displayOptions: { show: { signatureScheme: ['legacy', 'both'] } },
			},
			{
				displayName: 'Fetch Latest Case',
				name: 'fetchLatestCase',
				type: 'boolean',
				default: false,
				description:
					'Whether to fetch the current case from the API with the Background Check API credential and add it as latestCase. Recommended for case status changes, since deliveries can arrive out of order. The delivery is answered first; if the case cannot be fetched, the event still runs, with latestCase empty and latestCaseError saying why.',
			},
			{
				displayName: 'Reconcile Missed Events',
				name: 'reconcile',
				type: 'boolean',
				default: false,
				description:
					'Whether to also look at the API on a schedule (every case of the Background Check API credential\'s group) and run each status change whose delivery never arrived, with source "reconciliation". A change that is also delivered runs once. Activation records the current state; nothing from before is replayed.',
			},
			{
				displayName: 'Look Every',
				name: 'reconcileEvery',
				type: 'options',
				options: Object.entries(LOOK_INTERVALS).map(([value, { name }]) => ({ name, value })),
				default: '30m',
				description:
					'How often the watchdog lists the cases. A missed change is run within this time of the look after it; each look reads every page of the case list, and the case and case data only of cases that changed.',
				displayOptions: { show: { reconcile: [true] } },
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					{
						displayName: 'Duplicate Memory Size',
						name: 'dedupMemorySize',
						type: 'number',
						typeOptions: { minValue: SAVED_LIMIT.min, maxValue: SAVED_LIMIT.max },
						default: 100,
						description:
							'How many of the newest events are saved with the workflow (about 10 bytes each), so that copies and retries of them are still recognised for 28 hours after n8n restarts or in another n8n process. While n8n runs, it recognises every event of the last 28 hours (up to 100,000) whatever this is. Raise it if more events than this arrive in 28 hours.',
					},
					{
						displayName: 'Ignore Older Events',
						name: 'dropOutOfOrder',
						type: 'boolean',
						default: false,
						description:
							'Whether to skip an event whose modStamp is older than one already received for the same case or case data',
					},
					{
						displayName: 'Signature Tolerance (Seconds)',
						name: 'toleranceSeconds',
						type: 'number',
						typeOptions: { minValue: 1 },
						default: 300,
						description:
							'How far the signature timestamp may be from this server\'s clock, in either direction, before a delivery is refused',
					},
				],
			},
		],
	};

	methods = {
		credentialTest: {
			/** The provider has no endpoint to check a webhook secret against; this checks the values' form. */
			async checkWebhookSecrets(
				this: ICredentialTestFunctions,
				credential: ICredentialsDecrypted,
			): Promise<INodeCredentialTestResult> {
				const data = (credential.data ?? {}) as SecretsOnly;
				const hasStandard = secretValue(data.signingSecret) !== '';
				const hasLegacy = secretValue(data.legacySecret) !== '';
				if (!hasStandard && !hasLegacy) {
					return { status: 'Error', message: 'Enter the Signing Secret (whsec_...) or the Legacy Secret' };
				}
				const scheme: SignatureScheme = hasStandard && hasLegacy ? 'both' : hasStandard ? 'standard' : 'legacy';
				const problems = configurationProblems(verificationConfig(data, scheme, '', DEFAULT_TOLERANCE_SECONDS));
				if (problems.length > 0) return { status: 'Error', message: problems.join(' ') };
				return {
					status: 'OK',
					message: 'The secrets are well-formed. Send a test event from the provider to prove they match.',
				};
			},
		},
	};

	/**
	 * The API has no subscription endpoints, so there is nothing to register remotely. What these do is
	 * local: check the configuration when the workflow is activated (and on every n8n start), keep the
	 * duplicate memory across restarts, and forget it when the workflow is deactivated.
	 */
	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				await assertValidConfiguration.call(this);
				return this.getWorkflowStaticData('node')[ACTIVATED_AT] !== undefined;
			},
			async create(this: IHookFunctions): Promise<boolean> {
				await assertValidConfiguration.call(this);
				this.getWorkflowStaticData('node')[ACTIVATED_AT] = new Date().toISOString();
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				const staticData = this.getWorkflowStaticData('node');
				delete staticData[ACTIVATED_AT];
				delete staticData[DEDUP_STATE];
				delete staticData[WATCHDOG_STATE];
				// n8n removes "listen for test event" webhooks through this method too, on an inactive copy of
				// the workflow; the production memory of an active workflow must survive that.
				if (this.getWorkflow().active) {
					forgetDeduplicator(dedupScope(this));
					watchdogs.forget(dedupScope(this));
					coordinators.forget(dedupScope(this));
				}
				this.logger.debug('Background Check Trigger: duplicate memory cleared', { node: this.getNode().name });
				return true;
			},
		},
	};

	/**
	 * The watchdog, when Reconcile Missed Events is on: the first look records the group's cases at
	 * activation (nothing is replayed), then n8n's scheduler runs a look at the chosen interval. After a
	 * restart the saved record is kept, so changes missed while n8n was down are found by the next look.
	 */
	async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
		const scope = dedupScope(this);
		if (!watchdogOn(this) || this.getMode() === 'manual') {
			const staticData = this.getWorkflowStaticData('node');
			if (staticData[WATCHDOG_STATE] !== undefined) delete staticData[WATCHDOG_STATE];
			watchdogs.forget(scope);
			return {};
		}
		const interval = readLookInterval(this);
		const watchdog = watchdogs.get(scope);
		new NodeState(this, Math.floor(Date.now() / 1000)).copy.handOverUncoordinated();
		if (!watchdog.hasRecord) {
			try {
				await watchdog.look(caseApi(this), watchedEvents(this));
			} catch (error) {
				const message = `The watchdog could not list the cases of the credential's group: ${(error as Error).message}`;
				// On a restart the first scheduled look records them instead; a user activating hears it now.
				if (!['init', 'leadershipChange'].includes(this.getActivationMode())) throw new NodeOperationError(this.getNode(), message);
				this.logger.warn(`Background Check Trigger: ${message}`);
			}
		}
		let closed = false;
		let running: Promise<void> | undefined;
		this.helpers.registerCron({ expression: lookSchedule(interval, this.getNode().id) }, () => {
			// A look still under way (a slow API) is not overtaken by the next one.
			if (closed || running) return running;
			running = lookOnce(this, watchdog, () => closed).finally(() => {
				running = undefined;
			});
			return running;
		});
		return {
			closeFunction: async () => {
				closed = true;
			},
		};
	}

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const request = this.getRequestObject();
		if (!request.rawBody && typeof request.readRawBody === 'function') await request.readRawBody();
		const rawBody = request.rawBody;
		if (!Buffer.isBuffer(rawBody)) return refuse(this, 400, 'The request body could not be read');

		const nowMs = Date.now();
		const verification = verifyDelivery(this.getHeaderData(), rawBody, await readConfig.call(this), nowMs);
		if (!verification.valid) {
			this.logger.debug(`Background Check Trigger refused a delivery: ${verification.reason}`);
			return refuse(this, 401, `Webhook signature rejected: ${verification.reason}`);
		}

		const event = parseEvent(rawBody);
		if (!event) return refuse(this, 400, 'The body is not a JSON object');

		const unwantedEvent = unselectedEventType(event, this.getNodeParameter('event', CASE_STATUS_CHANGE) as string);
		if (unwantedEvent) return acknowledgeWithoutRun(unwantedEvent);

		const unwantedStatus = unselectedStatus(event, {
			caseStatuses: parseStatusList(this.getNodeParameter('caseStatus', '')),
			secondaryStatuses: parseStatusList(this.getNodeParameter('secondaryStatus', '')),
		});
		// "Listen for test event": every delivery runs, copies included.
		if (this.getMode() === 'manual') {
			return unwantedStatus ? acknowledgeWithoutRun(unwantedStatus) : startExecution(outputItem(event, verification) as IDataObject, undefined);
		}

		const nowSeconds = Math.floor(nowMs / 1000);
		const state = new NodeState(this, nowSeconds);
		const response = this.getResponseObject();
		const claim = admitOnce(this, state, event, nowSeconds);
		if (claim === 'duplicate' || claim === 'outOfOrder') {
			await state.copy.secure(response, false);
			return acknowledgeWithoutRun(ADMISSION_REFUSALS[claim]);
		}
		// The watchdog need not look for this change any more, whether or not it runs.
		state.watchdog?.noteDelivered(event);
		if (unwantedStatus) {
			claim.release();
			await state.copy.secure(response, false);
			return acknowledgeWithoutRun(unwantedStatus);
		}

		// No API call before the answer: "Fetch Latest Case" runs in the execution (execute below), so a slow
		// or failing API can neither delay the answer past the provider's deadline nor cost the event. The
		// event is saved (or in a save under way) before the answer.
		claim.commit(nowSeconds);
		// n8n answers 5xx when it cannot start the execution after all: the provider delivers again, and that
		// delivery must run.
		response.once('finish', () => {
			if (response.statusCode >= 500) claim.revoke();
		});
		await state.copy.secure(response, true);
		return startExecution(outputItem(event, verification) as IDataObject, state.copy);
	}

	/**
	 * The first step of every execution the trigger starts, after n8n has answered the delivery: adds the
	 * current case when "Fetch Latest Case" is on. A case that cannot be fetched (slow API, 5xx, revoked
	 * credential) does not stop the event: it runs with `latestCase: null` and `latestCaseError` saying why.
	 */
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const fetch = this.getNodeParameter('fetchLatestCase', 0, false) === true;
		const output: INodeExecutionData[] = [];
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			const json: IDataObject = { ...items[itemIndex].json };
			const caseId = caseIdOf({ event: String(json.event ?? ''), eventObject: (json.eventObject ?? {}) as IDataObject });
			if (fetch && caseId && json.latestCase === undefined) {
				try {
					json.latestCase = (await apiRequest.call(this, 'GET', apiPath`/case/id/${caseId}`, { itemIndex })) as IDataObject;
				} catch (error) {
					json.latestCase = null;
					json.latestCaseError = (error as Error).message;
				}
			}
			output.push({ json, pairedItem: { item: itemIndex } });
		}
		return [output];
	}
}
