import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { withoutEmptyValues } from '../../helpers/body';
import { runWriteForEachItem } from '../../helpers/execute';
import { CASE_SERVICES, caseIdLocator, concurrencyOptions } from '../../helpers/fields';
import {
	buildOrderConfig,
	buildOrderData,
	orderConfigProperty,
	orderDataProperty,
} from '../../helpers/orderData';
import { readCaseId } from '../../helpers/parameters';
import { checkBody, invalidInput, requireIdList } from '../../helpers/inputChecks';
import { apiPath, apiRequest } from '../../../shared/transport';

const properties: INodeProperties[] = [
	caseIdLocator,
	{
		displayName: 'Service Names or IDs',
		name: 'services',
		type: 'multiOptions',
		typeOptions: {
			loadOptionsMethod: CASE_SERVICES.method,
			loadOptionsDependsOn: [CASE_SERVICES.dependsOn],
		},
		default: [],
		description:
			'Services to add, sent by their IDs as services; they must be services of the case’s package. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
	},
	orderDataProperty(
		CASE_SERVICES,
		'Data the added services need, sent as orderData (e.g. employment or education records for a verification).',
	),
	{
		...orderConfigProperty,
		description:
			'New settings for how screenings are run, sent as orderConfig. The API keeps a setting that already applied to a dispatched screening.',
	},
	concurrencyOptions,
];

export const description = updateDisplayOptions(
	{ show: { resource: ['case'], operation: ['addServices'] } },
	properties,
);

/**
 * POST /case/id/{caseId}/add/services with `{ services: [{ id }], orderData?, orderConfig? }` (services or
 * order data, at least one). The API answers 200 with no body; the output item says what was added. A write:
 * sent once, several items at a time.
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runWriteForEachItem.call(this, async (itemIndex) => {
		const node = this.getNode();
		const caseId = readCaseId.call(this, itemIndex);
		const serviceIds = [
			...new Set(
				requireIdList(
					node,
					this.getNodeParameter('services', itemIndex, []),
					'Services',
					itemIndex,
				),
			),
		];
		const orderData = buildOrderData.call(this, itemIndex);
		if (serviceIds.length === 0 && orderData.length === 0) {
			throw invalidInput(
				node,
				itemIndex,
				'Services and Order Data are empty',
				'Choose at least one service to add, or add order data for the case’s services.',
			);
		}
		const body = withoutEmptyValues({
			services: serviceIds.map((id) => ({ id })),
			orderData,
			orderConfig: buildOrderConfig.call(this, itemIndex),
		});
		checkBody(node, body, itemIndex);
		await apiRequest.call(this, 'POST', apiPath`/case/id/${caseId}/add/services`, {
			body,
			itemIndex,
		});
		return { caseId, success: true, serviceIds };
	});
}
