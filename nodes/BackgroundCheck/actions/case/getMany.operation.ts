import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { describeStatuses } from '../../helpers/statusNames';
import { runReadForEachItem } from '../../helpers/execute';
import { concurrencyOptions, returnAllAndLimit } from '../../helpers/fields';
import { collectPages } from '../../../shared/transport/listResponses';
import { readJsonObject, readLimit } from '../../helpers/parameters';
import { apiPath, apiRequest } from '../../../shared/transport';

const properties: INodeProperties[] = [
	...returnAllAndLimit,
	{
		displayName: 'Additional Query Parameters (JSON)',
		name: 'additionalQuery',
		type: 'json',
		default: '{}',
		description:
			'Query parameters for filters your provider documents; the spec shows none for GET /case/list. The node sets page itself (0-based, listMetadata paging as the sandbox answers it). Example: { "pageSize": 50 }.',
	},
	concurrencyOptions,
];

export const description = updateDisplayOptions(
	{ show: { resource: ['case'], operation: ['getMany'] } },
	properties,
);

/** GET /case/list, page by page: one output item per case of the credential's group. */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runReadForEachItem.call(this, async (itemIndex) => {
		const query = readJsonObject.call(
			this,
			itemIndex,
			'additionalQuery',
			'Additional Query Parameters (JSON)',
		);
		const limit = readLimit.call(this, itemIndex);
		const cases = await collectPages(
			async (page) =>
				await apiRequest.call(this, 'GET', apiPath`/case/list`, {
					qs: { ...query, page },
					itemIndex,
				}),
			'caseList',
			limit,
		);
		return describeStatuses(cases);
	});
}
