/**
 * Spec 6.1 and 6.6: webhook endpoints at company or group level, their secrets and rotation, the two
 * delivery systems (standard and legacy) with their own switches, and the legacy-to-standard migration.
 */
import { randomBytes, randomUUID } from 'crypto';

import { generateWebhookSecret } from '../../nodes/shared/webhookSignature';
import type { SandboxClock } from '../clock';
import { DEMO_GROUPS } from '../fixtures';
import { isPlainObject } from '../../nodes/shared/values';
import { badRequest, notFound } from '../http';
import { EVENT_TYPES, isEventType, type EventType } from './events';

export type WebhookScheme = 'standard' | 'legacy';

export const DEFAULT_LEGACY_HEADER_NAME = 'sandbox-signature';

/** How long a rotated-out secret keeps signing next to the new one, in sandbox time. */
export const ROTATION_OVERLAP_SECONDS = 24 * 60 * 60;

/** Deliberate misbehaviour, for exercising consumers (spec 6.5 says both can happen). */
export interface DeliveryQuirks {
	/** Every successful delivery is sent a second time, same `webhook-id`. */
	duplicate: boolean;
	/** Messages are delivered in swapped pairs: each one is held back until the next has been delivered. */
	outOfOrder: boolean;
}

export interface SubscriptionInput {
	url: string;
	/** Defaults to every event type. */
	eventTypes?: string[];
	/** A group subscription; omit or null for company level. */
	groupProfileId?: string | null;
	/** Which delivery system the endpoint belongs to; default `standard`. */
	scheme?: WebhookScheme;
	/** Legacy only: credentials the legacy system puts inside the body. */
	username?: string | null;
	password?: string | null;
	quirks?: Partial<DeliveryQuirks>;
}

export type SubscriptionPatch = Partial<
	Pick<SubscriptionInput, 'url' | 'eventTypes' | 'username' | 'password' | 'quirks'>
>;

export interface Subscription {
	id: string;
	scheme: WebhookScheme;
	url: string;
	eventTypes: EventType[];
	groupProfileId: string | null;
	/** `whsec_<base64>` for standard endpoints, a plain hex secret for legacy ones. */
	secret: string;
	/** Standard only: secrets rotated out that still sign until `expiresAt`. */
	previousSecrets: { secret: string; expiresAt: string }[];
	username: string | null;
	password: string | null;
	quirks: DeliveryQuirks;
	/** For a standard endpoint created by the migration: the legacy endpoint it copies. */
	migratedFromId: string | null;
	crStamp: string;
}

export interface WebhookSettings {
	/** The delivery system of spec 6.3. */
	standardEnabled: boolean;
	/** The legacy system of spec 6.6; with both on, an endpoint present in both receives each event twice. */
	legacyEnabled: boolean;
	/** Name of the legacy signature header (`<brand>-signature`). */
	legacyHeaderName: string;
}

export interface MigrationResult {
	created: Subscription[];
	alreadyMigrated: number;
}

const generateLegacySecret = () => randomBytes(32).toString('hex');

export class SubscriptionRegistry {
	private readonly subscriptions = new Map<string, Subscription>();
	readonly settings: WebhookSettings;

	constructor(
		private readonly clock: SandboxClock,
		legacyHeaderName = DEFAULT_LEGACY_HEADER_NAME,
	) {
		this.settings = { standardEnabled: true, legacyEnabled: false, legacyHeaderName };
	}

	create(input: SubscriptionInput): Subscription {
		if (!isPlainObject(input)) throw badRequest('A subscription needs a JSON object body');
		const scheme = input.scheme ?? 'standard';
		if (scheme !== 'standard' && scheme !== 'legacy')
			throw badRequest('scheme must be "standard" or "legacy"');
		const groupProfileId = input.groupProfileId ?? null;
		if (
			groupProfileId !== null &&
			!DEMO_GROUPS.some((group) => group.groupProfileId === groupProfileId)
		) {
			throw badRequest(`Unknown groupProfileId ${JSON.stringify(groupProfileId)}`);
		}
		const subscription: Subscription = {
			id: `sub_${randomUUID().replace(/-/g, '')}`,
			scheme,
			url: checkedUrl(input.url),
			eventTypes: checkedEventTypes(input.eventTypes),
			groupProfileId,
			secret: scheme === 'standard' ? generateWebhookSecret() : generateLegacySecret(),
			previousSecrets: [],
			username: scheme === 'legacy' ? (input.username ?? null) : null,
			password: scheme === 'legacy' ? (input.password ?? null) : null,
			quirks: { duplicate: false, outOfOrder: false, ...checkedQuirks(input.quirks) },
			migratedFromId: null,
			crStamp: this.clock.nowIso(),
		};
		this.subscriptions.set(subscription.id, subscription);
		return subscription;
	}

	list(): Subscription[] {
		return [...this.subscriptions.values()].map(this.withoutExpiredSecrets);
	}

	get(id: string): Subscription {
		const subscription = this.find(id);
		if (!subscription) throw notFound(`No webhook subscription ${id}`);
		return subscription;
	}

	/** The subscription, or undefined once deleted (a retry of a deleted endpoint just stops). */
	find(id: string): Subscription | undefined {
		const subscription = this.subscriptions.get(id);
		return subscription && this.withoutExpiredSecrets(subscription);
	}

