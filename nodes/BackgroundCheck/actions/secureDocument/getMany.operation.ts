import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runReadForEachItem } from '../../helpers/execute';
import { caseIdLocator, concurrencyField, returnAllAndLimit } from '../../helpers/fields';
import { requireIdList } from '../../helpers/inputChecks';
import { readCaseId, readLimit } from '../../helpers/parameters';
import { apiPath, apiRequest } from '../../../shared/transport';
import { applyLimit, recordsOf } from '../../../shared/transport/listResponses';

const properties: INodeProperties[] = [
	caseIdLocator,
	...returnAllAndLimit,
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				displayName: 'Document Type Names or IDs',
				name: 'documentTypeIds',
				type: 'multiOptions',
				typeOptions: { loadOptionsMethod: 'getDocumentTypes' },
				default: [],
				description:
					'Only documents of these types, such as the candidate’s identification. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			},
		],
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [concurrencyField],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['secureDocument'], operation: ['getMany'] } },
	properties,
);

/**
 * GET /document/secure/list/case/id/{caseId}, which answers a bare list: one output item per document of the
 * case (id, documentTypeId, title, fileName, fileFormat, ...). The files: Secure Document > Download.
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runReadForEachItem.call(this, async (itemIndex) => {
		const caseId = readCaseId.call(this, itemIndex);
		const types = requireIdList(
			this.getNode(),
			this.getNodeParameter('filters.documentTypeIds', itemIndex, []),
			'Document Type',
			itemIndex,
		);
		const limit = readLimit.call(this, itemIndex);
		const response = await apiRequest.call(
			this,
			'GET',
			apiPath`/document/secure/list/case/id/${caseId}`,
			{ itemIndex },
		);
		const documents = recordsOf(response).filter(
			(document) => types.length === 0 || types.includes(String(document.documentTypeId)),
		);
		return applyLimit(documents, limit).map((document) => ({ ...document, caseId }));
	});
}
