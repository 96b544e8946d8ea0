import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	INodeExecutionData,
	INodeCredentialTestResult,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { BACKGROUND_CHECK_API_CREDENTIAL } from '../../credentials/BackgroundCheckApi.credentials';
import { BACKGROUND_CHECK_WEBHOOK_CREDENTIAL } from '../../credentials/BackgroundCheckWebhookApi.credentials';
import { apiPath, apiRequest } from '../BackgroundCheck/transport';
import { DEFAULT_TOLERANCE_SECONDS } from '../shared/webhookSignature';
import {
	ANY_EVENT,
	CASE_DATA_STATUS_CHANGE,
	CASE_STATUS_CHANGE,
	NO_SECONDARY_STATUS,
	caseIdOf,
	configurationProblems,
	contentKey,
	deduplicationKeys,
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
import { DEFAULT_DEDUP_LIMITS, deduplicatorFor, existingDeduplicator, forgetDeduplicator, type Claim } from './deliveryDeduplicator';

/** Keys of this node's workflow static data. */
const ACTIVATED_AT = 'activatedAt';
const DEDUP_STATE = 'deliveryDedup';

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

/** Runs at activation, so a wrong secret is an error there rather than a 401 on every delivery later. */
async function assertValidConfiguration(this: IHookFunctions): Promise<void> {
	const problems = configurationProblems(await readConfig.call(this));
	if (problems.length > 0) {
		throw new NodeOperationError(this.getNode(), problems[0], {
			description: problems.length > 1 ? problems.slice(1).join(' ') : undefined,
		});
	}
	if (this.getNodeParameter('fetchLatestCase', false) === true) {
		await this.getCredentials(BACKGROUND_CHECK_API_CREDENTIAL);
	}
}

function dedupScope(context: IHookFunctions | IWebhookFunctions | IExecuteFunctions): string {
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

/**
 * Checks and claims the event's identities in one synchronous step (no await in between, so two copies
 * arriving together cannot both pass), and, when it is this request's turn, hands the saved copy of the
 * duplicate memory to n8n's static data.
 */
function admitOnce(
	context: IWebhookFunctions,
	event: WebhookEvent,
	deliveryId: string | undefined,
	nowMs: number,
): Claim | 'duplicate' | 'outOfOrder' {
	const options = context.getNodeParameter('options', {}) as IDataObject;
	const deduplicator = deduplicatorFor(dedupScope(context), {
		...DEFAULT_DEDUP_LIMITS,
		maxDeliveries: Number(options.dedupMemorySize ?? DEFAULT_DEDUP_LIMITS.maxDeliveries),
	});
	const staticData = context.getWorkflowStaticData('node');
	deduplicator.absorb(staticData[DEDUP_STATE], Math.floor(nowMs / 1000));
	const savedKey = contentKey(event);
	const admission = deduplicator.admit({
		keys: deduplicationKeys(event, deliveryId, savedKey),
		savedKey,
		...orderingSubject(event),
		dropOlder: options.dropOutOfOrder === true,
	});
	// Assigning marks static data as changed, so n8n saves it before answering, as it is by then.
	if (deduplicator.takeSaveTurn(nowMs)) staticData[DEDUP_STATE] = deduplicator.persistedView as unknown as IDataObject;
	return admission.outcome === 'admitted' ? admission.claim : admission.outcome;
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
			{
				name: BACKGROUND_CHECK_API_CREDENTIAL,
				required: true,
				displayOptions: { show: { fetchLatestCase: [true] } },
			},
		],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				// The provider ignores response bodies (spec 6.5); an empty 200 is the quickest answer.
				responseData: 'noData',
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
					'Whether to fetch the current case from the API with the Background Check API credential and add it as latestCase. Recommended for case status changes, since deliveries can arrive out of order.',
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
						typeOptions: { minValue: 100, maxValue: 20000 },
						default: 1000,
						description:
							'How many recent deliveries this n8n process remembers to suppress duplicates (for up to 48 hours). Raise it if more events than this arrive in two days. The newest 100 are also saved with the workflow, so a copy or retry of them is still recognised after n8n restarts.',
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
				// n8n removes "listen for test event" webhooks through this method too, on an inactive copy of
				// the workflow; the production memory of an active workflow must survive that.
				if (this.getWorkflow().active) forgetDeduplicator(dedupScope(this));
				this.logger.debug('Background Check Trigger: duplicate memory cleared', { node: this.getNode().name });
				return true;
			},
		},
	};

	/**
	 * n8n runs this as the execution's first step, with the delivery's item, and passes it on. It hands the
	 * duplicate memory to the execution's static data when the delivery's own save did not happen, which n8n
	 * then saves when the execution ends: n8n 2.3x and later do not save static data written by a webhook
	 * request that starts an execution (docs/n8n-runtimes.md).
	 */
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const deduplicator = this.getMode() === 'manual' ? undefined : existingDeduplicator(dedupScope(this));
		if (deduplicator) {
			const staticData = this.getWorkflowStaticData('node');
			deduplicator.absorb(staticData[DEDUP_STATE], Math.floor(Date.now() / 1000));
			if (deduplicator.hasUnsavedChanges) staticData[DEDUP_STATE] = deduplicator.persistedView as unknown as IDataObject;
		}
		return [items];
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

		const claim = this.getMode() === 'manual' ? undefined : admitOnce(this, event, verification.deliveryId, nowMs);
		if (claim === 'duplicate' || claim === 'outOfOrder') return acknowledgeWithoutRun(ADMISSION_REFUSALS[claim]);

		const unwantedStatus = unselectedStatus(event, {
			caseStatuses: parseStatusList(this.getNodeParameter('caseStatus', '')),
			secondaryStatuses: parseStatusList(this.getNodeParameter('secondaryStatus', '')),
		});
		if (unwantedStatus) {
			claim?.release();
			return acknowledgeWithoutRun(unwantedStatus);
		}

		const item: IDataObject = outputItem(event, verification) as IDataObject;
		const caseId = caseIdOf(event);
		if (this.getNodeParameter('fetchLatestCase', false) === true && caseId) {
			let fetched = false;
			try {
				item.latestCase = (await apiRequest.call(this, 'GET', apiPath`/case/id/${caseId}`)) as IDataObject;
				fetched = true;
			} finally {
				// A failure answers with an error, so the provider delivers again later: that must not be a duplicate.
				if (!fetched) claim?.release();
			}
		}
		claim?.commit(Math.floor(Date.now() / 1000));
		return { workflowData: [this.helpers.returnJsonArray([item])] };
	}
}
