import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runForEachItem } from '../../helpers/execute';
import { returnAllAndLimit } from '../../helpers/fields';
import { invalidInput } from '../../helpers/inputChecks';
import { readLimit } from '../../helpers/parameters';
import { collectPages } from '../../../shared/transport/listResponses';
import { apiPath, apiRequest } from '../../../shared/transport';

const EMPLOYERS = 'vbt_employment';
const SCHOOLS = 'vbt_education';
/** Values this field held before it took the API's own. */
const EARLIER_VALUES = new Map([
	['employer', EMPLOYERS],
	['school', SCHOOLS],
]);

/** Entries asked per page: the API's default is 10; fewer pages for Return All. */
const PAGE_SIZE = 50;

const properties: INodeProperties[] = [
	{
		displayName: 'Entry Type',
		name: 'entryType',
		type: 'options',
		options: [
			{ name: 'Employers', value: EMPLOYERS, description: 'For employment verifications' },
			{ name: 'Schools', value: SCHOOLS, description: 'For education verifications' },
		],
		default: EMPLOYERS,
		description: 'Which book to search, sent as searchDetails.vbookTypeId',
	},
	{
		displayName: 'Name',
		name: 'query',
		type: 'string',
		default: '',
		placeholder: 'e.g. Valley State University',
		description:
			'Text to find in the names and aliases of the entries, sent as searchDetails.nameQuery; empty lists the whole book',
	},
	...returnAllAndLimit,
];

export const description = updateDisplayOptions(
	{ show: { resource: ['verificationBook'], operation: ['search'] } },
	properties,
);

/**
 * POST /vbook/search with `{ searchDetails: { vbookTypeId, nameQuery }, listMetadata: { page, pageSize } }`:
 * one output item per employer or school (id, name, city, state). Pages are read from 0 until the limit, an
 * empty page, or the last of `listMetadata.totalPages`. A read, even though it is a POST.
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runForEachItem.call(this, async (itemIndex) => {
		const chosen = this.getNodeParameter('entryType', itemIndex, EMPLOYERS) as string;
		const vbookTypeId = EARLIER_VALUES.get(chosen) ?? chosen;
		if (vbookTypeId !== EMPLOYERS && vbookTypeId !== SCHOOLS)
			throw invalidInput(
				this.getNode(),
				itemIndex,
				chosen === '' ? 'Entry Type is empty' : `Entry Type "${chosen}" is not a book of the API`,
				`Choose Employers (${EMPLOYERS}) or Schools (${SCHOOLS}).`,
			);
		const nameQuery = String(this.getNodeParameter('query', itemIndex, '') ?? '').trim();
		const searchDetails = nameQuery === '' ? { vbookTypeId } : { vbookTypeId, nameQuery };
		const limit = readLimit.call(this, itemIndex);
		const pageSize = limit === undefined ? PAGE_SIZE : Math.min(Math.max(limit, 1), PAGE_SIZE);
		return await collectPages(
			async (page) =>
				await apiRequest.call(this, 'POST', apiPath`/vbook/search`, {
					body: { searchDetails, listMetadata: { page, pageSize } },
					itemIndex,
				}),
			'results',
			limit,
		);
	});
}
