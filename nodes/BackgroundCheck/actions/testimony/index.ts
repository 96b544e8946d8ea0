import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../../helpers/fields';
import * as create from './create.operation';
import * as update from './update.operation';

export const operations = { create, update };

export const description: INodeProperties[] = [
	operationSelector('testimony', [
		{
			name: 'Create',
			value: 'create',
			description:
				'Supply what the candidate reports for a case: a professional license, education, employment or an address',
			action: 'Create a testimony',
		},
		{
			name: 'Update',
			value: 'update',
			description: 'Replace a testimony of a case with a whole new version of it',
			action: 'Update a testimony',
		},
	]),
	...create.description,
	...update.description,
];
