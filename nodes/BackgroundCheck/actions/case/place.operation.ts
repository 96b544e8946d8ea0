import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runCaseAction } from '../../helpers/caseAction';
import { caseIdLocator } from '../../helpers/fields';

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
	return await runCaseAction.call(this, {
		endpoint: 'PUT /case/id/{caseId}/action/place',
		done: { placed: true },
		checkWith: 'Case > Get',
		hints: { 422: 'The case is not ready to be placed.' },
	});
}
