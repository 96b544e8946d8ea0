import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../../helpers/fields';
import * as create from './create.operation';

export const operations = { create };

export const description: INodeProperties[] = [
	operationSelector('secureDocument', [
		{
			name: 'Create',
			value: 'create',
			description:
				'Upload a file from the input item’s binary data as a secure document; its ID can then be given as secureDocumentIds in order data or testimony',
			action: 'Create a secure document',
		},
	]),
	...create.description,
];
