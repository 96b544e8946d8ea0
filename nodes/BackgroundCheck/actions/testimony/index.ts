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
				'Supply a professional license or certification for a case: the definition ID and its field values',
			action: 'Create a testimony',
		},
		{
			name: 'Update',
			value: 'update',
			description: 'Change field values, staffing agency or documents of a testimony',
			action: 'Update a testimony',
		},
	]),
	...create.description,
	...update.description,
];
