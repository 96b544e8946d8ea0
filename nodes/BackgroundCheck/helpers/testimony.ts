import type {
	IDataObject,
	IExecuteFunctions,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import { withoutEmptyValues } from './body';
import { concurrencyField, idLocator } from './fields';
import { checkBody, invalidInput, requireId } from './inputChecks';
import { readId, readJsonObject } from './parameters';

export const CPLC_TESTIMONY = 'testimony-type-cplc';

/** The reference's testimony types (TestimonyType), named as its reference names them. */
export const TESTIMONY_TYPES: INodePropertyOptions[] = [
	{ name: 'Address', value: '4143f0d4-4e3d-4ff7-b40a-9a26b569cf32' },
	{ name: 'Driver’s License', value: '3d83f3a0-fb6c-4c5a-a4dc-4dbf6a663870' },
	{ name: 'Education', value: '19edb27e-5bfd-4c0f-888a-a5130b2f5250' },
	{ name: 'Employment', value: 'aa99dc08-0238-4050-9176-bf322e077f71' },
	{ name: 'Parental Consent', value: '994bb728-f06d-4e4d-b689-f180adfb6ca5' },
	{ name: 'Professional License or Certification', value: CPLC_TESTIMONY },
];

/**
 * The CPLC field keys (spec 2.3 and the reference), in a definition's display order. Those spec 2.3 observed
 * as required are top-level fields; the others are in a collection.
 */
const LICENSE_FIELDS = [
	{ fieldId: 'firstName', displayName: 'First Name', required: true, placeholder: 'e.g. Maria' },
	{
		fieldId: 'middleInitial',
		displayName: 'Middle Initial',
		required: false,
		placeholder: 'e.g. J',
	},
	{ fieldId: 'lastName', displayName: 'Last Name', required: true, placeholder: 'e.g. Garcia' },
	{
		fieldId: 'licenseNumber',
		displayName: 'License Number',
		required: true,
		placeholder: 'e.g. RN123456',
	},
	{
		fieldId: 'licenseTitle',
		displayName: 'License Title',
		required: false,
		placeholder: 'e.g. Registered Nurse',
	},
	{ fieldId: 'state', displayName: 'State', required: false, placeholder: 'e.g. TX' },
	{
		fieldId: 'certifyingBody',
		displayName: 'Certifying Body',
		required: true,
		placeholder: 'e.g. Texas Board of Nursing',
	},
	{
		fieldId: 'certifyingBodyMemberId',
		displayName: 'Certifying Body Member ID',
		required: false,
		placeholder: 'e.g. M-12345',
	},
	{
		fieldId: 'certifyingBodyVerificationPin',
		displayName: 'Certifying Body Verification PIN',
		required: false,
		placeholder: 'e.g. 4821',
	},
	{
		fieldId: 'issueDate',
		displayName: 'Issue Date',
		required: false,
		placeholder: 'e.g. 2021-05-01',
	},
	{
		fieldId: 'expirationDate',
		displayName: 'Expiration Date',
		required: false,
		placeholder: 'e.g. 2027-05-01',
	},
	{
		fieldId: 'additionalInfo',
		displayName: 'Additional Info',
		required: false,
		placeholder: 'e.g. Compact license',
	},
] as const;

const showForCplc = { show: { testimonyTypeId: [CPLC_TESTIMONY] } };
const hideForCplc = { hide: { testimonyTypeId: [CPLC_TESTIMONY] } };

function licenseField(field: (typeof LICENSE_FIELDS)[number], topLevel: boolean): INodeProperties {
	return {
		displayName: field.displayName,
		name: field.fieldId,
		type: 'string',
		default: '',
		required: topLevel,
		placeholder: field.placeholder,
		description: `Sent as { "fieldId": "${field.fieldId}", "value": ... } in details.fields.`,
		...(topLevel ? { displayOptions: showForCplc } : {}),
	};
}

const LICENSE_FIELDS_PARAMETER = 'licenseFields';
const CUSTOM_FIELDS_PARAMETER = 'customFields';
/** The name of the testimony operations' Options collection (Concurrent Requests is in it too). */
export const TESTIMONY_OPTIONS = 'testimonyOptions';

/** The fields of a testimony, the same for Create and Update (the API takes a whole testimony for both). */
export const testimonyProperties: INodeProperties[] = [
	{
		displayName: 'Testimony Type',
		name: 'testimonyTypeId',
		type: 'options',
		options: TESTIMONY_TYPES,
		default: CPLC_TESTIMONY,
		description: 'What the candidate reports, sent as testimonyTypeId',
	},
	{
		...idLocator({
			displayName: 'Professional License',
			name: 'cplcId',
			description:
				'The professional license or certification (CPLC) the testimony is about. Pick it from the list or enter its ID.',
			searchListMethod: 'searchCplcs',
			listPlaceholder: 'Select a license or certification...',
			idPlaceholder: 'e.g. 1d16c91d-c2da-47d1-b102-bd67d5b8b1ee',
		}),
		displayOptions: showForCplc,
	},
	...LICENSE_FIELDS.filter((field) => field.required).map((field) => licenseField(field, true)),
	{
		displayName: 'Additional License Fields',
		name: LICENSE_FIELDS_PARAMETER,
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		displayOptions: showForCplc,
		description:
			'The other fields of the license or certification (CPLC > Get Definitions shows which a definition requires)',
		options: LICENSE_FIELDS.filter((field) => !field.required).map((field) =>
			licenseField(field, false),
		),
	},
	{
		displayName: 'Other License Fields',
		name: CUSTOM_FIELDS_PARAMETER,
		type: 'fixedCollection',
		placeholder: 'Add Field',
		typeOptions: { multipleValues: true },
		default: {},
		displayOptions: showForCplc,
		description: 'Fields of the definition that are not listed above, by their fieldId',
		options: [
			{
				displayName: 'Field',
				name: 'field',
				values: [
					{
						displayName: 'Field ID',
						name: 'fieldId',
						type: 'string',
						default: '',
						placeholder: 'e.g. boardCertificationType',
						description: 'The fieldId of the definition field',
					},
					{
						displayName: 'Value',
						name: 'value',
						type: 'string',
						default: '',
						description: 'The value to record',
					},
				],
			},
		],
	},
	{
		displayName: 'Details (JSON)',
		name: 'details',
		type: 'json',
		default: '{}',
		displayOptions: hideForCplc,
		description:
			'The testimony details, as the API reference defines them for the type. Education: institution, city, state, country, current, monthEnd, yearEnd, degree, major, ...; Employment: employer, position, city, state, country, current, monthBegin, yearBegin, monthEnd, yearEnd, staffingAgency, ...; Driver’s License: state, licenseNumber, country; Parental Consent: parentGivenName, parentFamilyName, parentEmail; Address: address, address2, city, state, postalCode, country, current.',
	},
	{
		displayName: 'Options',
		name: TESTIMONY_OPTIONS,
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			concurrencyField,
			{
				displayName: 'Description',
				name: 'description',
				type: 'string',
				default: '',
				description:
					'A free-form description of the testimony, sent as description; the API writes one when it is not given',
			},
			{
				displayName: 'Testimony Subtype',
				name: 'testimonySubType',
				type: 'string',
				default: '',
				placeholder: 'e.g. no-testimony-to-verify',
				description:
					'Sent as testimonySubType. For a professional license the node sends the license’s ID; for education, no-testimony-to-verify affirms that the candidate has no education to verify.',
			},
		],
	},
];

