import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { describeStatuses } from '../../helpers/statusNames';
import { runReadForEachItem } from '../../helpers/execute';
import { concurrencyOptions, returnAllAndLimit } from '../../helpers/fields';
import { requireId } from '../../helpers/inputChecks';
import { readLimit } from '../../helpers/parameters';
import { outputParameters, readOutput, shapeOutput } from '../../helpers/simplify';
import { applyLimit, recordsOf } from '../../../shared/transport/listResponses';
import { apiPath, apiRequest } from '../../../shared/transport';

const SCOPE_ACTIVE = 'active';
const SCOPE_ALL = 'all';

const properties: INodeProperties[] = [
	{
		displayName: 'Scope',
		name: 'scope',
		type: 'options',
		options: [
			{
				name: 'Active Cases',
				value: SCOPE_ACTIVE,
				description: 'The group’s cases that are not archived (GET /case/list)',
			},
			{
				name: 'All Cases',
				value: SCOPE_ALL,
				description: 'Archived cases too, with filters by user and package (GET /case/list/all)',
			},
		],
		default: SCOPE_ACTIVE,
	},
	...returnAllAndLimit,
	...outputParameters('case'),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		displayOptions: { show: { scope: [SCOPE_ALL] } },
		options: [
			{
				displayName: 'Ordered By Name or ID',
				name: 'userId',
				type: 'options',
				typeOptions: { loadOptionsMethod: 'getCompanyUsers' },
				default: '',
				description:
					'Only the cases ordered by this user of the company. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			},
			{
				displayName: 'Package Name or ID',
				name: 'packageId',
				type: 'options',
				typeOptions: { loadOptionsMethod: 'getPackages' },
				default: '',
				description:
					'Only the cases ordered with this package. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			},
		],
	},
	concurrencyOptions,
];

export const description = updateDisplayOptions(
	{ show: { resource: ['case'], operation: ['getMany'] } },
	properties,
);

/**
 * GET /case/list (active cases) or GET /case/list/all (archived too, filtered by userId and packageId): one
 * output item per case, newest first as the API lists them. The API answers the whole list at once; Limit
 * is applied here; Output > Simplified (the default from version 1.1) keeps the fields of
 * SIMPLIFIED_FIELDS.case.
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runReadForEachItem.call(this, async (itemIndex) => {
		const outputChoice = readOutput.call(this, itemIndex, 'case');
		const node = this.getNode();
		const limit = readLimit.call(this, itemIndex);
		const scope = this.getNodeParameter('scope', itemIndex, SCOPE_ACTIVE) as string;
		let response: unknown;
		if (scope === SCOPE_ALL) {
			const filters = this.getNodeParameter('filters', itemIndex, {}) as {
				userId?: string;
				packageId?: string;
			};
			const qs: Record<string, string> = {};
			if (filters.userId) qs.userId = requireId(node, filters.userId, 'Ordered By', itemIndex);
			if (filters.packageId)
				qs.packageId = requireId(node, filters.packageId, 'Package', itemIndex);
			response = await apiRequest.call(this, 'GET', apiPath`/case/list/all`, { qs, itemIndex });
		} else {
			response = await apiRequest.call(this, 'GET', apiPath`/case/list`, { itemIndex });
		}
		return shapeOutput(
			outputChoice,
			'case',
			describeStatuses(applyLimit(recordsOf(response, 'cases'), limit)),
		);
	});
}
