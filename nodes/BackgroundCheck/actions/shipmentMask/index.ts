import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../../helpers/fields';
import * as getMany from './getMany.operation';

export const operations = { getMany };

export const description: INodeProperties[] = [
	operationSelector('shipmentMask', [
		{
			name: 'Get Many',
			value: 'getMany',
			description:
				'List the masks that can be shipped (name, SKU, in stock); the SKU goes into shipment order data',
			action: 'Get many shipment masks',
		},
	]),
	...getMany.description,
];
