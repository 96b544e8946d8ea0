import type { INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { BACKGROUND_CHECK_API_CREDENTIAL } from '../../credentials/BackgroundCheckApi.credentials';
import { BACKGROUND_CHECK_WEBHOOK_CREDENTIAL } from '../../credentials/BackgroundCheckWebhookApi.credentials';
import { checkWebhookSecrets } from './configuration';
import {
	ANY_EVENT,
	CASE_DATA_STATUS_CHANGE,
	CASE_STATUS_CHANGE,
	NO_SECONDARY_STATUS,
} from './event';
import { DUPLICATE_MEMORY_SIZE } from './memory';
import { receiveDelivery } from './deliveryPolicy';
import { addLatestCase } from './latestCase';
import { activation } from './activation';
import { WATCHDOG_INTERVALS, startWatchdog } from './watchdogSchedule';
import { HANDOFF, HANDOFF_PARAMETER } from './handoff';

/**
 * The trigger's description and its entry points, each handing over to the module that does the work:
 * deliveryPolicy.ts (each delivery), memory.ts (what it remembers), activation.ts (no remote subscription),
 * watchdogSchedule.ts (the watchdog on n8n's scheduler), latestCase.ts (the execution's first step: remembers
 * the event, then Fetch Latest Case), configuration.ts (settings and secrets).
 */
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
		description:
			'Starts the workflow when a background check case or one of its services changes status',
		defaults: { name: 'Background Check Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{
				name: BACKGROUND_CHECK_WEBHOOK_CREDENTIAL,
				required: true,
				testedBy: 'checkWebhookSecrets',
			},
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
					"Subscriptions are made in the provider's webhook settings, not by this node: paste the Production URL above there, choose the events, and put the endpoint's signing secret (whsec_...) into the credential. The workflow must be active for the Production URL to answer.",
				name: 'setupNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Event',
				name: 'event',
				type: 'options',
				options: [
					{
						name: 'Any Event',
						value: ANY_EVENT,
						description: 'Every event type, including ones added later',
					},
					{
						name: 'Case Data Status Change',
						value: CASE_DATA_STATUS_CHANGE,
						description: 'The status of one service in a case changed',
					},
					{
						name: 'Case Status Change',
						value: CASE_STATUS_CHANGE,
						description: 'The status of a case changed',
					},
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
						description:
							'Webhook-ID, webhook-timestamp and webhook-signature headers; whsec_ secret',
					},
					{
						name: 'Legacy',
						value: 'legacy',
						description:
							'The older delivery system: one BRAND-signature header, secret without prefix',
					},
					{
						name: 'Both',
						value: 'both',
						description:
							'Either; use while both delivery systems are on. An event that arrives through both runs once.',
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
					'Whether to also run a watchdog on a schedule: it reads every case of the Background Check API credential\'s group and runs each status change whose delivery never arrived, with source "reconciliation". A change that is also delivered runs once. Activation records the current state; nothing from before is replayed.',
			},
			{
				displayName: 'Run Watchdog Every',
				name: 'reconcileEvery',
				type: 'options',
				options: Object.entries(WATCHDOG_INTERVALS).map(([value, { name }]) => ({ name, value })),
				default: '30m',
				description:
					'How often the watchdog lists the cases. A missed case status change runs at its next run; the case data of the cases that changed, and of 20 others in turn, is read at each run, so a missed case data change runs within (number of cases / 20) runs.',
				displayOptions: { show: { reconcile: [true] } },
			},
			{
				displayName: 'Hand Found Changes To',
				name: HANDOFF_PARAMETER,
				type: 'options',
				options: [
					{
						name: 'This Process',
						value: HANDOFF.process,
						description: 'With n8n in one process: the watchdog runs the changes it finds itself',
					},
					{
						name: 'The Webhook URL (Queue Mode)',
						value: HANDOFF.webhook,
						description:
							"Each change is sent, signed with the Signing Secret, to this trigger's production URL, so the webhook process that receives the deliveries decides whether it runs",
					},
				],
				default: 'process',
				description:
					'Where the watchdog hands the changes it finds. In queue mode the watchdog runs on the main process, which never sees the deliveries the webhook processes receive: choose The Webhook URL there, so a change that is also delivered runs once.',
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
						name: 'duplicateMemorySize',
						type: 'number',
						typeOptions: {
							minValue: DUPLICATE_MEMORY_SIZE.min,
							maxValue: DUPLICATE_MEMORY_SIZE.max,
						},
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
							"How far the signature timestamp may be from this server's clock, in either direction, before a delivery is refused",
					},
				],
			},
		],
	};

	methods = { credentialTest: { checkWebhookSecrets } };
	webhookMethods = { default: activation };
	trigger = startWatchdog;
	webhook = receiveDelivery;
	/** The first step of every execution the trigger starts. */
	execute = addLatestCase;
}
