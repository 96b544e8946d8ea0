import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { describeStatuses } from '../../helpers/statusNames';
import { asRecord, runReadForEachItem } from '../../helpers/execute';
import { caseIdLocator, concurrencyOptions } from '../../helpers/fields';
import { readCaseId } from '../../helpers/parameters';
import { apiPath, apiRequest } from '../../../shared/transport';

const properties: INodeProperties[] = [caseIdLocator, concurrencyOptions];

export const description = updateDisplayOptions(
	{ show: { resource: ['case'], operation: ['get'] } },
	properties,
);

/** GET /case/id/{caseId}: the latest details of one case, with status names added next to status IDs. */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runReadForEachItem.call(this, async (itemIndex) => {
		const caseId = readCaseId.call(this, itemIndex);
		const response = await apiRequest.call(this, 'GET', apiPath`/case/id/${caseId}`, {
			itemIndex,
		});
		return describeStatuses(asRecord(response, { id: caseId }));
	});
}
