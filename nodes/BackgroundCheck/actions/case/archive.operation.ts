import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { writeDone } from '../../helpers/answers';
import { runForEachItem } from '../../helpers/execute';
import { caseIdLocator } from '../../helpers/fields';
import { readCaseId } from '../../helpers/parameters';
import { apiPath, apiRequest } from '../../../shared/transport';

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
	return await runForEachItem.call(
		this,
		async (itemIndex) => {
			const caseId = readCaseId.call(this, itemIndex);
			const response = await apiRequest.call(this, 'POST', apiPath`/case/archive/${caseId}`, {
				itemIndex,
			});
			return writeDone(
				this.getNode(),
				response,
				{ caseId, archived: true },
				{ endpoint: 'POST /case/archive/{caseId}', itemIndex, checkWith: 'Case > Get' },
			);
		},
		{ write: true },
	);
}
