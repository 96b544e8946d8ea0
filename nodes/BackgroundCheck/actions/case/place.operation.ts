import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { withStatusHints, writeDone } from '../../helpers/answers';
import { runForEachItem } from '../../helpers/execute';
import { caseIdLocator } from '../../helpers/fields';
import { readCaseId } from '../../helpers/parameters';
import { apiPath, apiRequest } from '../../../shared/transport';

const properties: INodeProperties[] = [caseIdLocator];

export const description = updateDisplayOptions(
	{ show: { resource: ['case'], operation: ['place'] } },
	properties,
);

/**
 * PUT /case/id/{caseId}/action/place, with no body: the API sets the case's status to Adjudicated and its
 * result to Placed, and resets its secondary status. It answers 200 with no body, or 422 when the case is not
 * ready to be placed. A write: sent once, one item after the other.
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runForEachItem.call(
		this,
		async (itemIndex) => {
			const caseId = readCaseId.call(this, itemIndex);
			const response = await withStatusHints(
				apiRequest.call(this, 'PUT', apiPath`/case/id/${caseId}/action/place`, { itemIndex }),
				{ 422: 'The case is not ready to be placed.' },
			);
			return writeDone(
				this.getNode(),
				response,
				{ caseId, placed: true },
				{ endpoint: 'PUT /case/id/{caseId}/action/place', itemIndex, checkWith: 'Case > Get' },
			);
		},
		{ write: true },
	);
}
