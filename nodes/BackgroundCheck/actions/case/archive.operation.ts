import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runCaseAction } from '../../helpers/caseAction';
import { caseIdLocator } from '../../helpers/fields';

const properties: INodeProperties[] = [caseIdLocator];

export const description = updateDisplayOptions(
	{ show: { resource: ['case'], operation: ['archive'] } },
	properties,
);

/**
 * POST /case/archive/{caseId}, with no body. The API answers `text/plain` "success" (n8n's request helper
 * hands it over as that string: its JSON parse fails quietly) and 404 "Invalid case" for an unknown case.
 * A write: sent once, one item after the other.
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runCaseAction.call(this, {
		endpoint: 'POST /case/archive/{caseId}',
		done: { archived: true },
		checkWith: 'Case > Get',
	});
}
