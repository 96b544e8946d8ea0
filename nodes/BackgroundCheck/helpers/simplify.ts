import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { invalidInput } from './inputChecks';

/**
 * The node version that brought the Output parameter. Workflows saved with version 1 have no Output and keep
 * the API's whole records; nodes added since are version 1.1, with Output > Simplified by default.
 */
export const OUTPUT_SINCE_VERSION = 1.1;

/** The fields of a package's service (ServiceGroupServices), which a case's service has too. */
const PACKAGE_SERVICE_FIELDS = [
	'serviceGroupId',
	'serviceGroupName',
	'serviceGroupPrice',
	'serviceGroupDescription',
	'serviceId',
	'serviceName',
	'serviceDescription',
	'serviceTypeId',
	'serviceTypeName',
	'serviceSubTypeId',
	'serviceSubTypeName',
	'serviceGroupEnabled',
	'serviceEnabled',
	'serviceAutoProcessEnabled',
	'serviceTypeEnabled',
	'serviceCategory',
	'serviceCategoryId',
	'serviceSubCategory',
	'serviceSubCategoryId',
	'conditional',
	'defaultSelected',
	'serviceGroupServicesId',
] as const;

/**
 * Every field of the records these reads output, per kind of record, in the order the node outputs them: the
 * fields of the record's schema in api/contract.json, with the names the node adds next to status IDs
 * (helpers/statusNames.ts) and without what it leaves out (a candidate's `password`, an invitation's
 * `invitationToken`); test/nodes/BackgroundCheck/simplify.test.ts checks them against the contract. They are
 * the choices of Output > Selected Fields.
 */
export const RECORD_FIELDS = {
	/** A case (CaseSummary: 49 fields, 52 with the status names added). */
	case: [
		'id',
		'crStamp',
		'crUserId',
		'caseTypeId',
		'caseType',
		'caseStatusId',
		'caseStatusName',
		'caseStatus',
		'secondaryCaseStatusId',
		'secondaryStatusName',
		'secondaryStatus',
		'resultType',
		'modStamp',
		'candidateId',
		'candidateEmail',
		'candidateGivenName',
		'candidateFamilyName',
		'packageName',
		'packageId',
		'packageCompanyName',
		'billingReferenceId',
		'groupProfileId',
		'groupName',
		'resultTypeId',
		'resultName',
		'caseInvitationId',
		'invitationGivenName',
		'invitationFamilyName',
		'invitationStatusId',
		'invitationStatusName',
		'companyId',
		'companyName',
		'companyCommonName',
		'companyLogo',
		'serviceGroupId',
		'invitationEmail',
		'isMinorCandidate',
		'hasParentalConsent',
		'isCustomerProvidedPii',
		'archived',
		'adverseActionId',
		'adverseActionStatusName',
		'adverseActionStatusId',
		'apiTrackingCode',
		'apiTrackingUser',
		'orderedStamp',
		'beginOnboardingStamp',
		'completedOnboardingStamp',
		'beginProcessingStamp',
		'completedInitialProcessingStamp',
		'completedLatestProcessingStamp',
		'companyReadableName',
	],
	/** One service's case data (CaseData: 24 fields, 28 with the status names added). */
	caseData: [
		'id',
		'description',
		'caseId',
		'serviceId',
		'serviceName',
		'serviceTypeId',
		'serviceTypeName',
		'statusId',
		'statusName',
		'statusMeaning',
		'status',
		'statusDisplayName',
		'crStamp',
		'modStamp',
		'groupProfileId',
		'candidateId',
		'storageId',
		'details',
		'detailsObject',
		'serviceCategory',
		'serviceCategoryId',
		'serviceSubCategory',
		'serviceSubCategoryId',
		'pendingStatus',
		'pendingStatusId',
		'pendingStatusName',
		'pendingStatusAppliesTo',
		'locked',
	],
	/** A service of a package (ServiceGroupServices: 22 fields). */
	packageService: PACKAGE_SERVICE_FIELDS,
	/** A service ordered for a case (ServiceGroupServicesCase: 27 fields). */
	caseService: [
		...PACKAGE_SERVICE_FIELDS,
		'enabled',
		'caseId',
		'packageName',
		'candidateId',
		'groupProfileId',
	],
	/** The candidate of a case (21 fields, 20 output without the password). */
	candidate: [
		'id',
		'email',
		'givenName',
		'middleName',
		'familyName',
		'fullName',
		'govtId',
		'phone',
		'dob',
		'piiValidated',
		'piiLocked',
		'enabled',
		'crStamp',
		'modStamp',
		'secured',
		'candidateId',
		'username',
		'accountNonExpired',
		'accountNonLocked',
		'credentialsNonExpired',
	],
	/** The invitation of a case (13 fields, 13 output: caseId added, invitationToken left out). */
	invitation: [
		'caseId',
		'id',
		'email',
		'givenName',
		'familyName',
		'dob',
		'invitationStatusId',
		'packageId',
		'expiresStamp',
		'deletedStamp',
		'completedStamp',
		'crStamp',
		'modStamp',
	],
} as const satisfies Record<string, readonly string[]>;

