import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runForEachItem } from '../../helpers/execute';
import { idField } from '../../helpers/fields';
import { readId } from '../../helpers/parameters';
import { apiPath, apiRequest } from '../../../shared/transport';

const properties: INodeProperties[] = [
	idField({
		displayName: 'Case Data ID',
		name: 'caseDataId',
		placeholder: 'e.g. 5b1e3c2a-...',
		description:
			'ID of the case data (one service inside a case) that holds the search: the ID of an item of Case > Get Data',
	}),
	idField({
		displayName: 'Search ID',
		name: 'searchId',
		placeholder: 'e.g. 9f0d1c7e-...',
		description:
			'ID of the one search record to cancel (an employment or education search), as found in the details of Case > Get Data',
	}),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['caseData'], operation: ['cancelSearch'] } },
	properties,
);

/**
 * POST /case/data/id/{caseDataId}/search/id/{searchId}/cancel, with no body: cancels one search record. The
 * API answers 200 or 204 with no body; never retried.
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runForEachItem.call(this, async (itemIndex) => {
		const caseDataId = readId.call(this, itemIndex, 'caseDataId', 'Case Data ID');
		const searchId = readId.call(this, itemIndex, 'searchId', 'Search ID');
		await apiRequest.call(
			this,
			'POST',
			apiPath`/case/data/id/${caseDataId}/search/id/${searchId}/cancel`,
			{ itemIndex },
		);
		return { caseDataId, searchId, success: true };
	});
}
