import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../../helpers/fields';
import * as startPreAdverse from './startPreAdverse.operation';

export const operations = { startPreAdverse };

export const description: INodeProperties[] = [
	operationSelector('adverseAction', [
		{
			name: 'Start Pre-Adverse Action',
			value: 'startPreAdverse',
			description:
				'Begin the adverse action process for a completed case: the case goes into Pre-Adverse Action and the candidate is emailed a pre-adverse action notice that shows the reason and the screenings given. Refused while the case is not complete. Not retried.',
			action: 'Start a pre-adverse action on a case',
		},
	]),
	...startPreAdverse.description,
];
