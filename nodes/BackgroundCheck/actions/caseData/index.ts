import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../../helpers/fields';
import * as cancelSearch from './cancelSearch.operation';

export const operations = { cancelSearch };

export const description: INodeProperties[] = [
	operationSelector('caseData', [
		{
			name: 'Cancel Search',
			value: 'cancelSearch',
			description:
				'Cancel one search record (an employment or education record, or a county jurisdiction) of a service in a case',
			action: 'Cancel a case data search',
		},
	]),
	...cancelSearch.description,
];
