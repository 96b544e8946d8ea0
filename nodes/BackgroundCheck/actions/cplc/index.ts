import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../../helpers/fields';
import * as getDefinitions from './getDefinitions.operation';

export const operations = { getDefinitions };

export const description: INodeProperties[] = [
	operationSelector('cplc', [
		{
			name: 'Get Definitions',
			value: 'getDefinitions',
			description:
				'Get the definitions (name, category, input fields) of the professional licenses and certifications supplied to a case as testimony',
			action: 'Get license and certification definitions of a case',
		},
	]),
	...getDefinitions.description,
];
