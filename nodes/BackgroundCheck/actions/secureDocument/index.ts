import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../../helpers/fields';
import * as create from './create.operation';
import * as download from './download.operation';
import * as getMany from './getMany.operation';

export const operations = { create, download, getMany };

export const description: INodeProperties[] = [
	operationSelector(
		'secureDocument',
		[
			{
				name: 'Download',
				value: 'download',
				description:
					'Download a secure document of a case (such as the candidate’s identification) as a file',
				action: 'Download a secure document',
			},
			{
				name: 'Get Many',
				value: 'getMany',
				description: 'List the secure documents of a case: type, title, file name and format',
				action: 'Get many secure documents',
			},
			{
				name: 'Upload',
				value: 'create',
				description:
					'Upload a file from the input item’s binary data as a secure document, such as the candidate’s signed authorization for Case > Create',
				action: 'Upload a secure document',
			},
		],
		'create',
	),
	...create.description,
	...download.description,
	...getMany.description,
];
