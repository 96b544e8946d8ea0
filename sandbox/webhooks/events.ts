/** Spec 6.2 and 6.4: the two event types and the payload each delivery carries. */
import { randomUUID } from 'crypto';

import type { CaseDataRecord, CaseRecord } from '../state';

export const EVENT_TYPES = ['case.statuschange', 'casedata.statuschange'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(value: unknown): value is EventType {
	return EVENT_TYPES.includes(value as EventType);
}

export interface WebhookMessage {
	messageId: string;
	event: EventType;
	apiTrackingCode: string | null;
	apiTrackingUser: string | null;
	eventObject: Record<string, unknown>;
}

function message(
	caseRecord: CaseRecord,
	event: EventType,
	eventObject: Record<string, unknown>,
): WebhookMessage {
	return {
		messageId: `msg_${randomUUID().replace(/-/g, '')}`,
		event,
		apiTrackingCode: caseRecord.apiTrackingCode,
		apiTrackingUser: caseRecord.apiTrackingUser,
		eventObject,
	};
}

/**
 * `eventObject` of a case status change: the case's identity, statuses and modStamp (spec 6.2), and the other
 * key fields the provider's webhook reference names (result, candidate, package), plus the group.
 */
export function caseStatusChangeMessage(caseRecord: CaseRecord): WebhookMessage {
	return message(caseRecord, 'case.statuschange', {
		id: caseRecord.id,
		groupProfileId: caseRecord.groupProfileId,
		caseStatus: caseRecord.caseStatus,
		caseStatusId: caseRecord.caseStatusId,
		secondaryStatus: caseRecord.secondaryStatus,
		secondaryCaseStatusId: caseRecord.secondaryCaseStatusId,
		resultType: caseRecord.resultType,
		candidateId: caseRecord.candidateId,
		packageId: caseRecord.packageId,
		modStamp: caseRecord.modStamp,
	});
}

/** Neither the spec nor the reference shows this `eventObject`; the sandbox sends the case data's identity and statuses. */
export function caseDataStatusChangeMessage(
	caseRecord: CaseRecord,
	caseData: CaseDataRecord,
): WebhookMessage {
	return message(caseRecord, 'casedata.statuschange', {
		id: caseData.id,
		caseId: caseRecord.id,
		groupProfileId: caseRecord.groupProfileId,
		serviceId: caseData.serviceId,
		serviceName: caseData.serviceName,
		serviceTypeId: caseData.serviceTypeId,
		status: caseData.status,
		statusId: caseData.statusId,
		pendingStatus: caseData.pendingStatus,
		pendingStatusId: caseData.pendingStatusId,
		modStamp: caseData.modStamp,
	});
}

/** Where events leave the case lifecycle; the webhook dispatcher is the one implementation. */
export interface EventSink {
	publish(groupProfileId: string, message: WebhookMessage): void;
}
