/**
 * Answers as the API reference gives them (api/contract.json), for the recording fake of the node's request
 * helpers: one per operation the action node calls, keyed `METHOD /template`. contract.test.ts checks each of
 * them with answerProblems, so they stay answers the API can give.
 */
import { findOperation } from '../../../api/contract';
import type { RecordedRequest, RecordingAnswer } from '../../helpers/executeContext';

export const CASE_ID = 'a09215ff-f46c-49a6-9767-762da1f3afd2';
export const PACKAGE_ID = 'a12ddee3-4fa5-43fc-9876-123a5d23a08b';
export const EMPLOYMENT_VERIFICATION = '9ac65633-b4c4-4062-875c-3556db9d2a08';
export const SCREENING_TYPE = '30bc2c03-c8dd-409a-8da6-e0070ea6a681';
export const CPLC_ID = '1d16c91d-c2da-47d1-b102-bd67d5b8b1ee';
export const UPLOAD_URL = 'https://storage.upload.test/bucket/key-1?X-Signature=abc';
const STAMP = '2024-05-23T00:58:06.000+00:00';

export const CASE_SUMMARY = {
	id: CASE_ID,
	crStamp: STAMP,
	crUserId: 'user-1',
	caseTypeId: 'cde61186-4f22-45f4-9e19-429061365bce',
	caseType: 'Background Check',
	caseStatusId: 'd894b8a0-937e-46b1-8799-15bad611844f',
	caseStatus: 'Pending',
	secondaryCaseStatusId: '8e0c9756-a42f-4a7d-b8e2-412a0f6b9dea',
	secondaryStatus: 'Waiting for Authorization',
	resultType: 'Open',
	resultTypeId: '8c94f0d9-57c9-4c7b-be95-5ec309cff330',
	modStamp: STAMP,
	candidateId: 'candidate-1',
	candidateEmail: 'matt.williams@example.com',
	candidateGivenName: 'Matt',
	candidateFamilyName: 'Williams',
	packageName: 'Basic Check',
	packageId: PACKAGE_ID,
	groupProfileId: 'group-1',
	groupName: 'East',
	caseInvitationId: 'a2831b9e-897c-4971-85fd-a8328443ed63',
	companyId: 'company-1',
	companyName: 'Example Company',
	invitationEmail: 'matt.williams@example.com',
	isMinorCandidate: 0,
	hasParentalConsent: 0,
	isCustomerProvidedPii: 0,
	archived: 0,
	orderedStamp: STAMP,
	companyReadableName: 'Example Company',
};

const SERVICE = {
	serviceGroupId: 'group-services-1',
	serviceGroupName: 'Basic Check',
	serviceGroupDescription: 'Basic check services',
	serviceId: EMPLOYMENT_VERIFICATION,
	serviceName: 'Employment Verification',
	serviceDescription: 'Verifies employment',
	serviceTypeId: SCREENING_TYPE,
	serviceTypeName: 'Screening',
	serviceGroupEnabled: true,
	serviceEnabled: true,
	serviceAutoProcessEnabled: true,
	serviceTypeEnabled: true,
	conditional: false,
	defaultSelected: true,
	enabled: true,
	serviceGroupServicesId: 'sgs-1',
};

const CASE_DATA = {
	id: '5b1e3c2a-7d4f-4a8b-9c0d-1e2f3a4b5c6d',
	description: 'Employment Verification',
	caseId: CASE_ID,
	serviceId: EMPLOYMENT_VERIFICATION,
	serviceName: 'Employment Verification',
	serviceTypeId: SCREENING_TYPE,
	serviceTypeName: 'Screening',
	statusId: '8f29e0de-10f2-4c84-8379-16c6eb7cdf64',
	status: 'pending',
	statusDisplayName: 'Pending',
	crStamp: STAMP,
	modStamp: STAMP,
	groupProfileId: '4e0c2a8e-5b1f-4d3c-9a7e-2f6b1c8d3e01',
	candidateId: '9b766aef-be7f-4844-8b46-be7b53f74bf9',
	storageId: '0b6f3c1e-1a2b-4c3d-8e4f-5a6b7c8d9e0f',
	details: '{}',
};

