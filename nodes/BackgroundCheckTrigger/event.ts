/**
 * What the trigger reads from a verified delivery, as pure functions: the event, whether it is wanted, its
 * identities for duplicate suppression, and the output item.
 */
import { createHash } from 'crypto';

import { isPlainObject } from '../shared/values';
import type { Change } from './memory';
import type { DeliveryVerification } from './verification';

export const CASE_STATUS_CHANGE = 'case.statuschange';
export const CASE_DATA_STATUS_CHANGE = 'casedata.statuschange';
export const ANY_EVENT = 'any';

/** Matches a missing secondary status in the secondary status filter. */
export const NO_SECONDARY_STATUS = 'none';

export interface WebhookEvent {
	/** The body as received, minus the legacy system's username and password. */
	body: Record<string, unknown>;
	event: string;
	messageId?: string;
	eventObject: Record<string, unknown>;
}

/** Parses a verified body; undefined when it is not a JSON object. */
export function parseEvent(rawBody: Buffer): WebhookEvent | undefined {
	let parsed: unknown;
	try {
		parsed = JSON.parse(rawBody.toString('utf8'));
	} catch {
		return undefined;
	}
	if (!isPlainObject(parsed)) return undefined;
	// Spec 6.6: the legacy system may put the endpoint's username and password in the body.
	const body = { ...parsed };
	delete body.username;
	delete body.password;
	return {
		body,
		event: typeof body.event === 'string' ? body.event : '',
		messageId: typeof body.messageId === 'string' && body.messageId ? body.messageId : undefined,
		eventObject: isPlainObject(body.eventObject) ? body.eventObject : {},
	};
}

/** "Complete, Pending" → ["complete", "pending"]. */
export function parseStatusList(value: unknown): string[] {
	const entries = typeof value === 'string' ? value.split(',') : [];
	return entries.map((entry) => entry.trim().toLowerCase()).filter(Boolean);
}

/** Undefined when the event type is selected (an event name, or {@link ANY_EVENT}), otherwise why not. */
export function unselectedEventType(event: WebhookEvent, selected: string): string | undefined {
	return selected === ANY_EVENT || event.event === selected
		? undefined
		: `event ${event.event || '(none)'} not selected`;
}

export interface StatusFilter {
	/** Lower-case names or IDs; empty means any. */
	caseStatuses: string[];
	secondaryStatuses: string[];
}

/** Whether a status passes the filter's `wanted` names or IDs (none wanted: any passes). */
const statusMatches = (wanted: string[], name: unknown, id: unknown, allowNone: boolean) =>
	wanted.length === 0 ||
	wanted.some(
		(entry) =>
			(typeof name === 'string' && name.toLowerCase() === entry) ||
			(typeof id === 'string' && id.toLowerCase() === entry) ||
			(allowNone &&
				entry === NO_SECONDARY_STATUS &&
				(name === null || name === undefined) &&
				(id === null || id === undefined)),
	);

/** Undefined when the event's case status and secondary status pass the filter, otherwise why not. */
export function unselectedStatus(event: WebhookEvent, filter: StatusFilter): string | undefined {
	const { caseStatus, caseStatusId, secondaryStatus, secondaryCaseStatusId } = event.eventObject;
	if (!statusMatches(filter.caseStatuses, caseStatus, caseStatusId, false))
		return 'case status not selected';
	if (!statusMatches(filter.secondaryStatuses, secondaryStatus, secondaryCaseStatusId, true))
		return 'secondary status not selected';
	return undefined;
}

function stableJson(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
	if (isPlainObject(value)) {
		return `{${Object.keys(value)
			.sort()
			.map((key) => `${JSON.stringify(key)}:${stableJson(value[key])}`)
			.join(',')}}`;
	}
	return JSON.stringify(value) ?? 'null';
}

/**
 * The event key, what an event says: for a case status change spec 6.5's (case id, caseStatusId,
 * secondaryCaseStatusId, modStamp); for a case data status change the same for the case data (id, statusId,
 * pendingStatusId, modStamp); for other events the whole eventObject. The same in every copy of the event,
 * whichever delivery system or attempt sent it, and in the event the watchdog builds from the API.
 */
