import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { withoutEmptyValues } from '../../helpers/body';
import { asRecord, runWriteForEachItem } from '../../helpers/execute';
import { concurrencyField, PACKAGE_SERVICES, packageIdLocator } from '../../helpers/fields';
import {
	aliasesProperty,
	buildAliases,
	buildContacts,
	buildOrderConfig,
	buildOrderData,
	contactsProperty,
	isEmail,
	orderConfigProperty,
	orderDataProperty,
} from '../../helpers/orderData';
import { readId } from '../../helpers/parameters';
import { checkBody, invalidInput, requireId, requireIdList } from '../../helpers/inputChecks';
import { NAME_RULE_TEXT, withNamesInNfc } from '../../../shared/bodyRules';
import { apiPath, apiRequest, type ApiRequestOptions } from '../../../shared/transport';

const NAME_HINT = `Allowed characters: ${NAME_RULE_TEXT}`;

/** The header that names the user who ordered the case (the API's own identifier). */
export const ON_BEHALF_OF_HEADER = 'karmacheck-on-behalf-of';

const FLOW_CANDIDATE_ONBOARDING = 'candidateOnboarding';
const FLOW_CUSTOMER_PROVIDED = 'customerProvided';
const showForCustomerProvided = { show: { flow: [FLOW_CUSTOMER_PROVIDED] } };

/** The values of Disable Emails, added up into disableOptions. */
const DISABLE_EMAILS = [
	{ name: 'Invitation to the Candidate', value: 1 },
	{ name: 'Notifications to the Customer', value: 4 },
	{ name: 'Updates to the Candidate', value: 2 },
];

