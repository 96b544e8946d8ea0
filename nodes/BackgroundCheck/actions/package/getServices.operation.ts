import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runReadForEachItem } from '../../helpers/execute';
import { idField, concurrencyOptions, returnAllAndLimit } from '../../helpers/fields';
import { fetchList } from '../../helpers/fetchList';
import { readId } from '../../helpers/parameters';
import { apiPath } from '../../../shared/transport';

const properties: INodeProperties[] = [
	idField({
		displayName: 'Package ID',
		name: 'packageId',
		placeholder: 'e.g. pkg-basic-criminal',
		description:
			'ID of the package, as your service operator set it up for your company (the same value you pass as Package ID in Case > Create)',
	}),
	...returnAllAndLimit,
	concurrencyOptions,
];

export const description = updateDisplayOptions(
	{ show: { resource: ['package'], operation: ['getServices'] } },
	properties,
);

/** GET /package/id/{packageId}/services: one output item per service of the package (serviceName, serviceId). */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runReadForEachItem.call(this, async (itemIndex) => {
		const packageId = readId.call(this, itemIndex, 'packageId', 'Package ID');
		return await fetchList.call(this, itemIndex, apiPath`/package/id/${packageId}/services`);
	});
}
