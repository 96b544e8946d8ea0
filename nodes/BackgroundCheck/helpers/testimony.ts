import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { STAFFING_AGENCY_MAX_LENGTH } from '../../shared/catalog';
import { mergeBody, withoutEmptyValues } from './body';
import { additionalBodyField, concurrencyField, secureDocumentIdsField } from './fields';
import { readAdditionalBody } from './parameters';
import { checkBody, requireId, requireIdList } from './inputChecks';

/**
 * The CPLC field keys of spec 2.3, in a definition's display order. Those the spec observed as required
 * are top-level fields when creating; every key is optional when updating.
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
	{ fieldId: 'state', displayName: 'State', required: false, placeholder: 'e.g. TX' },
	{
		fieldId: 'certifyingBody',
		displayName: 'Certifying Body',
		required: true,
		placeholder: 'e.g. Texas Board of Nursing',
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

function licenseField(field: (typeof LICENSE_FIELDS)[number], required: boolean): INodeProperties {
	return {
		displayName: field.displayName,
		name: field.fieldId,
		type: 'string',
		default: '',
		required,
		placeholder: field.placeholder,
		description: `Value of the ${field.fieldId} field of the license or certification definition (spec 2.3${field.required ? ', observed as required' : ''}). Sent as { "fieldId": "${field.fieldId}", "value": ... } in fields.`,
	};
}

const LICENSE_FIELDS_PARAMETER = 'licenseFields';
const CUSTOM_FIELDS_PARAMETER = 'customFields';
/** The name of the testimony operations' Options collection (Concurrent Requests is in it too). */
export const TESTIMONY_OPTIONS = 'testimonyOptions';

/** The fields of Testimony > Create (`forUpdate` false) or Testimony > Update (every license field optional). */
export function testimonyProperties(forUpdate: boolean): INodeProperties[] {
	const topLevel = forUpdate ? [] : LICENSE_FIELDS.filter((field) => field.required);
	const inCollection = forUpdate
		? LICENSE_FIELDS
		: LICENSE_FIELDS.filter((field) => !field.required);
	return [
		...topLevel.map((field) => licenseField(field, true)),
		{
			displayName: forUpdate ? 'License Fields to Update' : 'Additional License Fields',
			name: LICENSE_FIELDS_PARAMETER,
			type: 'collection',
			placeholder: 'Add field',
			default: {},
			description: forUpdate
				? 'Fields to change; the others keep their values (the API merges fields by fieldId)'
				: 'The optional fields of the definition',
			options: inCollection.map((field) => licenseField(field, false)),
		},
		{
			displayName: 'Other Definition Fields',
			name: CUSTOM_FIELDS_PARAMETER,
			type: 'fixedCollection',
			placeholder: 'Add field',
			typeOptions: { multipleValues: true },
			default: {},
			description:
				'Fields of the definition that are not listed above (CPLC > Get Definitions shows a definition’s fields and their fieldId)',
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
			displayName: 'Options',
			name: TESTIMONY_OPTIONS,
			type: 'collection',
			placeholder: 'Add option',
			default: {},
			options: [
				secureDocumentIdsField(
					'Comma-separated IDs of secure documents (from Secure Document > Create) that back this testimony, such as a scan of the license. Sent as secureDocumentIds.',
				),
				{
					displayName: 'Staffing Agency',
					name: 'staffingAgency',
					type: 'string',
					default: '',
					description: `Staffing agency the candidate worked through (spec: optional on testimony, at most ${STAFFING_AGENCY_MAX_LENGTH} characters)`,
				},
				concurrencyField,
			],
		},
		additionalBodyField(
			'{ "fields": [{ "fieldId": "state", "value": "TX" }] } (replaces the fields list)',
		),
	];
}

/** `{ cplcId?, fields: [{ fieldId, value }], staffingAgency?, secureDocumentIds? }` from the parameters. */
export function buildTestimonyBody(
	this: IExecuteFunctions,
	itemIndex: number,
	forUpdate: boolean,
): IDataObject {
	const node = this.getNode();
	const values: IDataObject = {
		...(this.getNodeParameter(LICENSE_FIELDS_PARAMETER, itemIndex, {}) as IDataObject),
	};
	if (!forUpdate) {
		for (const field of LICENSE_FIELDS.filter((candidate) => candidate.required)) {
			values[field.fieldId] = this.getNodeParameter(field.fieldId, itemIndex, '');
		}
	}
	const fields = LICENSE_FIELDS.filter(
		(field) =>
			typeof values[field.fieldId] === 'string' && (values[field.fieldId] as string).trim() !== '',
	).map((field) => ({ fieldId: field.fieldId, value: (values[field.fieldId] as string).trim() }));
	const custom = (
		this.getNodeParameter(`${CUSTOM_FIELDS_PARAMETER}.field`, itemIndex, []) as Array<{
			fieldId: string;
			value: string;
		}>
	).map((field) => ({
		fieldId: requireId(node, field.fieldId, 'Other Definition Fields: Field ID', itemIndex),
		value: field.value ?? '',
	}));
	const options = this.getNodeParameter(TESTIMONY_OPTIONS, itemIndex, {}) as {
		secureDocumentIds?: string;
		staffingAgency?: string;
	};
	const body = withoutEmptyValues({
		fields: [...fields, ...custom],
		staffingAgency: options.staffingAgency,
		secureDocumentIds: requireIdList(
			node,
			options.secureDocumentIds ?? '',
			'Secure Document IDs',
			itemIndex,
		),
	});
	const merged = mergeBody(body, readAdditionalBody.call(this, itemIndex));
	checkBody(node, merged, itemIndex);
	return merged;
}
