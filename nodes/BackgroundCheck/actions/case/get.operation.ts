import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { describeStatuses } from '../../helpers/statusNames';
import { runReadForEachItem } from '../../helpers/execute';
import { caseIdLocator, concurrencyOptions } from '../../helpers/fields';
import { itemLabel } from '../../helpers/inputChecks';
import { readCaseId } from '../../helpers/parameters';
import { outputParameters, readOutput, shapeOutput } from '../../helpers/simplify';
import { recordsOf } from '../../../shared/transport/listResponses';
import { apiPath, apiRequest } from '../../../shared/transport';

const properties: INodeProperties[] = [
	caseIdLocator,
	...outputParameters('case'),
	concurrencyOptions,
];

export const description = updateDisplayOptions(
	{ show: { resource: ['case'], operation: ['get'] } },
	properties,
);

/**
 * GET /case/id/{caseId}, which answers `{ cases: [case] }`: the case itself (statuses, candidate, package,
 * timestamps), with the names of its status IDs added; Output (helpers/simplify.ts): Simplified (the
 * default) keeps only the fields SIMPLIFIED_FIELDS.case lists, Raw all, Selected Fields those picked. Its services: Get Data, or Package > Get Services.
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runReadForEachItem.call(this, async (itemIndex) => {
		const outputChoice = readOutput.call(this, itemIndex, 'case');
		const caseId = readCaseId.call(this, itemIndex);
		const response = await apiRequest.call(this, 'GET', apiPath`/case/id/${caseId}`, {
			itemIndex,
		});
		const [found] = recordsOf(response, 'cases');
		if (found === undefined)
			throw new NodeOperationError(
				this.getNode(),
				`The API answered no case for ID "${caseId}" ${itemLabel(itemIndex)}`,
				{ itemIndex, description: 'Check the case ID; Case > Get Many lists the cases.' },
			);
		return shapeOutput(outputChoice, 'case', describeStatuses(found));
	});
}
