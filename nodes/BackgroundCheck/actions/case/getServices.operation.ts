import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { listIn } from '../../helpers/answers';
import { runReadForEachItem } from '../../helpers/execute';
import { caseIdLocator, concurrencyOptions, returnAllAndLimit } from '../../helpers/fields';
import { invalidInput } from '../../helpers/inputChecks';
import { readCaseId, readLimit } from '../../helpers/parameters';
import { outputParameters, readOutput, shapeOutput } from '../../helpers/simplify';
import { applyLimit } from '../../../shared/transport/listResponses';
import { apiPath, apiRequest } from '../../../shared/transport';

/** The service types of GET /case/id/{caseId}/services/{serviceType}; `''`: every type (no type in the path). */
const SERVICE_TYPES = [
	{ name: 'All Types', value: '', description: 'Every service ordered for the case' },
	{ name: 'Identity Verification', value: 'idv', description: 'Identity verification services' },
	{
		name: 'Legal',
		value: 'legal',
		description: 'The authorizations collected from the candidate (e-signature, FCRA, disclosures)',
	},
	{ name: 'Payment', value: 'payment', description: 'Payment services' },
	{ name: 'Screenings', value: 'screenings', description: 'The background screenings' },
	{ name: 'Shipment', value: 'shipment', description: 'Shipments' },
];

const properties: INodeProperties[] = [
	caseIdLocator,
	{
		displayName: 'Service Type',
		name: 'serviceType',
		type: 'options',
		options: SERVICE_TYPES,
		default: '',
		description: 'Only the services of this type, or every service ordered for the case',
	},
	...returnAllAndLimit,
	...outputParameters('caseService'),
	concurrencyOptions,
];

export const description = updateDisplayOptions(
	{ show: { resource: ['case'], operation: ['getServices'] } },
	properties,
);

/**
 * GET /case/id/{caseId}/services (every service ordered for the case) or /services/{serviceType} (one type),
 * which answer `{ serviceGroupServices }`: one output item per service (serviceId, serviceName,
 * serviceTypeId, its group, caseId, candidateId, ...). The API answers the whole list; Limit is applied here.
 * With Output > Simplified (the default), only the fields of SIMPLIFIED_FIELDS.caseService.
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runReadForEachItem.call(this, async (itemIndex) => {
		const outputChoice = readOutput.call(this, itemIndex, 'caseService');
		const caseId = readCaseId.call(this, itemIndex);
		const serviceType = String(this.getNodeParameter('serviceType', itemIndex, '') ?? '').trim();
		if (!SERVICE_TYPES.some((type) => type.value === serviceType))
			throw invalidInput(
				this.getNode(),
				itemIndex,
				`Service Type "${serviceType}" is not a service type of the API`,
				'The service types are idv, legal, payment, screenings and shipment; leave it empty for every service.',
			);
		const limit = readLimit.call(this, itemIndex);
		const response =
			serviceType === ''
				? await apiRequest.call(this, 'GET', apiPath`/case/id/${caseId}/services`, { itemIndex })
				: await apiRequest.call(this, 'GET', apiPath`/case/id/${caseId}/services/${serviceType}`, {
						itemIndex,
					});
		const services = listIn(this.getNode(), response, 'serviceGroupServices', {
			endpoint: `GET /case/id/{caseId}/services${serviceType === '' ? '' : '/{serviceType}'}`,
			itemIndex,
		});
		return shapeOutput(outputChoice, 'caseService', applyLimit(services, limit));
	});
}
