import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { withStatusHints, writeDone } from '../../helpers/answers';
import { runForEachItem } from '../../helpers/execute';
import { caseIdLocator } from '../../helpers/fields';
import { invalidInput, requireIdList } from '../../helpers/inputChecks';
import { readCaseId } from '../../helpers/parameters';
import { apiPath, apiRequest } from '../../../shared/transport';

const properties: INodeProperties[] = [
	caseIdLocator,
	{
		displayName: 'Service Names or IDs',
		name: 'serviceIds',
		type: 'multiOptions',
		typeOptions: {
			loadOptionsMethod: 'getOrderedServices',
			loadOptionsDependsOn: ['caseId.value'],
		},
		required: true,
		default: [],
		description:
			'The services of the case to cancel (the list shows the services ordered for the chosen case), sent as serviceIds. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['case'], operation: ['cancelServices'] } },
	properties,
);

/**
 * POST /case/id/{caseId}/services/cancel with `{ serviceIds }`: cancels those services of the case. The API
 * answers 200 with no body, or 422 with its reason ("Service cannot be canceled.", "SSN Trace is required
 * when County, State, or Federal Criminal Search are ordered."), shown as the error. A write: sent once.
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runForEachItem.call(
		this,
		async (itemIndex) => {
			const node = this.getNode();
			const caseId = readCaseId.call(this, itemIndex);
			const serviceIds = [
				...new Set(
					requireIdList(
						node,
						this.getNodeParameter('serviceIds', itemIndex, []),
						'Services',
						itemIndex,
					),
				),
			];
			if (serviceIds.length === 0)
				throw invalidInput(
					node,
					itemIndex,
					'Services is empty',
					'Choose at least one service of the case to cancel; to cancel the whole case, use Case > Cancel.',
				);
			const response = await withStatusHints(
				apiRequest.call(this, 'POST', apiPath`/case/id/${caseId}/services/cancel`, {
					body: { serviceIds },
					itemIndex,
				}),
				{
					422: 'Some services cannot be canceled, and SSN Trace cannot be canceled while a County, State or Federal Criminal Search is ordered.',
				},
			);
			return writeDone(
				node,
				response,
				{ caseId, canceled: true, serviceIds },
				{
					endpoint: 'POST /case/id/{caseId}/services/cancel',
					itemIndex,
					checkWith: 'Case > Get Data',
				},
			);
		},
		{ write: true },
	);
}
