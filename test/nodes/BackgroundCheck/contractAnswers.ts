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

const CASE_SERVICES = {
	serviceGroupServices: [
		{
			...SERVICE,
			caseId: CASE_ID,
			packageName: 'Basic Check',
			candidateId: 'c-1',
			groupProfileId: 'g-1',
		},
	],
};

/** A candidate as GET /candidate/info/case/id/{caseId} answers it (the reference's example). */
export const CANDIDATE = {
	id: 'dfb411b1-ab2e-4076-9a22-9f2fda30b365',
	email: 'dani@example.com',
	password: '########',
	givenName: 'Dani',
	familyName: 'Garcia',
	middleName: 'A.',
	govtId: 'XXX-XX-3333',
	phone: '+18005550126',
	dob: '1995-05-04',
	piiValidated: false,
	piiLocked: 1,
	enabled: true,
	crStamp: STAMP,
	modStamp: STAMP,
	secured: 0,
	credentialsNonExpired: true,
	accountNonExpired: true,
	accountNonLocked: true,
	candidateId: 'dfb411b1-ab2e-4076-9a22-9f2fda30b365',
	username: 'dani@example.com',
	fullName: 'Dani A. Garcia',
};

/** An invitation as GET /invitation/case/{caseId} answers it (the reference's example). */
export const INVITATION = {
	id: '03c8ee25-0d4c-4a45-8030-456ef96e6513',
	email: 'jackwilliams@example.com',
	// eslint-disable-next-line @n8n/community-nodes/no-hardcoded-secrets -- the reference's example token: a test value
	invitationToken: '1238ee25-4a51-ab7f-8030-456dd96d4321',
	invitationStatusId: 'd1962405-dd97-48f2-bede-530c2895481f',
	packageId: '7e32983c-1ea5-4271-9832-231a51c740be',
	givenName: 'Jack',
	familyName: 'Williams',
	expiresStamp: '2022-04-28T06:59:59.000+00:00',
	crStamp: '2022-04-13T15:26:10.000+00:00',
	completedStamp: '2022-04-13T15:45:24.000+00:00',
	modStamp: '2022-07-01T13:11:02.000+00:00',
};

/** A case's configuration as GET /config/case/id/{caseId} answers it. */
export const ORDER_CONFIGURATION = {
	contacts: [{ type: 'default', email: 'defaultcontact@example.com', name: 'Dana R.' }],
	aliasNameConfiguration: {
		rawValue: 'alias-all+hits-only',
		appliesTo: {
			serviceIds: [],
			serviceCategoryIds: ['service-cat-criminal'],
			serviceSubCategoryIds: [],
		},
		pillLabel: 'Aliases',
		valueDescription: 'Search every alias; report hits only',
		configDescription: 'Which aliases criminal searches cover',
		valueDisplayLabel: 'All aliases, hits only',
		configDisplayLabel: 'Alias names',
	},
};

/** `METHOD /template` → the answer body (undefined: 200 with no body; a string: text/plain). */
export const CONTRACT_ANSWERS: Record<string, unknown> = {
	'POST /case/create': { caseId: CASE_ID, caseInvitationId: CASE_SUMMARY.caseInvitationId },
	'GET /case/id/{caseId}': { cases: [CASE_SUMMARY] },
	'GET /case/list': { cases: [CASE_SUMMARY] },
	'GET /case/list/all': { cases: [{ ...CASE_SUMMARY, archived: 1 }] },
	'GET /case/id/{caseId}/services': CASE_SERVICES,
	'GET /case/id/{caseId}/services/{serviceType}': CASE_SERVICES,
	'POST /case/id/{caseId}/cancel': undefined,
	'POST /case/id/{caseId}/services/cancel': undefined,
	'POST /case/archive/{caseId}': 'success',
	'POST /case/unarchive/{caseId}': undefined,
	'PUT /case/id/{caseId}/action/beginprocessing': undefined,
	'PUT /case/id/{caseId}/action/place': undefined,
	'GET /config/case/id/{caseId}': ORDER_CONFIGURATION,
	'GET /candidate/info/case/id/{caseId}': { candidate: CANDIDATE },
	'POST /candidate/id/{candidateId}/update/case/id/{caseId}': undefined,
	'GET /invitation/case/{caseId}': { invitation: INVITATION },
	'POST /case/id/{caseId}/action/resendinvite': undefined,
	'PUT /case/id/{caseId}/action/refreshinvite': undefined,
	'POST /case/id/{caseId}/action/preadverse': undefined,
	'GET /candidate/countries': {
		list: [
			{ iso31662: 'US', iso31663: 'USA', country: 'United States' },
			{ iso31662: 'CA', iso31663: 'CAN', country: 'Canada' },
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
