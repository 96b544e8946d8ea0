import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runReadForEachItem } from '../../helpers/execute';
import { caseIdLocator, concurrencyOptions } from '../../helpers/fields';
import { recordsOf } from '../../../shared/transport/listResponses';
import { readCaseId } from '../../helpers/parameters';
import { apiPath, apiRequest } from '../../../shared/transport';

const properties: INodeProperties[] = [
	{
		...caseIdLocator,
		description:
			'The case whose professional license and certification definitions are wanted: those supplied to it as testimony. Pick it from the list or enter its ID.',
	},
	concurrencyOptions,
];

export const description = updateDisplayOptions(
	{ show: { resource: ['cplc'], operation: ['getDefinitions'] } },
	properties,
);

/**
 * GET /service/cplc/case/id/{caseId}: one output item per CPLC definition (spec 2.2), each with its input
 * fields (2.3) sorted by `ordinal`, ready to be joined with the case's testimony.
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runReadForEachItem.call(this, async (itemIndex) => {
		const caseId = readCaseId.call(this, itemIndex);
		const response = await apiRequest.call(this, 'GET', apiPath`/service/cplc/case/id/${caseId}`, {
			itemIndex,
		});
		return recordsOf(response, 'cplcDefinitionsList').map((definition) => ({
			...definition,
			fields: Array.isArray(definition.fields)
				? [...(definition.fields as Array<{ ordinal?: number }>)].sort(
						(a, b) => (a.ordinal ?? 0) - (b.ordinal ?? 0),
					)
				: definition.fields,
		}));
	});
}
