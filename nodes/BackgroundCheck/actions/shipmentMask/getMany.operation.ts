import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runReadForEachItem } from '../../helpers/execute';
import { concurrencyOptions, returnAllAndLimit } from '../../helpers/fields';
import { fetchList } from '../../helpers/fetchList';
import { apiPath } from '../../../shared/transport';

const properties: INodeProperties[] = [...returnAllAndLimit, concurrencyOptions];

export const description = updateDisplayOptions(
	{ show: { resource: ['shipmentMask'], operation: ['getMany'] } },
	properties,
);

/**
 * GET /shipment/mask/list, which answers `{ list }`: one output item per mask (name, sku, inStock); the sku
 * is the maskType of shipment order data.
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runReadForEachItem.call(
		this,
		async (itemIndex) =>
			await fetchList.call(this, itemIndex, apiPath`/shipment/mask/list`, { key: 'list' }),
	);
}
