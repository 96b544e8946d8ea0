import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { mergeBody, withoutEmptyValues } from '../../helpers/body';
import { describeStatuses } from '../../helpers/statusNames';
import { asRecord, runWriteForEachItem } from '../../helpers/execute';
import { additionalBodyField, concurrencyOptions, serviceListFields } from '../../helpers/fields';
import { buildOrderData, orderDataProperty } from '../../helpers/orderData';
import { readAdditionalBody } from '../../helpers/parameters';
import { readServiceIds } from '../../helpers/services';
import { checkBody, invalidInput, requireId } from '../../helpers/inputChecks';
import { NAME_RULE_TEXT, withNamesInNfc } from '../../../shared/bodyRules';
import { apiPath, apiRequest } from '../../../shared/transport';

const NAME_HINT = `Allowed characters: ${NAME_RULE_TEXT} (spec section 7)`;

const SERVICES = { parameter: 'services', label: 'Services' };
const CUSTOM_SERVICES = { parameter: 'customServiceIds', label: 'Custom Service IDs' };
const EXCLUDED = { parameter: 'excludeServices', label: 'Exclude Services' };
const CUSTOM_EXCLUDED = {
	parameter: 'customExcludeServiceIds',
	label: 'Custom Excluded Service IDs',
};

const CONTACT_TYPE_OTHER = '__other';

const properties: INodeProperties[] = [
	{
		displayName: 'Candidate First Name',
		name: 'candidateFirstName',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. Maria',
		description: `Sent as candidate.firstName (key names of candidate are the sandbox's; the spec does not show the create body). ${NAME_HINT}.`,
	},
	{
		displayName: 'Candidate Last Name',
		name: 'candidateLastName',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. Garcia',
		description: `Sent as candidate.lastName. ${NAME_HINT}.`,
	},
	{
		displayName: 'Candidate Email',
		name: 'candidateEmail',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. name@email.com',
		description:
			'Where the candidate gets the invitation to supply their details and authorize the check. Sent as candidate.email. The API answers 409 with the existing case when this candidate already has a case in the group.',
	},
	{
		displayName: 'Package ID',
		name: 'packageId',
		type: 'string',
		default: '',
		placeholder: 'e.g. pkg-basic-criminal',
		description:
			'Package to order, as your provider set it up for your company (Package > Get Services shows what a package contains). Sent as packageId (key name from the sandbox). Give a package, services, or both.',
	},
	...serviceListFields({
		name: SERVICES.parameter,
		displayName: 'Service Names or IDs',
		description:
			'Services to order in addition to the package, sent as services[].id (shape from the sandbox).',
		customName: CUSTOM_SERVICES.parameter,
		customDisplayName: CUSTOM_SERVICES.label,
	}),
	...serviceListFields({
		name: EXCLUDED.parameter,
		displayName: 'Exclude Service Names or IDs',
		description:
			'Services of the package not to perform, sent as excludeServices (spec 4.3: an array of service IDs).',
		customName: CUSTOM_EXCLUDED.parameter,
		customDisplayName: CUSTOM_EXCLUDED.label,
	}),
	{
		displayName: 'Candidate Fields',
		name: 'candidateFields',
		type: 'collection',
		placeholder: 'Add field',
		default: {},
		options: [
			{
				displayName: 'Middle Name',
				name: 'middleName',
				type: 'string',
				default: '',
				description: `Sent as candidate.middleName. ${NAME_HINT}.`,
			},
		],
	},
	{
		displayName: 'Aliases',
		name: 'aliases',
		type: 'fixedCollection',
		placeholder: 'Add alias',
		typeOptions: { multipleValues: true },
		default: {},
		description: `Other names the candidate has used (maiden name, former names), searched as well. Sent as aliases[] with firstName, middleName, lastName (keys from the sandbox). ${NAME_HINT}.`,
		options: [
			{
				displayName: 'Alias',
				name: 'alias',
				values: [
					{ displayName: 'First Name', name: 'firstName', type: 'string', default: '' },
					{ displayName: 'Middle Name', name: 'middleName', type: 'string', default: '' },
					{ displayName: 'Last Name', name: 'lastName', type: 'string', default: '' },
				],
			},
		],
	},
	{
		displayName: 'Order Contacts',
		name: 'contacts',
		type: 'fixedCollection',
		placeholder: 'Add contact',
		typeOptions: { multipleValues: true },
		default: {},
		description:
			'People to involve in the order, sent as orderConfig.contacts (spec 4.3; contact types include authorization). The keys of a contact besides type are chosen by this node (name, email, phone); the spec does not show them.',
		options: [
			{
				displayName: 'Contact',
				name: 'contact',
				values: [
					{
						displayName: 'Contact Type',
						name: 'type',
						type: 'options',
						options: [
							{
								name: 'Authorization',
								value: 'authorization',
								description: 'The contact for authorization (spec, added 2026-07-07)',
							},
							{
								name: 'Other',
								value: CONTACT_TYPE_OTHER,
								description: 'Another contact type your provider documents',
							},
						],
						default: 'authorization',
						description: 'Contact type, sent as type',
					},
					{
						displayName: 'Custom Contact Type',
						name: 'customType',
						type: 'string',
						default: '',
						placeholder: 'e.g. billing',
						displayOptions: { show: { type: [CONTACT_TYPE_OTHER] } },
					},
					{
						displayName: 'Email',
						name: 'email',
						type: 'string',
						default: '',
						placeholder: 'e.g. name@email.com',
					},
					{ displayName: 'Name', name: 'name', type: 'string', default: '' },
					{ displayName: 'Phone', name: 'phone', type: 'string', default: '' },
				],
			},
		],
	},
	orderDataProperty,
	{
		displayName: 'Tracking',
		name: 'tracking',
		type: 'collection',
		placeholder: 'Add tracking field',
		default: {},
		options: [
			{
				displayName: 'API Tracking Code',
				name: 'apiTrackingCode',
				type: 'string',
				default: '',
				description:
					'Your own identifier for the case (e.g. a requisition ID), returned as apiTrackingCode in webhook messages (spec 6.2)',
			},
			{
				displayName: 'API Tracking User',
				name: 'apiTrackingUser',
				type: 'string',
				default: '',
				description:
					'Your own user identifier for the case, returned as apiTrackingUser in webhook messages (spec 6.2)',
			},
		],
	},
	additionalBodyField('{ "candidate": { "phone": "555-0100" } }'),
	concurrencyOptions,
];

