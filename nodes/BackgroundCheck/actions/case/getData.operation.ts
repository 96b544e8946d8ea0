import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { describeStatuses } from '../../helpers/statusNames';
import { runReadForEachItem } from '../../helpers/execute';
import { caseIdLocator, idLocator, concurrencyOptions } from '../../helpers/fields';
import { invalidInput } from '../../helpers/inputChecks';
import { readCaseId, readId } from '../../helpers/parameters';
import { outputParameters, readOutput, shapeOutput } from '../../helpers/simplify';
import { SERVICE_TYPES } from '../../../shared/catalog';
import { recordsOf } from '../../../shared/transport/listResponses';
import { apiPath, apiRequest } from '../../../shared/transport';

const TYPE_LIST = SERVICE_TYPES.map((type) => `${type.name} ${type.id}`).join(', ');

const properties: INodeProperties[] = [
	caseIdLocator,
	idLocator({
		displayName: 'Service Type',
		name: 'serviceTypeId',
		description:
			'The service type whose case data is wanted: Screening, Legal, Payment, Identity or Shipment. With a case chosen, the list shows the types of its services.',
		searchListMethod: 'searchServiceTypes',
		listPlaceholder: 'Select a service type...',
		idPlaceholder: 'e.g. service-type-idv',
	}),
	...outputParameters('caseData'),
	concurrencyOptions,
];

export const description = updateDisplayOptions(
	{ show: { resource: ['case'], operation: ['getData'] } },
	properties,
);

/**
 * GET /case/id/{caseId}/data/{serviceTypeId}, which answers `{ data: [case data] }`: one output item per case
 * data (one service of the case), with statusName / statusMeaning and pendingStatusName /
 * pendingStatusAppliesTo added next to the API's IDs (spec 3.1, 3.2), in the details too. With Output >
 * Simplified (the default), only the fields of SIMPLIFIED_FIELDS.caseData (the details left out).
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runReadForEachItem.call(this, async (itemIndex) => {
		const outputChoice = readOutput.call(this, itemIndex, 'caseData');
		const caseId = readCaseId.call(this, itemIndex);
		const serviceTypeId = readId.call(this, itemIndex, 'serviceTypeId', 'Service Type ID');
		if (!SERVICE_TYPES.some((type) => type.id === serviceTypeId))
			throw invalidInput(
				this.getNode(),
				itemIndex,
				`Service Type ID "${serviceTypeId}" is not a service type of the API`,
				`The service types are: ${TYPE_LIST}.`,
			);
		const response = await apiRequest.call(
			this,
			'GET',
			apiPath`/case/id/${caseId}/data/${serviceTypeId}`,
			{ itemIndex },
		);
		return shapeOutput(outputChoice, 'caseData', describeStatuses(recordsOf(response, 'data')));
	});
}