export type SimplifiedRecord = keyof typeof RECORD_FIELDS;

/**
 * The fields that identify a record, which Output > Selected Fields always keeps (n8n's UX guidelines: "by
 * default, this option always returns the ID of the record"). A case's service is its case and service.
 */
export const RECORD_ID_FIELDS: Record<SimplifiedRecord, readonly string[]> = {
	case: ['id'],
	caseData: ['id'],
	caseService: ['caseId', 'serviceId'],
	packageService: ['serviceId'],
	candidate: ['id'],
	invitation: ['id'],
};

/**
 * The fields Output > Simplified keeps, per kind of record, in this order (the most used first): n8n's UX
 * guidelines ask for a simplified output where a read answers records of more than 10 fields, with at most 10
 * fields. The status names are those the node adds (helpers/statusNames.ts); a field the API did not send is
 * left out, never invented.
 */
export const SIMPLIFIED_FIELDS = {
	/** A case (CaseSummary: 49 fields, 52 with the status names added): Case > Get and Case > Get Many. */
	case: [
		'id',
		'candidateGivenName',
		'candidateFamilyName',
		'candidateEmail',
		'packageName',
		'caseStatusName',
		'secondaryStatusName',
		'resultName',
		'orderedStamp',
		'completedLatestProcessingStamp',
	],
	/** One service's case data (CaseData: 24 fields, 28 with the status names added): Case > Get Data. */
	caseData: [
		'id',
		'caseId',
		'serviceName',
		'serviceTypeName',
		'statusName',
		'statusMeaning',
		'pendingStatusName',
		'serviceId',
		'crStamp',
		'modStamp',
	],
	/** A service ordered for a case (ServiceGroupServicesCase: 27 fields): Case > Get Services. */
	caseService: [
		'caseId',
		'serviceId',
		'serviceName',
		'serviceDescription',
		'serviceTypeId',
		'serviceTypeName',
		'serviceCategory',
		'serviceSubCategory',
		'packageName',
		'candidateId',
	],
	/** A service of a package (ServiceGroupServices: 22 fields): Package > Get Services. */
	packageService: [
		'serviceId',
		'serviceName',
		'serviceDescription',
		'serviceTypeId',
		'serviceTypeName',
		'serviceCategory',
		'serviceGroupName',
		'serviceEnabled',
		'defaultSelected',
		'conditional',
	],
	/** The candidate of a case (21 fields, 20 output without the password): Case > Get Candidate Info. */
	candidate: [
		'id',
		'email',
		'givenName',
		'middleName',
		'familyName',
		'phone',
		'dob',
		'govtId',
		'piiLocked',
	],
	/** The invitation of a case (13 fields, 13 output: caseId added, invitationToken left out): Invitation > Get. */
	invitation: [
		'caseId',
		'id',
		'email',
		'givenName',
		'familyName',
		'invitationStatusId',
		'packageId',
		'crStamp',
		'expiresStamp',
		'completedStamp',
	],
} as const satisfies Record<SimplifiedRecord, readonly string[]>;

const fromOutputVersion = { '@version': [{ _cnd: { gte: OUTPUT_SINCE_VERSION } }] };

/**
 * The Output parameter of a read of `kind` records, shown from version 1.1 on, as n8n's own nodes have it
 * (Microsoft Entra ID, Microsoft Outlook: `output` simple / raw / fields, and a `fields` list) and its UX
 * guidelines ask of nodes used as AI tools: Simplified (at most 10 fields), Raw (every field) or Selected
 * Fields (the fields picked, plus the record's ID).
 */
