import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../../helpers/fields';
import * as search from './search.operation';

export const operations = { search };

export const description: INodeProperties[] = [
	operationSelector('verificationBook', [
		{
			name: 'Search',
			value: 'search',
			description: 'Search the verification book of employers and schools by name',
			action: 'Search the verification book',
		},
	]),
	...search.description,
];
