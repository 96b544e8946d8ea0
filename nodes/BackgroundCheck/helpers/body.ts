import type { IDataObject } from 'n8n-workflow';

import { isPlainObject } from '../../shared/values';
/**
 * Drops what the user left empty (empty strings, empty lists, empty objects, undefined) so that an
 * optional field the user did not fill is not sent at all.
 */
export function withoutEmptyValues(value: IDataObject): IDataObject {
	const result: IDataObject = {};
	for (const [key, field] of Object.entries(value)) {
		const cleaned = isPlainObject(field) ? withoutEmptyValues(field) : field;
		if (cleaned === undefined || cleaned === '') continue;
		if (Array.isArray(cleaned) && cleaned.length === 0) continue;
		if (isPlainObject(cleaned) && Object.keys(cleaned).length === 0) continue;
		result[key] = cleaned;
	}
	return result;
}
