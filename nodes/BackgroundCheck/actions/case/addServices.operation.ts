import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { mergeBody } from '../../helpers/body';
import { describeStatuses } from '../../helpers/statusNames';
import { asRecord, runWriteForEachItem } from '../../helpers/execute';
import {
	additionalBodyField,
	caseIdLocator,
	concurrencyOptions,
	serviceListFields,
} from '../../helpers/fields';
import { readAdditionalBody, readCaseId } from '../../helpers/parameters';
import { readServiceIds } from '../../helpers/services';
import { checkBody, invalidInput } from '../../helpers/inputChecks';
import { apiPath, apiRequest } from '../../../shared/transport';

const SERVICES = { parameter: 'services', label: 'Services' };
const CUSTOM_SERVICES = { parameter: 'customServiceIds', label: 'Custom Service IDs' };

const properties: INodeProperties[] = [
	caseIdLocator,
	...serviceListFields({
		name: SERVICES.parameter,
		displayName: 'Service Names or IDs',
		description: 'Services to add to the case; each is sent as services[].id.',
		customName: CUSTOM_SERVICES.parameter,
		customDisplayName: CUSTOM_SERVICES.label,
	}),
	additionalBodyField(
		'{ "services": [{ "id": "service-bankruptcy" }] } to replace the list, or other keys your provider documents',
	),
	concurrencyOptions,
];

export const description = updateDisplayOptions(
	{ show: { resource: ['case'], operation: ['addServices'] } },
	properties,
);

/** POST /case/id/{caseId}/add/services with `{ services: [{ id }] }`; a write: sent once, several items at a time. */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runWriteForEachItem.call(this, async (itemIndex) => {
		const caseId = readCaseId.call(this, itemIndex);
		const serviceIds = readServiceIds.call(this, itemIndex, SERVICES, CUSTOM_SERVICES);
		const additional = readAdditionalBody.call(this, itemIndex);
		if (serviceIds.length === 0 && additional.services === undefined) {
			throw invalidInput(
				this.getNode(),
				itemIndex,
				'Services is empty',
				'Choose at least one service, or enter its ID under Custom Service IDs.',
			);
		}
		const body = mergeBody({ services: serviceIds.map((id) => ({ id })) }, additional);
		checkBody(this.getNode(), body, itemIndex);
		const response = await apiRequest.call(this, 'POST', apiPath`/case/id/${caseId}/add/services`, {
			body,
			itemIndex,
		});
		return describeStatuses(
			asRecord(response, { caseId, addedServiceIds: serviceIds, success: true }),
		);
	});
}
