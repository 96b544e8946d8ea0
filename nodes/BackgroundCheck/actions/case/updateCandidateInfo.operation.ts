import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { withStatusHints, writeDone } from '../../helpers/answers';
import { runForEachItem } from '../../helpers/execute';
import { caseIdLocator } from '../../helpers/fields';
import { checkBody, invalidInput, itemLabel, requireId } from '../../helpers/inputChecks';
import { isEmail, isoDate } from '../../helpers/orderData';
import { readCaseId } from '../../helpers/parameters';
import { NAME_RULE_TEXT, withNamesInNfc } from '../../../shared/bodyRules';
import { recordsOf } from '../../../shared/transport/listResponses';
import { apiPath, apiRequest } from '../../../shared/transport';

/** What the reference says of every field but the phone and government ID. */
const LOCKED =
	'Cannot be changed once the candidate’s personal data is locked (their first case began processing)';

/** The fields the API lets a user empty (sent as null). */
const CLEARABLE = [
	{ name: 'Government ID', value: 'govtId' },
	{ name: 'Middle Name', value: 'middleName' },
	{ name: 'Phone', value: 'phone' },
];

const properties: INodeProperties[] = [
	caseIdLocator,
	{
		displayName: 'Candidate ID',
		name: 'candidateId',
		type: 'string',
		default: '',
		placeholder: 'e.g. 9b766aef-be7f-4844-8b46-be7b53f74bf9',
		description:
			'The candidate of the case (the ID of Case > Get Candidate Info). Leave it empty to use the candidate the case names (candidateId of Case > Get), read from the API first.',
	},
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		description:
			'Only the fields added here are sent; the others keep their values. After the candidate’s personal data is locked, only Phone can change, and Government ID can still be set if it has none; the API ignores the other fields.',
		options: [
			{
				displayName: 'Clear Fields',
				name: 'clearFields',
				type: 'multiOptions',
				options: CLEARABLE,
				default: [],
				description: 'Fields to empty (sent as null)',
			},
			{
				displayName: 'Date of Birth',
				name: 'dob',
				type: 'string',
				default: '',
				placeholder: 'e.g. 1987-01-30',
				description: `YYYY-MM-DD, sent as dob. ${LOCKED}.`,
			},
			{
				displayName: 'Email',
				name: 'email',
				type: 'string',
				default: '',
				placeholder: 'e.g. name@email.com',
				description: `Sent as email; it must not belong to another candidate. ${LOCKED}.`,
			},
			{
				displayName: 'Family Name',
				name: 'familyName',
				type: 'string',
				default: '',
				description: `Sent as familyName. ${LOCKED}. Allowed characters: ${NAME_RULE_TEXT}.`,
			},
			{
				displayName: 'Given Name',
				name: 'givenName',
				type: 'string',
				default: '',
				description: `Sent as givenName. ${LOCKED}. Allowed characters: ${NAME_RULE_TEXT}.`,
			},
			{
				displayName: 'Government ID',
				name: 'govtId',
				type: 'string',
				typeOptions: { password: true },
				default: '',
				placeholder: 'e.g. 111-22-3333',
				description:
					'The candidate’s government ID (Social Security number), sent as govtId; nine digits are sent as 111-22-3333. Once the personal data is locked it can only be set when the candidate has none.',
			},
			{
				displayName: 'Middle Name',
				name: 'middleName',
				type: 'string',
				default: '',
				description: `Sent as middleName. ${LOCKED}. Allowed characters: ${NAME_RULE_TEXT}.`,
			},
			{
				displayName: 'Phone',
				name: 'phone',
				type: 'string',
				default: '',
				placeholder: 'e.g. +18005550164',
				description:
					'+[country code][number], sent as phone (spaces, dashes, dots and brackets are removed). Can be changed at any time.',
			},
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['case'], operation: ['updateCandidateInfo'] } },
	properties,
);

const text = (value: unknown) =>
	typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;

