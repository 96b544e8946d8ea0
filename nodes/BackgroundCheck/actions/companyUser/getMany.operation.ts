import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runReadForEachItem } from '../../helpers/execute';
import { concurrencyField, returnAllAndLimit } from '../../helpers/fields';
import { fetchList } from '../../helpers/fetchList';
import { requireId } from '../../helpers/inputChecks';
import { apiPath } from '../../../shared/transport';

const properties: INodeProperties[] = [
	...returnAllAndLimit,
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			concurrencyField,
			{
				displayName: 'Group Profile ID',
				name: 'groupProfileId',
				type: 'string',
				default: '',
				description:
					'The users of this group of the company instead of the credential’s own group, sent as groupProfileId',
			},
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['companyUser'], operation: ['getMany'] } },
	properties,
);

/** GET /company/user/list, which answers `{ users }`: one output item per user (id, givenName, familyName, enabled). */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runReadForEachItem.call(this, async (itemIndex) => {
		const group = String(this.getNodeParameter('options.groupProfileId', itemIndex, '') ?? '');
		const qs =
			group.trim() === ''
				? undefined
				: { groupProfileId: requireId(this.getNode(), group, 'Group Profile ID', itemIndex) };
		return await fetchList.call(this, itemIndex, apiPath`/company/user/list`, { key: 'users', qs });
	});
}