/** The CPLC details: `{ cplcId, fields: [{ fieldId, value }] }`, fields in the definition's order. */
function cplcDetails(this: IExecuteFunctions, itemIndex: number): IDataObject {
	const node = this.getNode();
	const cplcId = readId.call(this, itemIndex, 'cplcId', 'Professional License ID');
	const values: IDataObject = {
		...(this.getNodeParameter(LICENSE_FIELDS_PARAMETER, itemIndex, {}) as IDataObject),
	};
	for (const field of LICENSE_FIELDS.filter((candidate) => candidate.required)) {
		values[field.fieldId] = this.getNodeParameter(field.fieldId, itemIndex, '');
	}
	const typed = LICENSE_FIELDS.filter(
		(field) =>
			typeof values[field.fieldId] === 'string' && (values[field.fieldId] as string).trim() !== '',
	).map((field) => ({ fieldId: field.fieldId, value: (values[field.fieldId] as string).trim() }));
	const custom = (
		this.getNodeParameter(`${CUSTOM_FIELDS_PARAMETER}.field`, itemIndex, []) as Array<{
			fieldId: string;
			value: string;
		}>
	).map((field) => ({
		fieldId: requireId(node, field.fieldId, 'Other License Fields: Field ID', itemIndex),
		value: String(field.value ?? ''),
	}));
	const fields = [...typed, ...custom];
	if (fields.length === 0)
		throw invalidInput(
			node,
			itemIndex,
			'The license fields are empty',
			'Fill in the fields of the license or certification, such as its number.',
		);
	return { cplcId, fields };
}

/** The Testimony body `{ testimonyTypeId, testimonySubType?, description?, details? }`, checked. */
export function buildTestimonyBody(this: IExecuteFunctions, itemIndex: number): IDataObject {
	const node = this.getNode();
	const testimonyTypeId = this.getNodeParameter('testimonyTypeId', itemIndex, '') as string;
	if (!TESTIMONY_TYPES.some((type) => type.value === testimonyTypeId))
		throw invalidInput(
			node,
			itemIndex,
			testimonyTypeId === ''
				? 'Testimony Type is empty'
				: `Testimony Type "${testimonyTypeId}" is not a testimony type of the API`,
		);
	const options = this.getNodeParameter(TESTIMONY_OPTIONS, itemIndex, {}) as {
		description?: string;
		testimonySubType?: string;
	};
	const details =
		testimonyTypeId === CPLC_TESTIMONY
			? cplcDetails.call(this, itemIndex)
			: readJsonObject.call(this, itemIndex, 'details', 'Details (JSON)');
	// The details are sent as given: an empty value in them (e.g. monthEnd of a current job) is the user's.
	const body: IDataObject = {
		...withoutEmptyValues({
			testimonyTypeId,
			testimonySubType:
				options.testimonySubType?.trim() ||
				(testimonyTypeId === CPLC_TESTIMONY ? details.cplcId : undefined),
			description: options.description?.trim(),
		}),
		...(Object.keys(details).length > 0 ? { details } : {}),
	};
	checkBody(node, body, itemIndex);
	return body;
}
