import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { withStatusHints, writeDone } from '../../helpers/answers';
import { runForEachItem } from '../../helpers/execute';
import { caseIdLocator } from '../../helpers/fields';
import { readCaseId } from '../../helpers/parameters';
import { apiPath, apiRequest } from '../../../shared/transport';

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
	return await runForEachItem.call(
		this,
		async (itemIndex) => {
			const caseId = readCaseId.call(this, itemIndex);
			const response = await withStatusHints(
				apiRequest.call(this, 'PUT', apiPath`/case/id/${caseId}/action/beginprocessing`, {
					itemIndex,
				}),
				{
					422: 'The case is not ready to begin processing (e.g. a required testimony such as the date of birth is missing), or it has begun processing already.',
				},
			);
			return writeDone(
				this.getNode(),
				response,
				{ caseId, processingBegun: true },
				{
					endpoint: 'PUT /case/id/{caseId}/action/beginprocessing',
					itemIndex,
					checkWith: 'Case > Get',
				},
			);
		},
		{ write: true },
	);
}
