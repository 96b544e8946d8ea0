import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../../helpers/fields';
import * as create from './create.operation';

export const operations = { create };

export const description: INodeProperties[] = [
	operationSelector('secureDocument', [
		{
			name: 'Upload',
			value: 'create',
			description:
				'Upload a file from the input item’s binary data as a secure document, such as the candidate’s signed authorization for Case > Create',
			action: 'Upload a secure document',
		},
	]),
	...create.description,
];
