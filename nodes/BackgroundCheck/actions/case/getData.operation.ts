import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { describeStatuses } from '../../helpers/caseData';
import { runForEachItem } from '../../helpers/execute';
import { caseIdLocator } from '../../helpers/fields';
import { recordsOf } from '../../helpers/lists';
import { readCaseId, readId } from '../../helpers/parameters';
import { apiPath, apiRequest } from '../../transport';

const properties: INodeProperties[] = [
	caseIdLocator,
	{
		displayName: 'Service Type',
		name: 'serviceTypeId',
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		description:
			'The service type whose case data is wanted. The list shows the types present in the chosen case (Identity service-type-idv, Payment service-type-payment, Shipment service-type-shipment, and Screening, whose legacy GUID the spec does not give).',
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: 'Select a service type...',
				typeOptions: { searchListMethod: 'searchServiceTypes', searchable: true },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: 'e.g. service-type-idv',
				validation: [
					{
						type: 'regex',
						properties: { regex: '[^\\s/\\\\?#]+', errorMessage: 'Enter the bare service type ID' },
					},
				],
			},
		],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['case'], operation: ['getData'] } }, properties);

/**
 * GET /case/id/{caseId}/data/{serviceTypeId}: one output item per case data, with statusName /
 * statusMeaning and pendingStatusName / pendingStatusAppliesTo added next to the API's IDs (spec 3.1, 3.2),
 * also on the per-record statuses of employment, education and county criminal details.
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runForEachItem.call(this, async (itemIndex) => {
		const caseId = readCaseId.call(this, itemIndex);
		const serviceTypeId = readId.call(this, itemIndex, 'serviceTypeId', 'Service Type ID');
		const response = await apiRequest.call(this, 'GET', apiPath`/case/id/${caseId}/data/${serviceTypeId}`, { itemIndex });
		return describeStatuses(recordsOf(response));
	});
}
