import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { mergeBody } from '../../helpers/body';
import { describeStatuses } from '../../helpers/statusNames';
import { asRecord, runForEachItem } from '../../helpers/execute';
import { additionalBodyField, idField } from '../../helpers/fields';
import { readAdditionalBody, readId } from '../../helpers/parameters';
import { checkBody } from '../../helpers/inputChecks';
import { apiPath, apiRequest } from '../../../shared/transport';

const properties: INodeProperties[] = [
	idField({
		displayName: 'Case Data ID',
		name: 'caseDataId',
		placeholder: 'e.g. case-data-1b2c3d4e',
		description:
			'ID of the case data (one service inside a case) that holds the search. Found as caseDataId in Case > Get, or as ID in Case > Get Data.',
	}),
	idField({
		displayName: 'Search ID',
		name: 'searchId',
		placeholder: 'e.g. search-5f6a7b8c',
		description:
			'ID of the one search record to cancel: an employment or education record or a county criminal jurisdiction. Found as searchId in the details returned by Case > Get Data.',
	}),
	additionalBodyField('{ "reason": "Duplicate employer" }'),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['caseData'], operation: ['cancelSearch'] } },
	properties,
);

/** POST /case/data/id/{caseDataId}/search/id/{searchId}/cancel: cancels one search record; never retried. */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runForEachItem.call(this, async (itemIndex) => {
		const caseDataId = readId.call(this, itemIndex, 'caseDataId', 'Case Data ID');
		const searchId = readId.call(this, itemIndex, 'searchId', 'Search ID');
		const body = mergeBody({}, readAdditionalBody.call(this, itemIndex));
		checkBody(this.getNode(), body, itemIndex);
		const response = await apiRequest.call(
			this,
			'POST',
			apiPath`/case/data/id/${caseDataId}/search/id/${searchId}/cancel`,
			{ body, itemIndex },
		);
		return describeStatuses(asRecord(response, { caseDataId, searchId, success: true }));
	});
}
