/**
 * Status names and IDs, all from the catalog: case data statuses (spec 3.1), the pending statuses of spec 3.2
 * that the API reference's case data can carry, and the reference's case and secondary status IDs for the
 * sequence of spec 3.3.
 */
import { contract } from '../api/contract';
import {
	CASE_DATA_STATUSES,
	CASE_RESULTS,
	CASE_STATUSES,
	CASE_STATUS_SEQUENCE,
	REFERENCE_PENDING_STATUSES,
	SECONDARY_CASE_STATUSES,
} from '../nodes/shared/catalog';

export type CaseDataStatusName = (typeof CASE_DATA_STATUSES)[number]['status'];
export type FinalCaseDataStatus = Exclude<CaseDataStatusName, 'pending'>;
export type CaseStep = (typeof CASE_STATUS_SEQUENCE)[number]['step'];

export const FINAL_CASE_DATA_STATUSES = CASE_DATA_STATUSES.map((entry) => entry.status).filter(
	(status): status is FinalCaseDataStatus => status !== 'pending',
);

export function isFinalCaseDataStatus(value: unknown): value is FinalCaseDataStatus {
	return FINAL_CASE_DATA_STATUSES.includes(value as FinalCaseDataStatus);
}

/** A pending status the reference's case data may carry (six of spec 3.2 are not among them). */
export function isPendingStatusId(value: unknown): boolean {
	return REFERENCE_PENDING_STATUSES.some((entry) => entry.id === value);
}

/** `{ status, statusId }` for a status name of spec 3.1. */
export function caseDataStatusFields(status: CaseDataStatusName): {
	status: string;
	statusId: string;
} {
	const entry = CASE_DATA_STATUSES.find((candidate) => candidate.status === status);
	if (!entry) throw new Error(`Unknown case data status ${status}`);
	return { status: entry.status, statusId: entry.statusId };
}

/** `{ pendingStatus, pendingStatusId }` as the reference names a pending status, or both null. */
export function pendingStatusFields(pendingStatusId: string | null): {
	pendingStatus: string | null;
	pendingStatusId: string | null;
} {
	if (pendingStatusId === null) return { pendingStatus: null, pendingStatusId: null };
	const entry = REFERENCE_PENDING_STATUSES.find((candidate) => candidate.id === pendingStatusId);
	if (!entry) throw new Error(`Unknown pending status ${pendingStatusId}`);
	return { pendingStatus: entry.name, pendingStatusId: entry.id };
}

function idOf(list: ReadonlyArray<{ name: string; id: string }>, name: string): string {
	const entry = list.find((candidate) => candidate.name === name);
	if (!entry) throw new Error(`The catalog has no status ${name}`);
	return entry.id;
}

/** A new case's result: Open. */
export const OPEN_RESULT = { resultType: 'Open', resultTypeId: idOf(CASE_RESULTS, 'Open') };

/** The case fields of one step of the spec 3.3 sequence. */
export function caseStepFields(step: CaseStep) {
	const entry = CASE_STATUS_SEQUENCE.find((candidate) => candidate.step === step);
	if (!entry) throw new Error(`No case status step ${step}`);
	return {
		caseStatus: entry.caseStatus,
		caseStatusId: idOf(CASE_STATUSES, entry.caseStatus),
		secondaryStatus: entry.secondaryStatus,
		secondaryCaseStatusId:
			entry.secondaryStatus === null ? null : idOf(SECONDARY_CASE_STATUSES, entry.secondaryStatus),
	};
}

/**
 * The step of the spec 3.3 sequence a case is at, or undefined when it has left the sequence: canceled
 * (Complete / Canceled) or adjudicated (Adjudicated, placed or in pre-adverse action). Such a case no longer moves.
 */
export function sequenceStepOf(fields: {
	caseStatus: string;
	secondaryStatus: string | null;
}): CaseStep | undefined {
	return CASE_STATUS_SEQUENCE.find(
		(candidate) =>
			candidate.caseStatus === fields.caseStatus &&
			candidate.secondaryStatus === fields.secondaryStatus,
	)?.step;
}

/** A canceled case (POST /case/id/{caseId}/cancel): Complete, secondary status Canceled. */
export const CANCELED_CASE_FIELDS = {
	caseStatus: 'Complete',
	caseStatusId: idOf(CASE_STATUSES, 'Complete'),
	secondaryStatus: 'Canceled',
	secondaryCaseStatusId: idOf(SECONDARY_CASE_STATUSES, 'Canceled'),
};

export type CaseResultName = (typeof CASE_RESULTS)[number]['name'];

/** `{ resultType, resultTypeId }` of a result the reference names. */
export function resultFields(result: CaseResultName) {
	return { resultType: result as string, resultTypeId: idOf(CASE_RESULTS, result) };
}

/**
 * A decision recorded on a complete case: Adjudicated, no secondary status, and the result (Placed, as the
 * reference's place action says; Pre-Adverse Action for the pre-adverse action).
 */
export function adjudicatedFields(result: CaseResultName) {
	return {
		caseStatus: 'Adjudicated',
		caseStatusId: idOf(CASE_STATUSES, 'Adjudicated'),
		secondaryStatus: null,
		secondaryCaseStatusId: null,
		...resultFields(result),
	};
}

export function caseStepOf(fields: {
	caseStatus: string;
	secondaryStatus: string | null;
}): CaseStep {
	const entry = CASE_STATUS_SEQUENCE.find(
		(candidate) =>
			candidate.caseStatus === fields.caseStatus &&
			candidate.secondaryStatus === fields.secondaryStatus,
	);
	if (!entry)
		throw new Error(
			`Case status ${fields.caseStatus} / ${fields.secondaryStatus} is not in the sequence`,
		);
	return entry.step;
}

/** Two enums of the reference listed side by side (IDs, names): paired by position (docs/api-contract.md, reading 5). */
function pairedEnum(idsSchema: string, namesSchema: string): Array<{ id: string; name: string }> {
	const schemas = contract.components.schemas as Record<string, { enum: string[] }>;
	const names = schemas[namesSchema].enum;
	return schemas[idsSchema].enum.map((id, index) => ({ id, name: names[index] }));
}

/** The reference's invitation statuses: pending, expired, completed, cancelled. */
export const INVITATION_STATUSES = pairedEnum('InvitationStatusID', 'InvitationStatus');
export type InvitationStatusName = 'pending' | 'expired' | 'completed' | 'cancelled';

/** `{ invitationStatusId, invitationStatusName }` of an invitation status, as a CaseSummary carries them. */
export function invitationStatusFields(status: InvitationStatusName) {
	return { invitationStatusId: idOf(INVITATION_STATUSES, status), invitationStatusName: status };
}

/** The reference's adverse action statuses: Pre-Adverse, Dispute, Cancel, Post. */
export const ADVERSE_ACTION_STATUSES = pairedEnum(
	'AdverseActionStatusID',
	'AdverseActionStatusName',
);

/** `{ statusName, statusId }` of an adverse action status. */
export function adverseActionStatusFields(
	statusName: 'Pre-Adverse' | 'Dispute' | 'Cancel' | 'Post',
) {
	return { statusName, statusId: idOf(ADVERSE_ACTION_STATUSES, statusName) };
}
