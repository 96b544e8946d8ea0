import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { apiRequest, type ApiPath } from '../../shared/transport';
import { applyLimit, recordsOf } from '../../shared/transport/listResponses';
import { readLimit } from './parameters';

/** GETs a list endpoint and returns its records, cut to the "Limit" parameter unless "Return All" is on. */
export async function fetchList(
	this: IExecuteFunctions,
	itemIndex: number,
	path: ApiPath,
	options: { key?: string; qs?: IDataObject } = {},
): Promise<IDataObject[]> {
	const response = await apiRequest.call(this, 'GET', path, { qs: options.qs, itemIndex });
	return applyLimit(recordsOf(response, options.key), readLimit.call(this, itemIndex));
}
