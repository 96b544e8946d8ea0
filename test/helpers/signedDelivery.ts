/**
 * What the two webhookSignature test files share: a Standard Webhooks delivery as verifyStandardWebhook takes
 * it, signed with one secret, and the HTTP headers that carry it.
 */
import {
	signStandardWebhook,
	type StandardWebhookInput,
} from '../../nodes/shared/webhookSignature';

export type SignedDelivery = StandardWebhookInput & {
	webhookId: string;
	webhookTimestamp: string;
	webhookSignature: string;
};

/** `rawBody` signed with `secret` at `timestampSeconds`, received at `nowSeconds` (by default that instant). */
export function signedDelivery(
	secret: string,
	webhookId: string,
	timestampSeconds: number,
	rawBody: Buffer | string,
	nowSeconds = timestampSeconds,
): SignedDelivery {
	return {
		rawBody,
		webhookId,
		webhookTimestamp: String(timestampSeconds),
		webhookSignature: signStandardWebhook(secret, webhookId, timestampSeconds, rawBody),
		secrets: [secret],
		nowSeconds,
	};
}

/** The `webhook-id`, `webhook-timestamp` and `webhook-signature` headers of a delivery. */
export const headersOf = (delivery: SignedDelivery): Record<string, string> => ({
	'webhook-id': delivery.webhookId,
	'webhook-timestamp': delivery.webhookTimestamp,
	'webhook-signature': delivery.webhookSignature,
});
