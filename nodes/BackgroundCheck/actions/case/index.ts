import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../../helpers/fields';
import * as addServices from './addServices.operation';
import * as create from './create.operation';
import * as get from './get.operation';
import * as getData from './getData.operation';
import * as getMany from './getMany.operation';

export const operations = { create, get, getMany, addServices, getData };

export const description: INodeProperties[] = [
	operationSelector(
		'case',
		[
			{
				name: 'Add Services',
				value: 'addServices',
				description:
					'Add services of the case’s package to a case, with the order data and settings they need',
				action: 'Add services to a case',
			},
			{
				name: 'Create',
				value: 'create',
				description:
					'Order a background check for a candidate with a package, by invitation or with the candidate’s data supplied. Not retried: on a timeout, check with Get Many before running again.',
				action: 'Create a case',
			},
			{
				name: 'Get',
				value: 'get',
				description:
					'Get the latest details of a case: statuses, result, candidate, package and timestamps',
				action: 'Get a case',
			},
			{
				name: 'Get Data',
				value: 'getData',
				description:
					'Get the results (case data) of a case for one service type, with status names and meanings added next to the status IDs',
				action: 'Get case data for a service type',
			},
			{
				name: 'Get Many',
				value: 'getMany',
				description:
					'List the cases of the credential’s company group: active ones, or all with filters',
				action: 'Get many cases',
			},
		],
		'create',
	),
	...create.description,
	...get.description,
	...getMany.description,
	...addServices.description,
	...getData.description,
];
