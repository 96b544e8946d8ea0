/**
 * Spec 6.3, 6.5, 6.6 and 8: signs and sends each message to every recipient endpoint, retries failures on
 * the sandbox clock (8 attempts, delays of section 8), and records every attempt in the delivery log.
 */
import {
	WEBHOOK_DELIVERY_ATTEMPTS,
	WEBHOOK_RESPONSE_DEADLINE_SECONDS,
	WEBHOOK_RETRY_DELAYS_SECONDS,
} from '../../nodes/shared/catalog';
import { signLegacyWebhook, signStandardWebhook } from '../../nodes/shared/webhookSignature';
import { BoundedLog } from '../boundedLog';
import type { SandboxClock } from '../clock';
import { redactSecrets } from '../redact';
import { DeliveryFaults } from './deliveryFaults';
import type { EventSink, EventType, WebhookMessage } from './events';
import { postWebhook, type PostResult } from './post';
import type { Subscription, SubscriptionRegistry, WebhookScheme } from './subscriptions';

export const DEFAULT_DELIVERY_DEADLINE_MS = WEBHOOK_RESPONSE_DEADLINE_SECONDS * 1000;

/** How long an out-of-order endpoint holds a message back when no later one comes along (sandbox time). */
export const OUT_OF_ORDER_HOLD_SECONDS = 60;

export interface DeliveryAttempt {
	id: number;
	messageId: string;
	event: EventType;
	caseId: string;
	subscriptionId: string;
	scheme: WebhookScheme;
	url: string;
	/** 1 to 8; a retry keeps the message ID and is signed afresh. */
	attempt: number;
	/** A deliberate second copy of a successful delivery (the `duplicate` quirk). */
	duplicate: boolean;
	/** Sandbox time of the attempt. */
	at: string;
	outcome: 'succeeded' | 'failed';
	statusCode: number | null;
	failure: string | null;
	/** Sandbox time of the next attempt; null after a success or the last attempt. */
	nextAttemptAt: string | null;
	/** Headers sent, signatures included. */
	headers: Record<string, string>;
	/** The body sent, with any legacy password redacted. */
	payload: unknown;
}

/** One message on its way to one endpoint; the body is fixed once, retries send the same bytes. */
interface Delivery {
	subscriptionId: string;
	message: WebhookMessage;
	body: string;
}

export class WebhookDispatcher implements EventSink {
	readonly log = new BoundedLog<DeliveryAttempt>(5000);
	/** Messages that never arrive (every attempt fails without reaching the endpoint). */
	readonly faults = new DeliveryFaults();
	private readonly heldBack = new Map<string, { delivery: Delivery; cancelTimeout: () => void }>();

	constructor(
		private readonly clock: SandboxClock,
		private readonly registry: SubscriptionRegistry,
		private readonly deadlineMs = DEFAULT_DELIVERY_DEADLINE_MS,
	) {}

	publish(groupProfileId: string, message: WebhookMessage): void {
		const { standardEnabled, legacyEnabled } = this.registry.settings;
		const schemes: WebhookScheme[] = [
			...(standardEnabled ? ['standard' as const] : []),
			...(legacyEnabled ? ['legacy' as const] : []),
		];
		for (const scheme of schemes) {
			for (const subscription of this.registry.recipients(scheme, groupProfileId, message.event)) {
				const delivery = {
					subscriptionId: subscription.id,
					message,
					body: serializeBody(subscription, message),
				};
				if (subscription.quirks.outOfOrder) this.sendOutOfOrder(delivery);
				else this.clock.scheduleIn(0, () => this.deliver(delivery, 1));
			}
		}
	}

	/** Holds each message until the next one for the endpoint has gone out, then sends it. */
	private sendOutOfOrder(delivery: Delivery): void {
		const held = this.heldBack.get(delivery.subscriptionId);
		if (!held) {
			const cancelTimeout = this.clock.scheduleIn(OUT_OF_ORDER_HOLD_SECONDS * 1000, () => {
				this.heldBack.delete(delivery.subscriptionId);
				return this.deliver(delivery, 1);
			});
			this.heldBack.set(delivery.subscriptionId, { delivery, cancelTimeout });
			return;
		}
		held.cancelTimeout();
		this.heldBack.delete(delivery.subscriptionId);
		this.clock.scheduleIn(0, async () => {
			await this.deliver(delivery, 1);
			await this.deliver(held.delivery, 1);
		});
	}

