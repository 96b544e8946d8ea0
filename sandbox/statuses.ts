/**
 * Status names and IDs: case data statuses (3.1) and pending statuses (3.2) straight from the catalog;
 * the case status IDs of 3.3, which the spec names but does not list, are chosen here.
 */
import {
	CASE_DATA_STATUSES,
	CASE_STATUS_SEQUENCE,
	PENDING_STATUSES,
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

export function isPendingStatusId(value: unknown): boolean {
	return PENDING_STATUSES.some((entry) => entry.pendingStatusId === value);
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

/** `{ pendingStatus, pendingStatusId }` for a pending status ID of spec 3.2, or both null. */
export function pendingStatusFields(pendingStatusId: string | null): {
	pendingStatus: string | null;
	pendingStatusId: string | null;
} {
	if (pendingStatusId === null) return { pendingStatus: null, pendingStatusId: null };
	const entry = PENDING_STATUSES.find((candidate) => candidate.pendingStatusId === pendingStatusId);
	if (!entry) throw new Error(`Unknown pending status ${pendingStatusId}`);
	return { pendingStatus: entry.name, pendingStatusId: entry.pendingStatusId };
}

/** Sandbox-chosen IDs for the case statuses of spec 3.3 (the spec gives the names only). */
export const CASE_STATUS_IDS: Readonly<Record<string, string>> = {
	Pending: 'case-status-pending',
	Complete: 'case-status-complete',
};

export const SECONDARY_CASE_STATUS_IDS: Readonly<Record<string, string>> = {
	'Waiting for Authorization': 'secondary-case-status-waiting-for-authorization',
	'Authorization in Progress': 'secondary-case-status-authorization-in-progress',
};

/** The case fields of one step of the spec 3.3 sequence. */
export function caseStepFields(step: CaseStep) {
	const entry = CASE_STATUS_SEQUENCE.find((candidate) => candidate.step === step);
	if (!entry) throw new Error(`No case status step ${step}`);
	return {
		caseStatus: entry.caseStatus,
		caseStatusId: CASE_STATUS_IDS[entry.caseStatus],
		secondaryStatus: entry.secondaryStatus,
		secondaryCaseStatusId:
			entry.secondaryStatus === null ? null : SECONDARY_CASE_STATUS_IDS[entry.secondaryStatus],
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
