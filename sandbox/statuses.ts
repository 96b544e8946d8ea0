/**
 * Status names and IDs, all from the catalog: case data statuses (spec 3.1), the pending statuses of spec 3.2
 * that the API reference's case data can carry, and the reference's case and secondary status IDs for the
 * sequence of spec 3.3.
 */
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
