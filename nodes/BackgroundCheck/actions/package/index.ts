import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../../helpers/fields';
import * as getServices from './getServices.operation';

export const operations = { getServices };

export const description: INodeProperties[] = [
	operationSelector('package', [
		{
			name: 'Get Services',
			value: 'getServices',
			description: 'List the services (name, ID, type and group) a package orders',
			action: 'Get the services of a package',
		},
	]),
	...getServices.description,
];
