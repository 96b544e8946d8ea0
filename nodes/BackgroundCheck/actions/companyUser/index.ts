import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../../helpers/fields';
import * as getMany from './getMany.operation';

export const operations = { getMany };

export const description: INodeProperties[] = [
	operationSelector('companyUser', [
		{
			name: 'Get Many',
			value: 'getMany',
			description: 'List the users of the company, by group',
			action: 'Get many company users',
		},
	]),
	...getMany.description,
];
