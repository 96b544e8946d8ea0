import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runCaseAction } from '../../helpers/caseAction';
import { caseIdLocator } from '../../helpers/fields';

const properties: INodeProperties[] = [
	{
		...caseIdLocator,
		description:
			'The archived case. Archived cases are not in the list of active cases: pick it by ID, or map it from Case > Get Many (All Cases).',
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['case'], operation: ['unarchive'] } },
	properties,
);

/**
 * POST /case/unarchive/{caseId}, with no body: reverses Archive. The API answers 200 with no body, or 422
 * ("Could not unarchive case."). A write: sent once, one item after the other.
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runCaseAction.call(this, {
		endpoint: 'POST /case/unarchive/{caseId}',
		done: { unarchived: true },
		checkWith: 'Case > Get',
	});
}
