import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runCaseAction } from '../../helpers/caseAction';
import { caseIdLocator } from '../../helpers/fields';

const properties: INodeProperties[] = [caseIdLocator];

export const description = updateDisplayOptions(
	{ show: { resource: ['case'], operation: ['beginProcessing'] } },
	properties,
);

/**
 * PUT /case/id/{caseId}/action/beginprocessing, with no body: the case's screenings start. The API answers
 * 200 with no body, or 422 when the case is not ready (e.g. a required testimony such as the date of birth is
 * missing) or has begun processing already. A write: sent once, one item after the other.
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runCaseAction.call(this, {
		endpoint: 'PUT /case/id/{caseId}/action/beginprocessing',
		done: { processingBegun: true },
		checkWith: 'Case > Get',
		hints: {
			422: 'The case is not ready to begin processing (e.g. a required testimony such as the date of birth is missing), or it has begun processing already.',
		},
	});
}