export function eventKeyOf(event: Pick<WebhookEvent, 'event' | 'eventObject'>): string {
	const { id, caseStatusId, secondaryCaseStatusId, statusId, pendingStatusId, modStamp } =
		event.eventObject;
	if (typeof id === 'string' && typeof modStamp === 'string') {
		if (event.event === CASE_STATUS_CHANGE)
			return `case:${stableJson([id, caseStatusId ?? null, secondaryCaseStatusId ?? null, modStamp])}`;
		if (event.event === CASE_DATA_STATUS_CHANGE)
			return `casedata:${stableJson([id, statusId ?? null, pendingStatusId ?? null, modStamp])}`;
	}
	return `content:${stableJson([event.event, event.eventObject])}`;
}

/** The statuses a case status change sets, as the watchdog compares them. */
export const caseStatusOf = (record: Record<string, unknown>) =>
	JSON.stringify([record.caseStatusId ?? null, record.secondaryCaseStatusId ?? null]);

/** The statuses a case data status change sets. */
export const caseDataStatusOf = (record: Record<string, unknown>) =>
	JSON.stringify([record.statusId ?? null, record.pendingStatusId ?? null]);

/**
 * The event as the trigger's memory sees it: its event key and, with an id and a modStamp, its subject
 * (what modStamp orders: one case, or one case data record) and the statuses it sets.
 */
export function changeOf(event: Pick<WebhookEvent, 'event' | 'eventObject'>): Change {
	const eventKey = eventKeyOf(event);
	const { id, modStamp } = event.eventObject;
	if (typeof id !== 'string' || typeof modStamp !== 'string') return { eventKey };
	if (event.event === CASE_STATUS_CHANGE)
		return { eventKey, subject: `case:${id}`, status: caseStatusOf(event.eventObject), modStamp };
	if (event.event === CASE_DATA_STATUS_CHANGE) {
		const status = caseDataStatusOf(event.eventObject);
		return { eventKey, subject: `casedata:${id}`, status, modStamp };
	}
	return { eventKey, subject: `${event.event}:${id}`, modStamp };
}

/** The output's `eventKey`: the event key's SHA-256, the same in every copy, retry and delivery system. */
export const outputEventKey = (event: Pick<WebhookEvent, 'event' | 'eventObject'>) =>
	createHash('sha256').update(eventKeyOf(event)).digest('base64url');

/** The case a "Fetch latest case" request is for. */
export function caseIdOf(event: Pick<WebhookEvent, 'event' | 'eventObject'>): string | undefined {
	const { id, caseId } = event.eventObject;
	if (typeof caseId === 'string' && caseId) return caseId;
	return event.event === CASE_STATUS_CHANGE && typeof id === 'string' && id ? id : undefined;
}

/** Where an output item came from: a verified delivery, or the watchdog's read of the API. */
export type EventSource = 'webhook' | 'reconciliation';

/** Carries the delivery's claim token (memory.ts) to its execution's first step, which removes it. */
export const CLAIM_TOKEN_FIELD = '__claimToken';

/**
 * The trigger's output item: the event as delivered (a legacy body's username / password removed), with the
 * delivery's ID, time and signature scheme; null when the watchdog found it (unless it handed it over).
 */
export function outputItem(
	event: WebhookEvent,
	verification?: DeliveryVerification & { valid: true },
	source: EventSource = verification ? 'webhook' : 'reconciliation',
): Record<string, unknown> {
	return {
		...event.body,
		event: event.event,
		messageId: event.messageId ?? null,
		apiTrackingCode: event.body.apiTrackingCode ?? null,
		apiTrackingUser: event.body.apiTrackingUser ?? null,
		eventObject: event.eventObject,
		eventKey: outputEventKey(event),
		deliveryId: verification?.deliveryId ?? null,
		deliveryTimestamp: verification
			? new Date(verification.timestampSeconds * 1000).toISOString()
			: null,
		signatureScheme: verification?.scheme ?? null,
		source,
	};
}
