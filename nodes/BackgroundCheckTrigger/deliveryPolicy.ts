import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { readConfig, readSettings } from './configuration';
import {
	CLAIM_TOKEN_FIELD,
	changeOf,
	outputItem,
	parseEvent,
	unselectedEventType,
	unselectedStatus,
} from './event';
import { secretsAfterRefusal, webhookSecrets } from './secretCache';
import { verifyDelivery } from './verification';
import { isWatchdogChange } from './handoff';
import { nodeMemory } from './activation';
import { WAITS_MS, type TriggerMemory } from './memory';

/**
 * Each request to the trigger's URL: verified on its raw bytes, parsed, filtered and claimed once (copies,
 * retries and the other delivery system's copy start nothing); remembered and saved once n8n has started its
 * execution, and only then answered (docs/trigger-state.md).
 */

/** Answers on the response object and starts no execution. */
function refuse(context: IWebhookFunctions, code: number, message: string): IWebhookResponseData {
	context.getResponseObject().status(code).json({ message });
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
 * Starts the execution with `item`. n8n inserts and starts it, reads `webhookResponse` (responseData is empty),
 * then saves static data and answers: reading the answer is its one signal that the execution exists.
 */
export function startExecution(
	item: IDataObject,
	onStarted: (() => void) | undefined,
): IWebhookResponseData {
	return {
		workflowData: [[{ json: item }]],
		get webhookResponse() {
			onStarted?.();
			// The provider ignores response bodies (spec 6.5): an empty 200.
			return '';
		},
	};
}

/**
 * Calls `then` once n8n has answered the request: it ends the response after saving static data, also when
 * the provider has already given up and closed the connection (the end is then never sent, but still made).
 */
const onceAnswered = (context: IWebhookFunctions, then: () => void) =>
	context.getResponseObject().once('prefinish', then);

/**
 * Takes this memory's turn to save for the request, released once n8n has answered it: `wait` false takes
 * it only when it is free. False when it was not had in time.
 */
async function takeTurnToSave(
	context: IWebhookFunctions,
	memory: TriggerMemory,
	wait: boolean,
): Promise<boolean> {
	const release = await memory.signals.until('turn', wait ? WAITS_MS.turn : 0, () =>
		memory.tryTurn(Math.floor(Date.now() / 1000)),
	);
	if (release) onceAnswered(context, release);
	return release !== undefined;
}

export async function receiveDelivery(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const request = this.getRequestObject();
	if (!request.rawBody && typeof request.readRawBody === 'function') await request.readRawBody();
	const rawBody = request.rawBody;
	if (!Buffer.isBuffer(rawBody)) return refuse(this, 400, 'The request body could not be read');

	const nowMs = Date.now();
	const headers = this.getHeaderData();
	const settings = readSettings(this);
	const secrets = webhookSecrets(this);
	const config = async (held: typeof secrets) => await readConfig.call(this, held, settings);
	let verification = verifyDelivery(headers, rawBody, await config(secrets), nowMs);
	const newer = verification.valid ? undefined : secretsAfterRefusal(this, secrets);
	if (newer) verification = verifyDelivery(headers, rawBody, await config(newer), nowMs);
	if (!verification.valid) {
		this.logger.debug(`Background Check Trigger refused a delivery: ${verification.reason}`);
		return refuse(this, 401, `Webhook signature rejected: ${verification.reason}`);
	}

	const event = parseEvent(rawBody);
	if (!event) return refuse(this, 400, 'The body is not a JSON object');

	const filters = settings;
	const unwantedEvent = unselectedEventType(event, filters.event);
	if (unwantedEvent) return acknowledgeWithoutRun(unwantedEvent);
	const unwantedStatus = unselectedStatus(event, filters.statuses);
	// A change the watchdog found and handed over (queue mode): admitted like a delivery of it.
	const fromWatchdog = isWatchdogChange(verification);
	const item = outputItem(
		event,
		verification,
		fromWatchdog ? 'reconciliation' : 'webhook',
	) as IDataObject;
	// "Listen for test event": every delivery runs, copies included.
	if (this.getMode() === 'manual') {
		return unwantedStatus ? acknowledgeWithoutRun(unwantedStatus) : startExecution(item, undefined);
	}

	const node = nodeMemory(this, settings.duplicateMemorySize);
	const change = changeOf(event);
	const { dropOlder } = filters;
	const admission = await node.memory.signals.until('claim', WAITS_MS.claim, () => {
		const decided = node.memory.admit(change, dropOlder, Math.floor(Date.now() / 1000));
		return decided.outcome === 'busy' ? undefined : decided;
	});
	if (!admission) return refuse(this, 503, 'A copy of this event is being started');
	if (admission.outcome !== 'admitted') {
		// Puts back what another save replaced, when no other request is saving (else that one does).
		if (node.behind() && (await takeTurnToSave(this, node.memory, false))) node.save();
		return acknowledgeWithoutRun(ADMISSION_REFUSALS[admission.outcome]);
	}
	const { claim } = admission;
	if (unwantedStatus) {
		// Nothing runs, but what is known of the case moves forward (the watchdog need not find it); it is
		// saved now when no other request is saving, else with the next save.
		node.memory.rememberStatus(change.subject ?? '', change.status, change.modStamp, dropOlder);
		claim.release();
		if (await takeTurnToSave(this, node.memory, false)) node.save();
		return acknowledgeWithoutRun(unwantedStatus);
	}
	if (!(await takeTurnToSave(this, node.memory, true))) {
		claim.release();
		return refuse(this, 503, 'Other deliveries are being saved');
	}
	let answered: (() => void) | undefined;
	// n8n answers 5xx without asking for the answer when it could not start the execution: a copy may run.
	// Otherwise it saved static data before answering; the execution's first step waits for this.
	onceAnswered(this, () => (answered ? answered() : claim.release()));
	// No API call before the answer: "Fetch Latest Case" runs in the execution (latestCase.ts).
	return startExecution({ ...item, [CLAIM_TOKEN_FIELD]: claim.token }, () => {
		const nowSeconds = Math.floor(Date.now() / 1000);
		answered = claim.start(nowSeconds);
		// As the watchdog's own run: a later delivery of the change, with an older modStamp, is covered.
		if (fromWatchdog) node.memory.remember(change, nowSeconds, { fromWatchdog: true });
		node.save();
	});
}
