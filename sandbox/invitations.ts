/**
 * A case's candidate and onboarding invitation as the reference shows them (`GET /invitation/case/{caseId}`,
 * `GET /candidate/info/case/id/{caseId}`): made from the case when first read, then kept on the case record.
 *
 * - A case ordered with customer-provided PII has no invitation (the reference: such cases never need one).
 * - An invitation lives 14 days of sandbox time (the reference's default); refreshing gives it 14 days again,
 *   resending replaces it with a new one (new ID and token). Its status: `completed` once the candidate has
 *   completed onboarding (the case began processing), `cancelled` once the case is canceled, `expired` after
 *   its expiry, else `pending`.
 * - The candidate is linked to the case once onboarding began (step 2 of the lifecycle), from the start for
 *   customer-provided PII, or once updated through the API. Their PII is locked once the case began processing.
 */
import { randomUUID } from 'crypto';

import { isPlainObject } from '../nodes/shared/values';
import type { CandidateRecord, CaseRecord, InvitationRecord } from './state';
import type { InvitationStatusName } from './statuses';

/** How long an invitation is valid, in sandbox days (the reference's default expiration period). */
export const INVITATION_DAYS = 14;
export const INVITATION_MS = INVITATION_DAYS * 24 * 3600 * 1000;

/** The date of birth a candidate who onboarded without giving one through the API is said to have given. */
export const ONBOARDED_DOB = '1990-01-01';

/** A new invitation for the case, valid `INVITATION_DAYS` from `nowMs`. */
export function newInvitation(
	id: string,
	email: string,
	nowIso: string,
	nowMs: number,
): InvitationRecord {
	return {
		id,
		token: randomUUID(),
		email,
		crStamp: nowIso,
		modStamp: nowIso,
		expiresAtMs: nowMs + INVITATION_MS,
		deletedStamp: null,
	};
}

/** The case's invitation (made on first use, sent when the case was created); undefined for customer-provided PII. */
export function invitationOf(record: CaseRecord): InvitationRecord | undefined {
	if (record.isCustomerProvidedPii === 1) return undefined;
	record.invitation ??= newInvitation(
		record.caseInvitationId,
		record.candidateEmail,
		record.crStamp,
		Date.parse(record.crStamp),
	);
	return record.invitation;
}

export function invitationStatusOf(record: CaseRecord, nowMs: number): InvitationStatusName {
	const invitation = invitationOf(record);
	if (invitation?.deletedStamp) return 'cancelled';
	if (record.completedOnboardingStamp !== undefined) return 'completed';
	if (invitation && nowMs >= invitation.expiresAtMs) return 'expired';
	return 'pending';
}

/** The metadata of the case's first order data of this type, if any. */
function orderDataValue(record: CaseRecord, type: string, key: string): string | null {
	const entry = record.orderData.find((data) => data.caseOrderDataTypeId === type);
	const value = entry && isPlainObject(entry.metadata) ? entry.metadata[key] : undefined;
	return typeof value === 'string' && value !== '' ? value : null;
}

/** The candidate's data beyond the case's fields: date of birth and government ID from the order data at first. */
export function candidateOf(record: CaseRecord): CandidateRecord {
	record.candidate ??= {
		dob: orderDataValue(record, 'codt-dob', 'dob'),
		govtId: orderDataValue(record, 'codt-govt-id', 'govtId'),
		updatedStamp: null,
		crStamp: record.crStamp,
		modStamp: record.crStamp,
	};
	return record.candidate;
}

/**
 * Whether a candidate is linked to the case (the reference answers 404 for candidate info until one is): once
 * onboarding began, from the start for customer-provided PII, or once updated through the API; with a date of
 * birth known (the reference's candidate always has one).
 */
export function isCandidateLinked(record: CaseRecord): boolean {
	const linked =
		record.isCustomerProvidedPii === 1 ||
		record.beginOnboardingStamp !== undefined ||
		candidateOf(record).updatedStamp !== null;
	return linked && dobOf(record) !== null;
}

/** PII is locked once the case began processing: only the phone (and a government ID not yet set) can change. */
export const isPiiLocked = (record: CaseRecord) => record.beginProcessingStamp !== undefined;

/** The candidate's date of birth: given through the API or order data, else the one given while onboarding. */
export function dobOf(record: CaseRecord): string | null {
	const { dob } = candidateOf(record);
	if (dob !== null) return dob;
	return record.beginOnboardingStamp !== undefined ? ONBOARDED_DOB : null;
}
