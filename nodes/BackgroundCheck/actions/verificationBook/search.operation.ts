import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { mergeBody, withoutEmptyValues } from '../../helpers/body';
import { runForEachItem } from '../../helpers/execute';
import { additionalBodyField, returnAllAndLimit } from '../../helpers/fields';
import { collectPages } from '../../../shared/transport/listResponses';
import { readAdditionalBody, readLimit } from '../../helpers/parameters';
import { checkBody } from '../../helpers/inputChecks';
import { apiPath, apiRequest } from '../../../shared/transport';

const properties: INodeProperties[] = [
	{
		displayName: 'Search Text',
		name: 'query',
		type: 'string',
		default: '',
		placeholder: 'e.g. Valley State University',
		description:
			'Text to find in employer and school names; empty lists the whole book. Sent as query (key name from the sandbox; the spec does not show the search body).',
	},
	{
		displayName: 'Entry Type',
		name: 'entryType',
		type: 'options',
		options: [
			{ name: 'Any', value: '', description: 'Employers and schools' },
			{
				name: 'Employer',
				value: 'employer',
				description: 'Employers, for employment verifications',
			},
			{ name: 'School', value: 'school', description: 'Schools, for education verifications' },
		],
		default: '',
		description:
			'Which kind of entries to return. Sent as type (key and values from the sandbox; the spec does not show them).',
	},
	...returnAllAndLimit,
	additionalBodyField('{ "state": "CA" }'),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['verificationBook'], operation: ['search'] } },
	properties,
);

/**
 * POST /vbook/search: one output item per employer or school. With Return All the pages are walked
 * (0-based `page` in the body, `listMetadata` in the answer). A read, even though it is a POST.
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runForEachItem.call(this, async (itemIndex) => {
		const criteria = mergeBody(
			withoutEmptyValues({
				query: this.getNodeParameter('query', itemIndex, '') as string,
				type: this.getNodeParameter('entryType', itemIndex, '') as string,
			}),
			readAdditionalBody.call(this, itemIndex),
		);
		checkBody(this.getNode(), criteria, itemIndex);
		return await collectPages(
			async (page) =>
				await apiRequest.call(this, 'POST', apiPath`/vbook/search`, {
					body: { ...criteria, page },
					itemIndex,
				}),
			'vbookList',
			readLimit.call(this, itemIndex),
		);
	});
}
