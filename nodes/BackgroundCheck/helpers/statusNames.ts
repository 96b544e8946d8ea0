import type { IDataObject } from 'n8n-workflow';

import { findCaseDataStatus, findPendingStatus } from '../../shared/catalog';
import { isPlainObject } from '../../shared/values';

/**
 * Adds the names and meanings of spec 3.1 / 3.2 next to every `statusId` and `pendingStatusId` in a
 * response (case data, its per-record details, a case's service summaries). The API's own fields are
 * kept as they are; an ID the spec does not list gets no extra field.
 */
export function describeStatuses<T>(value: T): T {
	if (Array.isArray(value)) return value.map((entry) => describeStatuses(entry)) as T;
	if (!isPlainObject(value)) return value;

	const described: IDataObject = {};
	for (const [key, field] of Object.entries(value)) {
		described[key] = describeStatuses(field);
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
