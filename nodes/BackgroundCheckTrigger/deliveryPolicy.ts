import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { readConfig } from './configuration';
import {
	CASE_STATUS_CHANGE,
	outputItem,
	parseEvent,
	parseStatusList,
	unselectedEventType,
	unselectedStatus,
} from './event';
import { verifyDelivery } from './verification';
import { NodeState, admitOnce } from './nodeState';
import type { SavedCopy } from './savedCopy';

/**
 * The delivery policy: each request to the trigger's URL is verified on its raw bytes, parsed, filtered,
 * claimed once (copies, retries and the other delivery system's copy start nothing), saved, and only then
 * answered; the answer starts at most one execution.
 */

/** Answers on the response object and starts no execution. */
function refuse(
	context: IWebhookFunctions,
	statusCode: number,
	message: string,
): IWebhookResponseData {
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
 * Starts the execution with `item`. n8n starts it, then asks for the answer (this getter, as responseData
 * is empty), then saves static data and answers. The request's save (if it makes one) is handed over again
 * here: see {@link SavedCopy.handOver}.
 */
export function startExecution(
	item: IDataObject,
	copy: SavedCopy | undefined,
): IWebhookResponseData {
	return {
		workflowData: [[{ json: item }]],
		get webhookResponse() {
			copy?.handOver();
			// The provider ignores response bodies (spec 6.5): an empty 200.
			return '';
		},
	};
}

export async function receiveDelivery(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const request = this.getRequestObject();
	if (!request.rawBody && typeof request.readRawBody === 'function') await request.readRawBody();
	const rawBody = request.rawBody;
	if (!Buffer.isBuffer(rawBody)) return refuse(this, 400, 'The request body could not be read');

	const nowMs = Date.now();
	const verification = verifyDelivery(
		this.getHeaderData(),
		rawBody,
		await readConfig.call(this),
		nowMs,
	);
	if (!verification.valid) {
		this.logger.debug(`Background Check Trigger refused a delivery: ${verification.reason}`);
		return refuse(this, 401, `Webhook signature rejected: ${verification.reason}`);
	}

	const event = parseEvent(rawBody);
	if (!event) return refuse(this, 400, 'The body is not a JSON object');

	const unwantedEvent = unselectedEventType(
		event,
		this.getNodeParameter('event', CASE_STATUS_CHANGE) as string,
	);
	if (unwantedEvent) return acknowledgeWithoutRun(unwantedEvent);

	const unwantedStatus = unselectedStatus(event, {
		caseStatuses: parseStatusList(this.getNodeParameter('caseStatus', '')),
		secondaryStatuses: parseStatusList(this.getNodeParameter('secondaryStatus', '')),
	});
	// "Listen for test event": every delivery runs, copies included.
	if (this.getMode() === 'manual') {
		return unwantedStatus
			? acknowledgeWithoutRun(unwantedStatus)
			: startExecution(outputItem(event, verification) as IDataObject, undefined);
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
