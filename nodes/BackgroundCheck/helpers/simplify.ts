import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

/**
 * The node version that brought Simplify. Workflows saved with version 1 have no Simplify parameter and keep
 * the API's whole records; nodes added since are version 1.1, with Simplify on by default.
 */
export const SIMPLIFY_SINCE_VERSION = 1.1;

/**
 * The fields Simplify keeps, per kind of record, in this order (the most used first): n8n's UX guidelines
 * ask for a Simplify parameter where a read answers records of more than 10 fields, and for at most 10 fields
 * in the simplified output. The status names are those the node adds (helpers/statusNames.ts); a field the
 * API did not send is left out, never invented.
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
} as const satisfies Record<string, readonly string[]>;

export type SimplifiedRecord = keyof typeof SIMPLIFIED_FIELDS;

/** The Simplify parameter, as n8n's own nodes name and word it; shown from version 1.1 on. */
export const simplifyParameter: INodeProperties = {
	displayName: 'Simplify',
	name: 'simple',
	type: 'boolean',
	default: true,
	description: 'Whether to return a simplified version of the response instead of the raw data',
	displayOptions: { show: { '@version': [{ _cnd: { gte: SIMPLIFY_SINCE_VERSION } }] } },
};

/** The record with only the fields Simplify keeps for its kind, in their order. */
export function simplifyRecord(record: IDataObject, kind: SimplifiedRecord): IDataObject {
	const simplified: IDataObject = {};
	for (const field of SIMPLIFIED_FIELDS[kind])
		if (record[field] !== undefined) simplified[field] = record[field];
	return simplified;
}

/**
 * The output of a read (one record or a list of them) as the node's Simplify says: simplified when it is on,
 * whole when it is off or the node is version 1 (no Simplify there). Applied after the node's own additions.
 */
export function simplifyOutput<T extends IDataObject | IDataObject[]>(
	this: IExecuteFunctions,
	itemIndex: number,
	kind: SimplifiedRecord,
	output: T,
): T {
	if (this.getNode().typeVersion < SIMPLIFY_SINCE_VERSION) return output;
	if (this.getNodeParameter('simple', itemIndex, false) !== true) return output;
	return (
		Array.isArray(output)
			? output.map((record) => simplifyRecord(record, kind))
			: simplifyRecord(output, kind)
	) as T;
}