	update(id: string, patch: SubscriptionPatch): Subscription {
		const subscription = this.get(id);
		if (!isPlainObject(patch)) throw badRequest('A subscription update needs a JSON object body');
		if (patch.url !== undefined) subscription.url = checkedUrl(patch.url);
		if (patch.eventTypes !== undefined)
			subscription.eventTypes = checkedEventTypes(patch.eventTypes);
		if (patch.quirks !== undefined)
			subscription.quirks = { ...subscription.quirks, ...checkedQuirks(patch.quirks) };
		if (subscription.scheme === 'legacy') {
			if (patch.username !== undefined) subscription.username = patch.username;
			if (patch.password !== undefined) subscription.password = patch.password;
		}
		return subscription;
	}

	delete(id: string): void {
		this.get(id);
		this.subscriptions.delete(id);
	}

	/**
	 * Issues a new secret. A standard endpoint keeps signing with the old one too (both signatures in
	 * `webhook-signature`) for {@link ROTATION_OVERLAP_SECONDS} or until {@link endRotation}; the legacy
	 * header carries one signature, so a legacy secret is replaced at once.
	 */
	rotate(id: string): Subscription {
		const subscription = this.get(id);
		if (subscription.scheme === 'legacy') {
			subscription.secret = generateLegacySecret();
			return subscription;
		}
		const expiresAt = new Date(this.clock.now() + ROTATION_OVERLAP_SECONDS * 1000).toISOString();
		subscription.previousSecrets.unshift({ secret: subscription.secret, expiresAt });
		subscription.secret = generateWebhookSecret();
		return subscription;
	}

	endRotation(id: string): Subscription {
		const subscription = this.get(id);
		subscription.previousSecrets = [];
		return subscription;
	}

	/** Every secret that signs a delivery now: the current one first. */
	signingSecrets(subscription: Subscription): string[] {
		return [
			subscription.secret,
			...subscription.previousSecrets.map((previous) => previous.secret),
		];
	}

	/**
	 * The endpoints of one delivery system that receive a group's event. Spec 6.1: once a group has a
	 * subscription of its own, its events no longer go to the company-level ones.
	 */
	recipients(scheme: WebhookScheme, groupProfileId: string, event: EventType): Subscription[] {
		const ofScheme = this.list().filter((subscription) => subscription.scheme === scheme);
		const groupLevel = ofScheme.filter(
			(subscription) => subscription.groupProfileId === groupProfileId,
		);
		const chosen =
			groupLevel.length > 0
				? groupLevel
				: ofScheme.filter((subscription) => subscription.groupProfileId === null);
		return chosen.filter((subscription) => subscription.eventTypes.includes(event));
	}

	updateSettings(patch: Partial<WebhookSettings>): WebhookSettings {
		if (!isPlainObject(patch)) throw badRequest('Settings need a JSON object body');
		for (const key of ['standardEnabled', 'legacyEnabled'] as const) {
			if (patch[key] !== undefined) {
				if (typeof patch[key] !== 'boolean') throw badRequest(`${key} must be true or false`);
				this.settings[key] = patch[key];
			}
		}
		if (patch.legacyHeaderName !== undefined) {
			if (
				typeof patch.legacyHeaderName !== 'string' ||
				!/^[A-Za-z0-9-]+$/.test(patch.legacyHeaderName)
			) {
				throw badRequest('legacyHeaderName must be a header name such as "acme-signature"');
			}
			this.settings.legacyHeaderName = patch.legacyHeaderName.toLowerCase();
		}
		return this.settings;
	}

	/**
	 * Spec 6.6: copies every legacy endpoint into the standard system with a newly generated secret and
	 * without the body credentials. Repeating it creates nothing new; the legacy endpoints stay.
	 */
	migrateLegacy(): MigrationResult {
		const migratedIds = new Set(this.list().map((subscription) => subscription.migratedFromId));
		const result: MigrationResult = { created: [], alreadyMigrated: 0 };
		for (const legacy of this.list().filter((subscription) => subscription.scheme === 'legacy')) {
			if (migratedIds.has(legacy.id)) {
				result.alreadyMigrated++;
				continue;
			}
			const copy = this.create({
				url: legacy.url,
				eventTypes: legacy.eventTypes,
				groupProfileId: legacy.groupProfileId,
				quirks: legacy.quirks,
			});
			copy.migratedFromId = legacy.id;
			result.created.push(copy);
		}
		return result;
	}

	private readonly withoutExpiredSecrets = (subscription: Subscription): Subscription => {
		const now = this.clock.now();
		subscription.previousSecrets = subscription.previousSecrets.filter(
			(previous) => Date.parse(previous.expiresAt) > now,
		);
		return subscription;
	};
}

function checkedUrl(url: unknown): string {
	if (typeof url !== 'string') throw badRequest('url is required');
	try {
		const parsed = new URL(url);
		if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return parsed.href;
	} catch {
		// reported below
	}
	throw badRequest(`url must be an http(s) URL, got ${JSON.stringify(url)}`);
}

function checkedEventTypes(eventTypes: unknown): EventType[] {
	if (eventTypes === undefined) return [...EVENT_TYPES];
	if (!Array.isArray(eventTypes) || eventTypes.length === 0 || !eventTypes.every(isEventType)) {
		throw badRequest(`eventTypes must be a non-empty array of ${EVENT_TYPES.join(', ')}`);
	}
	return [...new Set(eventTypes)];
}

function checkedQuirks(quirks: unknown): Partial<DeliveryQuirks> {
	if (quirks === undefined) return {};
	if (!isPlainObject(quirks)) throw badRequest('quirks must be an object');
	const checked: Partial<DeliveryQuirks> = {};
	for (const key of ['duplicate', 'outOfOrder'] as const) {
		if (quirks[key] === undefined) continue;
		if (typeof quirks[key] !== 'boolean') throw badRequest(`quirks.${key} must be true or false`);
		checked[key] = quirks[key];
	}
	return checked;
}
