import type { IDataObject } from 'n8n-workflow';

import {
	CASE_RESULTS,
	CASE_STATUSES,
	SECONDARY_CASE_STATUSES,
	findCaseDataStatus,
	findPendingStatus,
} from '../../shared/catalog';
import { isPlainObject } from '../../shared/values';

/** A case's status ID key → the name added next to it, from the catalog of the reference's IDs. */
const CASE_STATUS_NAMES = new Map<
	string,
	{ nameKey: string; statuses: ReadonlyArray<{ name: string; id: string }> }
>([
	['caseStatusId', { nameKey: 'caseStatusName', statuses: CASE_STATUSES }],
	['secondaryCaseStatusId', { nameKey: 'secondaryStatusName', statuses: SECONDARY_CASE_STATUSES }],
	['resultTypeId', { nameKey: 'resultName', statuses: CASE_RESULTS }],
]);

/**
 * Adds names next to the status IDs of an answer: a case's `caseStatusId`, `secondaryCaseStatusId` and
 * `resultTypeId` (the catalog's names of the reference's IDs), and the names and meanings of spec 3.1 / 3.2
 * next to every `statusId` and `pendingStatusId` (case data and its per-record details). The API's own
 * fields are kept as they are; an ID the catalog does not list gets no extra field.
 */
export function describeStatuses<T>(value: T): T {
	if (Array.isArray(value)) return value.map((entry) => describeStatuses(entry)) as T;
	if (!isPlainObject(value)) return value;

	const described: IDataObject = {};
	for (const [key, field] of Object.entries(value)) {
		described[key] = describeStatuses(field);
		const caseStatus = CASE_STATUS_NAMES.get(key);
		if (caseStatus) {
			const status = caseStatus.statuses.find((entry) => entry.id === field);
			if (status) described[caseStatus.nameKey] = status.name;
		}
		if (key === 'statusId') {
			const status = findCaseDataStatus(field as string);
			if (status) {
				described.statusName = status.status;
				described.statusMeaning = status.meaning;
			}
		}
		if (key === 'pendingStatusId') {
			const pending = findPendingStatus(field as string);
			if (pending) {
				described.pendingStatusName = pending.name;
				described.pendingStatusAppliesTo = pending.appliesTo;
			}
		}
	}
	return described as T;
}
