import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../../helpers/fields';
import * as addServices from './addServices.operation';
import * as archive from './archive.operation';
import * as beginProcessing from './beginProcessing.operation';
import * as cancel from './cancel.operation';
import * as cancelServices from './cancelServices.operation';
import * as create from './create.operation';
import * as get from './get.operation';
import * as getCandidateInfo from './getCandidateInfo.operation';
import * as getData from './getData.operation';
import * as getMany from './getMany.operation';
import * as getOrderConfiguration from './getOrderConfiguration.operation';
import * as getServices from './getServices.operation';
import * as place from './place.operation';
import * as unarchive from './unarchive.operation';
import * as updateCandidateInfo from './updateCandidateInfo.operation';

export const operations = {
	create,
	get,
	getMany,
	addServices,
	getData,
	archive,
	beginProcessing,
	cancel,
	cancelServices,
	getCandidateInfo,
	getOrderConfiguration,
	getServices,
	place,
	unarchive,
	updateCandidateInfo,
};

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
				name: 'Archive',
				value: 'archive',
				description:
					'Archive a case so that it no longer appears in the dashboard nor among the active cases (Get Many). Unarchive reverses it.',
				action: 'Archive a case',
			},
			{
				name: 'Begin Processing',
				value: 'beginProcessing',
				description:
					'Start running the screenings of a case whose candidate data is complete. Not needed when the candidate onboards by invitation or the case was created with customer-provided data: those start on their own. From then on the candidate’s personal data is locked. Refused when the case is not ready or has started already.',
				action: 'Begin processing a case',
			},
			{
				name: 'Cancel',
				value: 'cancel',
				description:
					'Cancel a whole case. The API cancels a case only before it has started and refuses afterwards (then use Cancel Services for single services). Not retried.',
				action: 'Cancel a case',
			},
			{
				name: 'Cancel Services',
				value: 'cancelServices',
				description:
					'Cancel some services (screenings) of a case; the rest of the case goes on. Some services cannot be canceled, and SSN Trace not while a criminal search is ordered.',
				action: 'Cancel services of a case',
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
				name: 'Get Candidate Info',
				value: 'getCandidateInfo',
				description:
					'Get the candidate of a case: ID, email, names, phone, date of birth, the last 4 digits of the government ID, and whether their personal data is locked. Fails until a candidate is linked (an invited candidate who has not begun onboarding).',
				action: 'Get the candidate of a case',
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
			{
				name: 'Get Order Configuration',
				value: 'getOrderConfiguration',
				description:
					'Get how the screenings of a case are run (its settings per service, drug and alias policies) and its points of contact',
				action: 'Get the order configuration of a case',
			},
			{
				name: 'Get Services',
				value: 'getServices',
				description:
					'List the services ordered for a case, of every type or of one (screenings, legal, identity verification, payment, shipment)',
				action: 'Get the services of a case',
			},
			{
				name: 'Place',
				value: 'place',
				description:
					'Mark a case as Placed: its status becomes Adjudicated, its result Placed, and its secondary status is cleared. Refused when the case is not ready to be placed.',
				action: 'Place a case',
			},
			{
				name: 'Unarchive',
				value: 'unarchive',
				description: 'Bring an archived case back into the dashboard and the active cases',
				action: 'Unarchive a case',
			},
			{
				name: 'Update Candidate Info',
				value: 'updateCandidateInfo',
				description:
					'Change the candidate’s email, names, date of birth, phone or government ID. Once their first case began processing, only the phone (and a government ID not set yet) can change; other fields are ignored.',
				action: 'Update the candidate of a case',
			},
		],
		'create',
	),
	...create.description,
	...get.description,
	...getMany.description,
	...addServices.description,
	...getData.description,
	...archive.description,
	...beginProcessing.description,
	...cancel.description,
	...cancelServices.description,
	...getCandidateInfo.description,
	...getOrderConfiguration.description,
	...getServices.description,
	...place.description,
	...unarchive.description,
	...updateCandidateInfo.description,
];
