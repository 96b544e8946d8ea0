import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { describeStatuses } from '../../helpers/statusNames';
import { runReadForEachItem } from '../../helpers/execute';
import { caseIdLocator, idLocator, concurrencyOptions } from '../../helpers/fields';
import { recordsOf } from '../../../shared/transport/listResponses';
import { readCaseId, readId } from '../../helpers/parameters';
import { apiPath, apiRequest } from '../../../shared/transport';

const properties: INodeProperties[] = [
	caseIdLocator,
	idLocator({
		displayName: 'Service Type',
		name: 'serviceTypeId',
		description:
			'The service type whose case data is wanted. The list shows the types present in the chosen case (Identity service-type-idv, Payment service-type-payment, Shipment service-type-shipment, and Screening, whose legacy GUID the spec does not give).',
		searchListMethod: 'searchServiceTypes',
		listPlaceholder: 'Select a service type...',
		idPlaceholder: 'e.g. service-type-idv',
	}),
	concurrencyOptions,
];

export const description = updateDisplayOptions(
	{ show: { resource: ['case'], operation: ['getData'] } },
	properties,
);

/**
 * GET /case/id/{caseId}/data/{serviceTypeId}: one output item per case data, with statusName /
 * statusMeaning and pendingStatusName / pendingStatusAppliesTo added next to the API's IDs (spec 3.1, 3.2),
 * also on the per-record statuses of employment, education and county criminal details.
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runReadForEachItem.call(this, async (itemIndex) => {
		const caseId = readCaseId.call(this, itemIndex);
		const serviceTypeId = readId.call(this, itemIndex, 'serviceTypeId', 'Service Type ID');
		const response = await apiRequest.call(
			this,
			'GET',
			apiPath`/case/id/${caseId}/data/${serviceTypeId}`,
			{ itemIndex },
		);
		return describeStatuses(recordsOf(response));
	});
}
