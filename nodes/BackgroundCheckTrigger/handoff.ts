import type { IHookFunctions, ITriggerFunctions } from 'n8n-workflow';

import { BACKGROUND_CHECK_WEBHOOK_CREDENTIAL } from '../../credentials/BackgroundCheckWebhookApi.credentials';
import { signStandardWebhook } from '../shared/webhookSignature';
import { outputEventKey, type WebhookEvent } from './event';
import type { DeliveryVerification } from './verification';

/**
 * Hand Found Changes To: The Webhook URL, for queue mode (the watchdog runs on the main process,
 * deliveries reach webhook processes): each change the watchdog finds is sent to the trigger's own production URL
 * as a delivery would carry it, signed with the Signing Secret under a `webhook-id` of its own
 * ({@link WATCHDOG_CHANGE_ID_PREFIX}), so the process that receives the deliveries decides what runs
 * (docs/queue-mode.md).
 */

export const HANDOFF_PARAMETER = 'reconcileHandoff';
export const HANDOFF = { process: 'process', webhook: 'webhook' } as const;

/** The `webhook-id` of a change the watchdog found: no provider's message ID starts so. */
export const WATCHDOG_CHANGE_ID_PREFIX = 'watchdog_';

/** The provider waits 15 seconds for an answer (spec 8); so does the watchdog. */
const HANDOFF_TIMEOUT_MS = 15_000;

/** A verified request the watchdog sent: a signed `webhook-id` with its prefix. */
export const isWatchdogChange = (verification: DeliveryVerification & { valid: true }) =>
	verification.scheme === 'standard' &&
	verification.deliveryId?.startsWith(WATCHDOG_CHANGE_ID_PREFIX) === true;

/** The production webhook URL of each trigger node, as activation in this process saw it. */
const webhookUrls = new Map<string, string>();

/** One trigger node of a workflow: what this process keeps per node is kept under it. */
export const scopeOf = (context: Pick<IHookFunctions, 'getWorkflow' | 'getNode'>) =>
	`${context.getWorkflow().id ?? ''}:${context.getNode().id}`;

/** Activation runs before n8n starts the trigger's watchdog, in the same process (its leader). */
export function rememberWebhookUrl(context: IHookFunctions): void {
	const url = context.getNodeWebhookUrl('default');
	if (url) webhookUrls.set(scopeOf(context), url);
}

export interface HandOffResult {
	/** Answered 2xx: the receiving process ran it, or knew it. */
	handed: WebhookEvent[];
	failures: Array<{ event: WebhookEvent; reason: string }>;
}

/** Sends each change, one after the other (oldest first, as the watchdog found them). */
export async function handOff(
	context: ITriggerFunctions,
	events: WebhookEvent[],
): Promise<HandOffResult> {
	const result: HandOffResult = { handed: [], failures: [] };
	if (events.length === 0) return result;
	const url = webhookUrls.get(scopeOf(context));
	const secrets = await context.getCredentials<{ signingSecret?: string }>(
		BACKGROUND_CHECK_WEBHOOK_CREDENTIAL,
	);
	const secret = typeof secrets.signingSecret === 'string' ? secrets.signingSecret.trim() : '';
	if (!url || !secret) {
		const reason = url ? 'the credential has no Signing Secret' : 'no webhook URL is known yet';
		return { handed: [], failures: events.map((event) => ({ event, reason })) };
	}
	for (const event of events) {
		const body = JSON.stringify(event.body);
		const id = `${WATCHDOG_CHANGE_ID_PREFIX}${outputEventKey(event)}`;
		const timestamp = Math.floor(Date.now() / 1000);
		try {
			const answer = (await context.helpers.httpRequest({
				method: 'POST',
				url,
				body,
				headers: {
					'content-type': 'application/json',
					'webhook-id': id,
					'webhook-timestamp': String(timestamp),
					'webhook-signature': signStandardWebhook(secret, id, timestamp, body),
				},
				timeout: HANDOFF_TIMEOUT_MS,
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
				json: false,
			})) as { statusCode?: number };
			const status = Number(answer.statusCode);
			if (status >= 200 && status < 300) result.handed.push(event);
			else result.failures.push({ event, reason: `the webhook URL answered ${status}` });
		} catch (error) {
			result.failures.push({ event, reason: (error as Error).message });
		}
	}
	return result;
}
