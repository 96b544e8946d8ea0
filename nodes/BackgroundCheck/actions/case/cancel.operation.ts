import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { withStatusHints, writeDone } from '../../helpers/answers';
import { runForEachItem } from '../../helpers/execute';
import { caseIdLocator } from '../../helpers/fields';
import { readCaseId } from '../../helpers/parameters';
import { apiPath, apiRequest } from '../../../shared/transport';

const properties: INodeProperties[] = [
	{
		...caseIdLocator,
		description:
			'The case to cancel, whole. The API cancels a case only before it has started; to stop some of its services, use Cancel Services.',
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['case'], operation: ['cancel'] } },
	properties,
);

/**
 * POST /case/id/{caseId}/cancel, with no body: cancels the whole case. The API answers 200 with no body, or
 * 422 with its reason ("Cannot cancel a case that has already started.", "Unable to cancel case."), shown as
 * the error. A write: sent once, one item after the other.
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runForEachItem.call(
		this,
		async (itemIndex) => {
			const caseId = readCaseId.call(this, itemIndex);
			const response = await withStatusHints(
				apiRequest.call(this, 'POST', apiPath`/case/id/${caseId}/cancel`, { itemIndex }),
				{ 422: 'The API cancels a case only before it has started.' },
			);
			return writeDone(
				this.getNode(),
				response,
				{ caseId, canceled: true },
				{ endpoint: 'POST /case/id/{caseId}/cancel', itemIndex, checkWith: 'Case > Get' },
			);
		},
		{ write: true },
	);
}