/** The body: the fields given, checked as the reference defines them (an error names the field). */
function buildBody(this: IExecuteFunctions, itemIndex: number): IDataObject {
	const node = this.getNode();
	const fields = this.getNodeParameter('updateFields', itemIndex, {}) as IDataObject;
	const body: IDataObject = {};
	const email = text(fields.email);
	if (email !== undefined) {
		if (!isEmail(email))
			throw invalidInput(node, itemIndex, `Email "${email}" is not an email address`);
		body.email = email;
	}
	const dob = text(fields.dob);
	if (dob !== undefined) {
		body.dob = isoDate(dob);
		if (body.dob === undefined)
			throw invalidInput(
				node,
				itemIndex,
				`Date of Birth "${dob}" is not a date`,
				'Enter it as YYYY-MM-DD, e.g. 1987-01-30.',
			);
	}
	for (const name of ['givenName', 'middleName', 'familyName']) {
		const value = text(fields[name]);
		if (value !== undefined) body[name] = value;
	}
	const phone = text(fields.phone);
	if (phone !== undefined) {
		body.phone = phone.replace(/[\s\-.()]/g, '');
		if (!/^\+\d+$/.test(body.phone as string))
			throw invalidInput(
				node,
				itemIndex,
				`Phone "${phone}" is not a phone number in the form +[country code][number]`,
				'Enter it as e.g. +18005550164.',
			);
	}
	const govtId = text(fields.govtId);
	if (govtId !== undefined) {
		const digits = govtId.replace(/[\s-]/g, '');
		body.govtId = /^\d{9}$/.test(digits)
			? `${digits.slice(0, 3)}-${digits.slice(3, 5)}-${digits.slice(5)}`
			: govtId;
	}
	const clear = Array.isArray(fields.clearFields) ? (fields.clearFields as unknown[]) : [];
	for (const field of clear) {
		const clearable = CLEARABLE.find((entry) => entry.value === field);
		if (clearable === undefined)
			throw invalidInput(
				node,
				itemIndex,
				`Clear Fields "${String(field)}" is not a field that can be emptied`,
				'The fields that can be emptied are govtId, middleName and phone.',
			);
		if (body[clearable.value] !== undefined)
			throw invalidInput(
				node,
				itemIndex,
				`${clearable.name} is both given and in Clear Fields`,
				'Give a value, or clear the field, not both.',
			);
		body[clearable.value] = null;
	}
	if (Object.keys(body).length === 0)
		throw invalidInput(
			node,
			itemIndex,
			'Update Fields is empty',
			'Add at least one field to update, or a field to clear.',
		);
	const normalized = withNamesInNfc(body);
	checkBody(node, normalized, itemIndex, { names: true });
	return normalized;
}

/** The candidate the case names (GET /case/id/{caseId}: `candidateId` of the case). */
async function candidateOfCase(
	this: IExecuteFunctions,
	caseId: string,
	itemIndex: number,
): Promise<string> {
	const response = await apiRequest.call(this, 'GET', apiPath`/case/id/${caseId}`, { itemIndex });
	const [found] = recordsOf(response, 'cases');
	const candidateId = found?.candidateId;
	if (typeof candidateId !== 'string' || candidateId.trim() === '')
		throw new NodeOperationError(
			this.getNode(),
			`The case names no candidate yet, so Candidate ID cannot be read from it ${itemLabel(itemIndex)}`,
			{
				itemIndex,
				description:
					'In the candidate onboarding flow the candidate is linked once they begin onboarding. Enter the Candidate ID, or run this again later.',
			},
		);
	return requireId(this.getNode(), candidateId, 'Candidate ID (of the case)', itemIndex);
}

/**
 * POST /candidate/id/{candidateId}/update/case/id/{caseId} with the fields given (each optional; null empties
 * a nullable one). Every field is checked before any request; an empty Candidate ID is read from the case
 * first (GET /case/id/{caseId}). The API answers 200 with no body when at least one field could be applied
 * (it ignores the others, e.g. locked personal data) and 400 when none could. A write: sent once.
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runForEachItem.call(
		this,
		async (itemIndex) => {
			const node = this.getNode();
			const caseId = readCaseId.call(this, itemIndex);
			const given = this.getNodeParameter('candidateId', itemIndex, '');
			const givenId =
				text(given) === undefined ? undefined : requireId(node, given, 'Candidate ID', itemIndex);
			const body = buildBody.call(this, itemIndex);
			const candidateId = givenId ?? (await candidateOfCase.call(this, caseId, itemIndex));
			const response = await withStatusHints(
				apiRequest.call(
					this,
					'POST',
					apiPath`/candidate/id/${candidateId}/update/case/id/${caseId}`,
					{ body, itemIndex },
				),
				{
					400: 'The request held no update the API could apply: once the candidate’s personal data is locked (their first case began processing), only Phone, and Government ID if they have none, can change. Case > Get Candidate Info shows piiLocked.',
				},
			);
			return writeDone(
				node,
				response,
				{ caseId, candidateId, updated: true, sentFields: Object.keys(body) },
				{
					endpoint: 'POST /candidate/id/{candidateId}/update/case/id/{caseId}',
					itemIndex,
					checkWith: 'Case > Get Candidate Info',
				},
			);
		},
		{ write: true },
	);
}
