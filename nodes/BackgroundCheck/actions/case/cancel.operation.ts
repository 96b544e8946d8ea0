import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runCaseAction } from '../../helpers/caseAction';
import { caseIdLocator } from '../../helpers/fields';

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
	return await runCaseAction.call(this, {
		endpoint: 'POST /case/id/{caseId}/cancel',
		done: { canceled: true },
		checkWith: 'Case > Get',
		hints: { 422: 'The API cancels a case only before it has started.' },
	});
}
