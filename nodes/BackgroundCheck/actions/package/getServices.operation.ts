import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runReadForEachItem } from '../../helpers/execute';
import { concurrencyOptions, packageIdLocator, returnAllAndLimit } from '../../helpers/fields';
import { fetchList } from '../../helpers/fetchList';
import { readId } from '../../helpers/parameters';
import { outputParameters, readOutput, shapeOutput } from '../../helpers/simplify';
import { apiPath } from '../../../shared/transport';

const properties: INodeProperties[] = [
	{
		...packageIdLocator,
		description: 'The package whose services are wanted. Pick it from the list or enter its ID.',
	},
	...returnAllAndLimit,
	...outputParameters('packageService'),
	concurrencyOptions,
];

export const description = updateDisplayOptions(
	{ show: { resource: ['package'], operation: ['getServices'] } },
	properties,
);

/**
 * GET /package/id/{packageId}/services, which answers `{ serviceGroupServices }`: one output item per service
 * of the package (serviceId, serviceName, serviceTypeId, its group, ...); with Output > Simplified (the
 * default), only the fields of SIMPLIFIED_FIELDS.packageService.
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runReadForEachItem.call(this, async (itemIndex) => {
		const outputChoice = readOutput.call(this, itemIndex, 'packageService');
		const packageId = readId.call(this, itemIndex, 'packageId', 'Package ID');
		const services = await fetchList.call(
			this,
			itemIndex,
			apiPath`/package/id/${packageId}/services`,
			{ key: 'serviceGroupServices' },
		);
		return shapeOutput(outputChoice, 'packageService', services);
	});
}