const properties: INodeProperties[] = [
	packageIdLocator,
	{
		displayName: 'Candidate Email',
		name: 'candidateEmail',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. name@email.com',
		description:
			'Sent as email. In the candidate onboarding flow the invitation goes there. The API answers 409, naming the existing case, when the candidate already has a case in the group.',
	},
	{
		displayName: 'Given Name',
		name: 'candidateFirstName',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. Maria',
		description: `The candidate's first name, sent as givenName. ${NAME_HINT}.`,
	},
	{
		displayName: 'Family Name',
		name: 'candidateLastName',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. Garcia',
		description: `The candidate's last name, sent as familyName. ${NAME_HINT}.`,
	},
	{
		displayName: 'Flow',
		name: 'flow',
		type: 'options',
		options: [
			{
				name: 'Candidate Onboarding',
				value: FLOW_CANDIDATE_ONBOARDING,
				description:
					'The candidate gets an invitation by email and supplies their own data and authorization',
			},
			{
				name: 'Customer-Provided Data',
				value: FLOW_CUSTOMER_PROVIDED,
				description:
					'You supply the candidate’s data as order data and their signed consent; processing begins at once (autoProcess)',
			},
		],
		default: FLOW_CANDIDATE_ONBOARDING,
	},
	{
		displayName: 'Candidate Consent Provided',
		name: 'candidateConsentProvided',
		type: 'boolean',
		default: false,
		displayOptions: showForCustomerProvided,
		description:
			'Whether you collected the candidate’s signed disclosures and authorizations (required in this flow). Sent as candidateConsentProvided.',
	},
	{
		displayName: 'Disclosure Document IDs',
		name: 'candidateDisclosuresAndAuthorizationDocumentIds',
		type: 'string',
		default: '',
		displayOptions: showForCustomerProvided,
		placeholder: 'e.g. 1234e9a3-8b78-4764-9fdd-12ce8c2b7f29, b123427c-...',
		description:
			'Comma-separated secure document IDs (from Secure Document > Upload) of the candidate’s signed disclosures and authorizations. Sent as candidateDisclosuresAndAuthorizationDocumentIds.',
	},
	orderDataProperty(
		PACKAGE_SERVICES,
		'The candidate’s data and other data the services need, sent as orderData. Required in the customer-provided data flow (date of birth, government ID, current address, ...).',
	),
	aliasesProperty(PACKAGE_SERVICES, NAME_HINT),
	{
		displayName: 'Exclude Service Names or IDs',
		name: 'excludeServices',
		type: 'multiOptions',
		typeOptions: {
			loadOptionsMethod: PACKAGE_SERVICES.method,
			loadOptionsDependsOn: [PACKAGE_SERVICES.dependsOn],
		},
		default: [],
		description:
			'Services of the package not to run, sent as excludeServices. Not every service can be left out. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
	},
	contactsProperty,
	orderConfigProperty,
	{
		displayName: 'Additional Fields',
		name: 'candidateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			{
				displayName: 'Case to Replace (ID)',
				name: 'replaceCaseId',
				type: 'string',
				default: '',
				placeholder: 'e.g. 74e1c0da-3106-4efb-b293-0f1648afae50',
				description:
					'ID of the existing case to archive, when If a Case Exists is Replace. Sent as replaceCaseId.',
			},
			{
				displayName: 'Disable Emails',
				name: 'disableOptions',
				type: 'multiOptions',
				options: DISABLE_EMAILS,
				default: [],
				description: 'Emails the API is not to send about this case, sent as disableOptions',
			},
			{
				displayName: 'If a Case Exists',
				name: 'orderOverride',
				type: 'options',
				options: [
					{
						name: 'Create Another Case',
						value: 'add',
						description: 'Create the case even though the candidate has an active one',
					},
					{
						name: 'Replace the Existing Case',
						value: 'replace',
						description: 'Archive the case given as Case to Replace and create this one',
					},
				],
				default: 'add',
				description:
					'What to do when the candidate already has an active case in the group; without this field the API refuses (409). Sent as orderOverride.',
			},
			{
				displayName: 'Middle Name',
				name: 'middleName',
				type: 'string',
				default: '',
				description: `Sent as middleName. ${NAME_HINT}.`,
			},
			{
				displayName: 'Phone',
				name: 'phone',
				type: 'string',
				default: '',
				placeholder: 'e.g. +18005550145',
				description:
					'The candidate’s phone number as +[country code][number], sent as phone. Required by the API in the customer-provided data flow when the package holds occupational health services.',
			},
		],
	},
	{
		displayName: 'Tracking',
		name: 'tracking',
		type: 'collection',
		placeholder: 'Add Tracking Field',
		default: {},
		options: [
			{
				displayName: 'API Tracking Code',
				name: 'apiTrackingCode',
				type: 'string',
				default: '',
				description:
					'Your own identifier for the case (e.g. a requisition ID), returned in webhook messages and case reads',
			},
			{
				displayName: 'API Tracking User',
				name: 'apiTrackingUser',
				type: 'string',
				default: '',
				description:
					'Your own user identifier for the case (e.g. the recruiter’s email), returned in webhook messages and case reads',
			},
		],
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			concurrencyField,
			{
				displayName: 'Ordered By (Email)',
				name: 'orderedBy',
				type: 'string',
				default: '',
				placeholder: 'e.g. recruiter@company.com',
				description: `Email of the user of your company who orders the case; the API records that user as its creator (sent as the ${ON_BEHALF_OF_HEADER} header). The API refuses the order when that user may not order this package.`,
			},
		],
	},
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

function requireEmail(
	this: IExecuteFunctions,
	itemIndex: number,
	value: string,
	label: string,
): string {
	if (!isEmail(value))
		throw invalidInput(this.getNode(), itemIndex, `${label} "${value}" is not an email address`);
	return value;
}

/** The fields of the flow: autoProcess and the candidate's consent in the customer-provided data flow. */
function flowFields(this: IExecuteFunctions, itemIndex: number, orderData: IDataObject[]) {
	const flow = this.getNodeParameter('flow', itemIndex, FLOW_CANDIDATE_ONBOARDING) as string;
	if (flow !== FLOW_CUSTOMER_PROVIDED) return {};
	const node = this.getNode();
	if (this.getNodeParameter('candidateConsentProvided', itemIndex, false) !== true)
		throw invalidInput(
			node,
			itemIndex,
			'Candidate Consent Provided is off',
			'The customer-provided data flow needs the candidate’s signed consent (the API refuses autoProcess without it). Turn it on, or choose the Candidate Onboarding flow.',
		);
	if (orderData.length === 0)
		throw invalidInput(
			node,
			itemIndex,
			'Order Data is empty',
			'In the customer-provided data flow the order data carries the candidate’s data: add their date of birth, government ID, current address and what the package’s services need.',
		);
	return {
		autoProcess: true,
		candidateConsentProvided: true,
		candidateDisclosuresAndAuthorizationDocumentIds: requireIdList(
			node,
			this.getNodeParameter('candidateDisclosuresAndAuthorizationDocumentIds', itemIndex, ''),
			'Disclosure Document IDs',
			itemIndex,
		),
	};
}