	private async deliver(delivery: Delivery, attempt: number): Promise<void> {
		const subscription = this.registry.find(delivery.subscriptionId);
		if (!subscription) return; // deleted meanwhile

		const entry = await this.attempt(subscription, delivery, attempt, false);
		if (entry.outcome === 'succeeded') {
			if (subscription.quirks.duplicate) await this.attempt(subscription, delivery, attempt, true);
			return;
		}
		if (attempt >= WEBHOOK_DELIVERY_ATTEMPTS) return;
		const delayMs = WEBHOOK_RETRY_DELAYS_SECONDS[attempt - 1] * 1000;
		entry.nextAttemptAt = new Date(this.clock.now() + delayMs).toISOString();
		this.clock.scheduleIn(delayMs, () => this.deliver(delivery, attempt + 1));
	}

	private async attempt(
		subscription: Subscription,
		delivery: Delivery,
		attempt: number,
		duplicate: boolean,
	): Promise<DeliveryAttempt> {
		const at = this.clock.nowIso();
		const headers = this.signedHeaders(subscription, delivery);
		const { message } = delivery;
		const dropped = this.faults.dropping(subscription.id, message.messageId);
		const result: PostResult = dropped
			? { kind: 'error', message: `dropped by delivery fault ${dropped.id}` }
			: await postWebhook(subscription.url, delivery.body, headers, this.deadlineMs);
		const failure = describeFailure(result, this.deadlineMs);
		return this.log.append({
			messageId: message.messageId,
			event: message.event,
			caseId: String(
				message.event === 'case.statuschange' ? message.eventObject.id : message.eventObject.caseId,
			),
			subscriptionId: subscription.id,
			scheme: subscription.scheme,
			url: subscription.url,
			attempt,
			duplicate,
			at,
			outcome: failure ? 'failed' : 'succeeded',
			statusCode: result.kind === 'response' ? result.statusCode : null,
			failure,
			nextAttemptAt: null,
			headers,
			payload: redactSecrets(JSON.parse(delivery.body)),
		});
	}

	/** Signed at each attempt with the wall-clock time, which is what a receiver checks its tolerance against. */
	private signedHeaders(subscription: Subscription, delivery: Delivery): Record<string, string> {
		const common = {
			'content-type': 'application/json',
			'user-agent': 'background-check-sandbox-webhooks',
		};
		if (subscription.scheme === 'legacy') {
			return {
				...common,
				[this.registry.settings.legacyHeaderName]: signLegacyWebhook(
					subscription.secret,
					Date.now(),
					delivery.body,
				),
			};
		}
		const timestamp = Math.floor(Date.now() / 1000);
		const signatures = this.registry
			.signingSecrets(subscription)
			.map((secret) =>
				signStandardWebhook(secret, delivery.message.messageId, timestamp, delivery.body),
			);
		return {
			...common,
			'webhook-id': delivery.message.messageId,
			'webhook-timestamp': String(timestamp),
			'webhook-signature': signatures.join(' '),
		};
	}
}

/** The legacy system may carry the endpoint's username / password inside the body (spec 6.6). */
function serializeBody(subscription: Subscription, message: WebhookMessage): string {
	if (subscription.scheme === 'standard') return JSON.stringify(message);
	const credentials = {
		...(subscription.username !== null ? { username: subscription.username } : {}),
		...(subscription.password !== null ? { password: subscription.password } : {}),
	};
	return JSON.stringify({ ...message, ...credentials });
}

/** Null for a 2xx; otherwise why the attempt counts as failed (3xx included, spec 6.5). */
function describeFailure(result: PostResult, deadlineMs: number): string | null {
	switch (result.kind) {
		case 'timeout':
			return `no response within ${deadlineMs} ms`;
		case 'error':
			return `connection failed: ${result.message}`;
		case 'response':
			if (result.statusCode >= 200 && result.statusCode < 300) return null;
			if (result.statusCode >= 300 && result.statusCode < 400)
				return `HTTP ${result.statusCode} (a redirect is a failure)`;
			return `HTTP ${result.statusCode}`;
	}
}
