import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../../helpers/fields';
import * as get from './get.operation';
import * as refresh from './refresh.operation';
import * as resend from './resend.operation';

export const operations = { get, refresh, resend };

export const description: INodeProperties[] = [
	operationSelector(
		'invitation',
		[
			{
				name: 'Get',
				value: 'get',
				description:
					'Get the invitation of a case: the email it went to, the candidate’s names, its status and when it expires or was completed',
				action: 'Get the invitation of a case',
			},
			{
				name: 'Refresh',
				value: 'refresh',
				description:
					'Give the candidate 14 days again to complete onboarding: extends the expiry of the existing invitation (its link stays valid). Refused once the candidate began or finished onboarding; not for cases created with customer-provided data.',
				action: 'Refresh the invitation of a case',
			},
			{
				name: 'Resend',
				value: 'resend',
				description:
					'Email the candidate a new invitation, to a new address if given: the API creates a new invitation with a new ID, and the link of earlier emails stops working',
				action: 'Resend the invitation of a case',
			},
		],
		'get',
	),
	...get.description,
	...refresh.description,
	...resend.description,
];