export function outputParameters(kind: SimplifiedRecord): INodeProperties[] {
	return [
		{
			displayName: 'Output',
			name: 'output',
			type: 'options',
			default: 'simple',
			options: [
				{
					name: 'Simplified',
					value: 'simple',
					description: `Return at most 10 fields: ${SIMPLIFIED_FIELDS[kind].join(', ')}`,
				},
				{ name: 'Raw', value: 'raw', description: 'Return all the fields' },
				{
					name: 'Selected Fields',
					value: 'fields',
					description: `Return the fields selected in 'Fields', plus ${RECORD_ID_FIELDS[kind].join(' and ')}`,
				},
			],
			displayOptions: { show: { ...fromOutputVersion } },
		},
		{
			displayName: 'Fields',
			name: 'fields',
			type: 'multiOptions',
			default: [],
			description: 'The fields to add to the output',
			options: [...RECORD_FIELDS[kind]]
				.sort((a, b) => a.localeCompare(b))
				.map((field) => ({ name: field, value: field })),
			displayOptions: { show: { ...fromOutputVersion, output: ['fields'] } },
		},
	];
}

/** What a read outputs, as its Output parameter says. */
export type OutputChoice =
	| { output: 'raw' }
	| { output: 'simple' }
	| { output: 'fields'; fields: readonly string[] };

/**
 * The item's Output choice, read before any request: version 1 (no Output) and Raw output whole records.
 * Selected Fields takes a list, or a comma-separated string from an expression; a field the records of `kind`
 * do not have is refused, named with the item.
 */
export function readOutput(
	this: IExecuteFunctions,
	itemIndex: number,
	kind: SimplifiedRecord,
): OutputChoice {
	if (this.getNode().typeVersion < OUTPUT_SINCE_VERSION) return { output: 'raw' };
	const output = this.getNodeParameter('output', itemIndex, 'simple');
	if (output === 'raw') return { output: 'raw' };
	if (output !== 'fields') return { output: 'simple' };
	const value = this.getNodeParameter('fields', itemIndex, []) as unknown;
	const named = (Array.isArray(value) ? value : String(value ?? '').split(','))
		.map((field) => String(field).trim())
		.filter((field) => field !== '');
	const known: readonly string[] = RECORD_FIELDS[kind];
	const unknown = named.find((field) => !known.includes(field));
	if (unknown !== undefined)
		throw invalidInput(
			this.getNode(),
			itemIndex,
			`The field "${unknown}" in 'Fields' is not one this operation outputs`,
			`Pick the fields from the list of 'Fields' (e.g. ${SIMPLIFIED_FIELDS[kind].slice(0, 3).join(', ')}), or choose Output > Raw for all of them.`,
		);
	return { output: 'fields', fields: named };
}

/** The record with only `fields`, in the record's order; a field the API did not send is left out. */
function keepFields(record: IDataObject, fields: ReadonlySet<string>): IDataObject {
	const kept: IDataObject = {};
	for (const [field, value] of Object.entries(record)) if (fields.has(field)) kept[field] = value;
	return kept;
}

/** The record with only the fields Simplified keeps for its kind, in their order. */
export function simplifyRecord(record: IDataObject, kind: SimplifiedRecord): IDataObject {
	const simplified: IDataObject = {};
	for (const field of SIMPLIFIED_FIELDS[kind])
		if (record[field] !== undefined) simplified[field] = record[field];
	return simplified;
}

/**
 * The output of a read (one record or a list of them) as its Output choice says (readOutput): whole for Raw
 * and version 1, the fields of SIMPLIFIED_FIELDS for Simplified, the selected fields and the record's ID for
 * Selected Fields. Applied after the node's own additions.
 */
export function shapeOutput<T extends IDataObject | IDataObject[]>(
	choice: OutputChoice,
	kind: SimplifiedRecord,
	output: T,
): T {
	if (choice.output === 'raw') return output;
	const shape =
		choice.output === 'simple'
			? (record: IDataObject) => simplifyRecord(record, kind)
			: (record: IDataObject) =>
					keepFields(record, new Set([...RECORD_ID_FIELDS[kind], ...choice.fields]));
	return (Array.isArray(output) ? output.map(shape) : shape(output)) as T;
}