export const description = updateDisplayOptions(
	{ show: { resource: ['case'], operation: ['create'] } },
	properties,
);

function requireText(
	this: IExecuteFunctions,
	itemIndex: number,
	parameter: string,
	label: string,
): string {
	const value = String(this.getNodeParameter(parameter, itemIndex, '') ?? '').trim();
	if (value === '') throw invalidInput(this.getNode(), itemIndex, `${label} is empty`);
	return value;
}

function buildContacts(this: IExecuteFunctions, itemIndex: number): IDataObject[] {
	const contacts = this.getNodeParameter('contacts.contact', itemIndex, []) as IDataObject[];
	return contacts.map((contact, position) => {
		const type =
			contact.type === CONTACT_TYPE_OTHER
				? requireId(
						this.getNode(),
						contact.customType,
						`Order Contacts ${position + 1}: Custom Contact Type`,
						itemIndex,
					)
				: contact.type;
		return withoutEmptyValues({
			type,
			name: contact.name,
			email: contact.email,
			phone: contact.phone,
		});
	});
}

function buildCaseBody(this: IExecuteFunctions, itemIndex: number): IDataObject {
	const node = this.getNode();
	const candidateFields = this.getNodeParameter('candidateFields', itemIndex, {}) as IDataObject;
	const aliases = (this.getNodeParameter('aliases.alias', itemIndex, []) as IDataObject[])
		.map((alias) => withoutEmptyValues(alias))
		.filter((alias) => Object.keys(alias).length > 0);
	const packageId = String(this.getNodeParameter('packageId', itemIndex, '')).trim();
	const typed = withoutEmptyValues({
		candidate: {
			firstName: requireText.call(this, itemIndex, 'candidateFirstName', 'Candidate First Name'),
			middleName: candidateFields.middleName,
			lastName: requireText.call(this, itemIndex, 'candidateLastName', 'Candidate Last Name'),
			email: requireText.call(this, itemIndex, 'candidateEmail', 'Candidate Email'),
		},
		aliases,
		packageId: packageId ? requireId(node, packageId, 'Package ID', itemIndex) : undefined,
		services: readServiceIds.call(this, itemIndex, SERVICES, CUSTOM_SERVICES).map((id) => ({ id })),
		excludeServices: readServiceIds.call(this, itemIndex, EXCLUDED, CUSTOM_EXCLUDED),
		orderConfig: { contacts: buildContacts.call(this, itemIndex) },
		orderData: buildOrderData.call(this, itemIndex),
		...(this.getNodeParameter('tracking', itemIndex, {}) as IDataObject),
	});
	const body = withNamesInNfc(mergeBody(typed, readAdditionalBody.call(this, itemIndex)));
	checkBody(node, body, itemIndex, { names: true });
	return body;
}

/**
 * POST /case/create, several candidates at a time (Concurrent Requests). Never sent twice: the API has no
 * idempotency key, so after a timeout or a 5xx the error says the case may or may not exist (and a 409 names
 * the candidate's existing case).
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runWriteForEachItem.call(this, async (itemIndex) => {
		const body = buildCaseBody.call(this, itemIndex);
		const response = await apiRequest.call(this, 'POST', apiPath`/case/create`, {
			body,
			itemIndex,
		});
		return describeStatuses(asRecord(response, { success: true }));
	});
}