/** orderOverride, replaceCaseId and disableOptions from Additional Fields. */
function orderOptions(this: IExecuteFunctions, itemIndex: number, fields: IDataObject) {
	const node = this.getNode();
	const orderOverride = fields.orderOverride as string | undefined;
	if (orderOverride !== undefined && orderOverride !== 'add' && orderOverride !== 'replace')
		throw invalidInput(
			node,
			itemIndex,
			`If a Case Exists "${String(orderOverride)}" is not add or replace`,
		);
	const replaceCaseId =
		orderOverride === 'replace'
			? requireId(node, fields.replaceCaseId, 'Case to Replace (ID)', itemIndex)
			: undefined;
	const disable = Array.isArray(fields.disableOptions)
		? (fields.disableOptions as number[]).reduce((sum, flag) => sum | Number(flag), 0)
		: 0;
	return { orderOverride, replaceCaseId, disableOptions: disable === 0 ? undefined : disable };
}

/** The flat CreateCase body; every field checked before any request. */
export function buildCaseBody(this: IExecuteFunctions, itemIndex: number): IDataObject {
	const node = this.getNode();
	const fields = this.getNodeParameter('candidateFields', itemIndex, {}) as IDataObject;
	const tracking = this.getNodeParameter('tracking', itemIndex, {}) as IDataObject;
	const packageId = readId.call(this, itemIndex, 'packageId', 'Package ID');
	const email = requireEmail.call(
		this,
		itemIndex,
		requireText.call(this, itemIndex, 'candidateEmail', 'Candidate Email'),
		'Candidate Email',
	);
	const givenName = requireText.call(this, itemIndex, 'candidateFirstName', 'Given Name');
	const familyName = requireText.call(this, itemIndex, 'candidateLastName', 'Family Name');
	const orderData = [
		...buildOrderData.call(this, itemIndex),
		...buildAliases.call(this, itemIndex),
	];
	const body = withoutEmptyValues({
		packageId,
		email,
		givenName,
		middleName: typeof fields.middleName === 'string' ? fields.middleName.trim() : undefined,
		familyName,
		phone: typeof fields.phone === 'string' ? fields.phone.trim() : undefined,
		...flowFields.call(this, itemIndex, orderData),
		excludeServices: requireIdList(
			node,
			this.getNodeParameter('excludeServices', itemIndex, []),
			'Exclude Services',
			itemIndex,
		),
		...orderOptions.call(this, itemIndex, fields),
		orderData,
		orderConfig: buildOrderConfig.call(this, itemIndex, buildContacts.call(this, itemIndex)),
		apiTrackingCode: tracking.apiTrackingCode,
		apiTrackingUser: tracking.apiTrackingUser,
	});
	const normalized = withNamesInNfc(body);
	checkBody(node, normalized, itemIndex, { names: true });
	return normalized;
}

/** The request options of one case creation: the body, and the ordering user's header when given. */
export function buildCaseRequest(
	this: IExecuteFunctions,
	itemIndex: number,
): ApiRequestOptions & { headers?: Record<string, string> } {
	const body = buildCaseBody.call(this, itemIndex);
	const orderedBy = String(this.getNodeParameter('options.orderedBy', itemIndex, '') ?? '').trim();
	if (orderedBy === '') return { body, itemIndex };
	requireEmail.call(this, itemIndex, orderedBy, 'Ordered By (Email)');
	return { body, itemIndex, headers: { [ON_BEHALF_OF_HEADER]: orderedBy } };
}

/**
 * POST /case/create, several candidates at a time (Concurrent Requests); answers `{ caseId,
 * caseInvitationId }`. Never sent twice: the API has no idempotency key, so after a timeout or a 5xx the error
 * says the case may or may not exist, and a 409 names the candidate's existing case.
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runWriteForEachItem.call(this, async (itemIndex) => {
		const request = buildCaseRequest.call(this, itemIndex);
		const response = await apiRequest.call(this, 'POST', apiPath`/case/create`, request);
		return asRecord(response, { success: true });
	});
}
