import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { runReadForEachItem } from '../../helpers/execute';
import { caseIdLocator, concurrencyOptions } from '../../helpers/fields';
import { itemLabel } from '../../helpers/inputChecks';
import { readCaseId } from '../../helpers/parameters';
import { isPlainObject } from '../../../shared/values';
import { apiPath, apiRequest } from '../../../shared/transport';

const properties: INodeProperties[] = [caseIdLocator, concurrencyOptions];

export const description = updateDisplayOptions(
	{ show: { resource: ['case'], operation: ['getOrderConfiguration'] } },
	properties,
);

/**
 * GET /config/case/id/{caseId}, which answers the case's configuration: `contacts`, `serviceConfigs` (per
 * service of the case's package, ordered or not), `diluteDrugPolicy`, `aliasNameConfiguration`, ... The output
 * item is that object with the case ID added (the answer does not name the case).
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runReadForEachItem.call(this, async (itemIndex) => {
		const caseId = readCaseId.call(this, itemIndex);
		const response = await apiRequest.call(this, 'GET', apiPath`/config/case/id/${caseId}`, {
			itemIndex,
		});
		if (!isPlainObject(response))
			throw new NodeOperationError(
				this.getNode(),
				`The API answered GET /config/case/id/{caseId} without a configuration ${itemLabel(itemIndex)}`,
				{
					itemIndex,
					description: `The reference defines the answer as an object (contacts, serviceConfigs, ...); it answered ${response === '' || response === undefined ? 'no body' : `a ${Array.isArray(response) ? 'list' : typeof response}`}.`,
				},
			);
		return { caseId, ...response };
	});
}