/** `METHOD /template` → the answer body (undefined: 200 with no body). */
export const CONTRACT_ANSWERS: Record<string, unknown> = {
	'POST /case/create': { caseId: CASE_ID, caseInvitationId: CASE_SUMMARY.caseInvitationId },
	'GET /case/id/{caseId}': { cases: [CASE_SUMMARY] },
	'GET /case/list': { cases: [CASE_SUMMARY] },
	'GET /case/list/all': { cases: [{ ...CASE_SUMMARY, archived: 1 }] },
	'GET /case/id/{caseId}/services': {
		serviceGroupServices: [
			{
				...SERVICE,
				caseId: CASE_ID,
				packageName: 'Basic Check',
				candidateId: 'c-1',
				groupProfileId: 'g-1',
			},
		],
	},
	'GET /case/id/{caseId}/data/{serviceTypeId}': { data: [CASE_DATA] },
	'POST /case/id/{caseId}/add/services': undefined,
	'POST /case/data/id/{caseDataId}/search/id/{searchId}/cancel': undefined,
	'GET /package/min/list': { packages: [{ id: PACKAGE_ID, name: 'Basic Check' }] },
	'GET /package/id/{packageId}/services': { serviceGroupServices: [SERVICE] },
	'GET /service/cplc/list': {
		cplcList: [
			{
				id: CPLC_ID,
				name: 'RN',
				category: 'Healthcare',
				enabled: true,
				crStamp: STAMP,
				modStamp: STAMP,
			},
		],
	},
	'GET /service/cplc/case/id/{caseId}': {
		cplcDefinitionsList: [
			{
				id: CPLC_ID,
				name: 'RN',
				fields: [
					{ fieldId: 'state', ordinal: 1 },
					{ fieldId: 'licenseNumber', ordinal: 0 },
				],
			},
		],
	},
	'GET /shipment/mask/list': { list: [{ name: 'N95 respirator', sku: 'MASK-N95', inStock: true }] },
	'GET /company/user/list': {
		users: [{ id: 'user-1', givenName: 'Avery', familyName: 'Stone', enabled: 1 }],
	},
	'GET /document/secure/type/list': [
		{
			id: 'candidate-disclosures-and-authorizations',
			secureDocumentType: 'candidate-disclosures-and-authorizations',
			displayName: 'Disclosures and Authorizations',
		},
	],
	'POST /document/secure/upload': { list: [{ url: UPLOAD_URL, fileKey: 'file-key-1' }] },
	'POST /document/secure/create': { list: [{ secureDocumentId: 'secure-document-1' }] },
	'POST /vbook/search': {
		listMetadata: { page: 0, pageSize: 50, totalPages: 1 },
		results: [{ id: 'vbook-1', name: 'Valley State University', city: 'Austin', state: 'TX' }],
	},
	'POST /testimony/create/case/id/{caseId}': { id: '83b7eaf3-0409-4863-9709-14e28ab9cfa7' },
	'POST /testimony/id/{testimonyId}/update/case/id/{caseId}': {
		id: '83b7eaf3-0409-4863-9709-14e28ab9cfa7',
	},
};

/** The key of CONTRACT_ANSWERS a request is, or undefined for a request outside the API (an upload address). */
export function operationOf(request: Pick<RecordedRequest, 'method' | 'path'>): string | undefined {
	if (!request.path.startsWith('/')) return undefined;
	const match = findOperation(request.method, request.path);
	return match && `${request.method} ${match.template}`;
}

/** Answers every API request as CONTRACT_ANSWERS says, and a PUT to an upload address with 200. */
export const contractAnswer: RecordingAnswer = (request) => {
	const operation = operationOf(request);
	if (operation === undefined) return {};
	if (!(operation in CONTRACT_ANSWERS)) return { status: 404, body: { message: 'no answer' } };
	return { body: CONTRACT_ANSWERS[operation] };
};
