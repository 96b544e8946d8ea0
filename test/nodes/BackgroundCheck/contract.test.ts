/**
 * Every request the action node can send, checked against the API reference (api/contract.json) with
 * requestProblems: each operation and each picker, run with realistic parameters through a recording fake of
 * n8n's request helpers (no sandbox), its method, path, query, headers and body must be what the reference
 * defines. The fake's answers are the reference's too (answerProblems), and the outputs unwrap them.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { answerProblems, requestProblems } from '../../../api/contract';
import { BackgroundCheck } from '../../../nodes/BackgroundCheck/BackgroundCheck.node';
import {
	byId,
	createRecordingLoadOptionsContext,
	fromList,
	itemWithFile,
	runRecorded,
	type RecordedRequest,
	type RecordingAnswer,
} from '../../helpers/executeContext';
import {
	CANDIDATE,
	CASE_ID,
	CASE_SUMMARY,
	CONTRACT_ANSWERS,
	CPLC_ID,
	contractAnswer,
	EMPLOYMENT_VERIFICATION,
	INVITATION,
	operationOf,
	ORDER_CONFIGURATION,
	PACKAGE_ID,
	SCREENING_TYPE,
	UPLOAD_URL,
} from './contractAnswers';
import { EMPLOYMENT_METADATA } from '../../fixtures/fullCaseOrder';

const { listSearch, loadOptions } = new BackgroundCheck().methods;

/** What the reference says is wrong with each API request (a request to an upload address is left out). */
function problemsOf(requests: RecordedRequest[]): Array<{ request: string; problems: string[] }> {
	return requests
		.filter((request) => request.authenticated)
		.map((request) => ({
			request: `${request.method} ${request.path}`,
			problems: requestProblems({
				method: request.method,
				path: request.path,
				query: request.query,
				headers: request.headers,
				body: request.body,
			}),
		}));
}

const noProblems = (requests: RecordedRequest[]) =>
	requests
		.filter((request) => request.authenticated)
		.map((request) => ({ request: `${request.method} ${request.path}`, problems: [] }));

async function run(
	parameters: IDataObject,
	options: { items?: INodeExecutionData[]; answer?: RecordingAnswer } = {},
) {
	return await runRecorded({
		parameters,
		items: options.items,
		answer: options.answer ?? contractAnswer,
	});
}

const CUSTOMER_PROVIDED_ORDER = {
	resource: 'case',
	operation: 'create',
	packageId: byId(PACKAGE_ID),
	candidateEmail: 'matt.williams@example.com',
	candidateFirstName: 'Matt',
	candidateLastName: 'Williams',
	flow: 'customerProvided',
	candidateConsentProvided: true,
	candidateDisclosuresAndAuthorizationDocumentIds: '1234e9a3-8b78-4764-9fdd-12ce8c2b7f29, b123427c',
	orderData: {
		dateOfBirth: [{ dob: '1980-02-22' }],
		governmentId: [{ govtId: '111223333' }],
		currentAddress: [
			{
				address1: '1 Main Street',
				city: 'New York',
				state: 'NY',
				postalCode: '10036',
				country: 'US',
			},
		],
		drugReasonForTest: [{ serviceId: 'service-drug-10-panel', reasonForTest: 'post-accident' }],
		drugTestingAuthority: [{ serviceId: '', testingAuthority: 'faa' }],
		other: [
			{
				type: 'codt-employment',
				serviceId: EMPLOYMENT_VERIFICATION,
				metadata: JSON.stringify({ ...EMPLOYMENT_METADATA, staffingAgency: 'Northwind Staffing' }),
			},
			{
				type: 'codt-cplc',
				serviceId: 'service-cplc',
				metadata: {
					cplcId: CPLC_ID,
					fields: [{ fieldId: 'licenseNumber', value: 'L1234567' }],
				},
			},
		],
	},
	aliases: { alias: [{ firstName: 'Matthew', lastName: 'Williams-Jones', serviceId: '' }] },
	excludeServices: ['2c6bbd00-dce3-4ecd-ae91-b0f3dab268f7'],
	contacts: {
		contact: [
			{
				type: 'default',
				email: 'defaultcontact@example.com',
				name: 'Dana R.',
				phone: '800-555-0170',
			},
			{ type: 'escalation', email: 'escalationcontact@example.com' },
		],
	},
	orderConfig: {
		aliasNameConfiguration: 'alias-all+hits-only',
		diluteDrugPolicy: 'reorder',
		employmentVerificationMethod: 'psv-first',
		quantiferonSubstitutionPolicy: 'replace-with-t-spot',
	},
	candidateFields: {
		middleName: 'J.',
		phone: '+18005550184',
		orderOverride: 'replace',
		replaceCaseId: '74e1c0da-3106-4efb-b293-0f1648afae50',
		disableOptions: [1, 4],
	},
	tracking: { apiTrackingCode: 'REQ-1001', apiTrackingUser: 'recruiter@example.com' },
	options: { orderedBy: 'recruiter@example.com' },
};

describe('every operation sends what the reference defines', () => {
	const OPERATIONS: Array<[string, IDataObject, INodeExecutionData[]?]> = [
		[
			'Case > Create (candidate onboarding, the minimum)',
			{
				resource: 'case',
				operation: 'create',
				packageId: fromList(PACKAGE_ID),
				candidateEmail: 'ann@example.com',
				candidateFirstName: 'Ann',
				candidateLastName: "O'Neil",
			},
		],
		['Case > Create (customer-provided data, every field)', CUSTOMER_PROVIDED_ORDER],
		['Case > Get', { resource: 'case', operation: 'get', caseId: fromList(CASE_ID) }],
		['Case > Get Many (active)', { resource: 'case', operation: 'getMany', returnAll: true }],
		[
			'Case > Get Many (all, filtered)',
			{
				resource: 'case',
				operation: 'getMany',
				scope: 'all',
				filters: { userId: 'user-1', packageId: PACKAGE_ID },
			},
		],
		[
			'Case > Get Data',
			{
				resource: 'case',
				operation: 'getData',
				caseId: byId(CASE_ID),
				serviceTypeId: fromList(SCREENING_TYPE),
			},
		],
		[
			'Case > Add Services',
			{
				resource: 'case',
				operation: 'addServices',
				caseId: byId(CASE_ID),
				services: ['85307784-1f84-471a-8596-c8ea088c3a62'],
				orderData: {
					other: [
						{
							type: 'codt-education',
							serviceId: '85307784-1f84-471a-8596-c8ea088c3a62',
							metadata:
								'{ "institution": "UCLA", "city": "Los Angeles", "state": "CA", "country": "US", "current": false, "monthEnd": "05", "yearEnd": "2019" }',
						},
					],
				},
				orderConfig: { educationVerificationMethod: 'psv' },
			},
		],
		['Case > Cancel', { resource: 'case', operation: 'cancel', caseId: fromList(CASE_ID) }],
		[
			'Case > Cancel Services',
			{
				resource: 'case',
				operation: 'cancelServices',
				caseId: byId(CASE_ID),
				serviceIds: [EMPLOYMENT_VERIFICATION],
			},
		],
		['Case > Archive', { resource: 'case', operation: 'archive', caseId: byId(CASE_ID) }],
		['Case > Unarchive', { resource: 'case', operation: 'unarchive', caseId: byId(CASE_ID) }],
		[
			'Case > Begin Processing',
			{ resource: 'case', operation: 'beginProcessing', caseId: byId(CASE_ID) },
		],
		['Case > Place', { resource: 'case', operation: 'place', caseId: byId(CASE_ID) }],
		[
			'Case > Get Services (every type)',
			{ resource: 'case', operation: 'getServices', caseId: byId(CASE_ID), returnAll: true },
		],
		[
			'Case > Get Services (one type)',
			{ resource: 'case', operation: 'getServices', caseId: byId(CASE_ID), serviceType: 'legal' },
		],
		[
			'Case > Get Order Configuration',
			{ resource: 'case', operation: 'getOrderConfiguration', caseId: byId(CASE_ID) },
		],
		[
			'Case > Get Candidate Info',
			{ resource: 'case', operation: 'getCandidateInfo', caseId: byId(CASE_ID) },
		],
		[
			'Case > Update Candidate Info (every field, candidate read from the case)',
			{
				resource: 'case',
				operation: 'updateCandidateInfo',
				caseId: byId(CASE_ID),
				updateFields: {
					email: 'dwight@example.com',
					dob: '1991-04-05',
					givenName: 'Dwight',
					middleName: 'James',
					familyName: 'Miller',
					phone: '+1 800 555-0164',
					govtId: '333221111',
				},
			},
		],
		[
			'Case > Update Candidate Info (fields cleared, candidate given)',
			{
				resource: 'case',
				operation: 'updateCandidateInfo',
				caseId: byId(CASE_ID),
				candidateId: CANDIDATE.id,
				updateFields: { clearFields: ['middleName', 'phone', 'govtId'] },
			},
		],
		['Invitation > Get', { resource: 'invitation', operation: 'get', caseId: byId(CASE_ID) }],
		[
			'Invitation > Resend (to the current email)',
			{ resource: 'invitation', operation: 'resend', caseId: byId(CASE_ID) },
		],
		[
			'Invitation > Resend (to a new email)',
			{
				resource: 'invitation',
				operation: 'resend',
				caseId: byId(CASE_ID),
				newEmail: 'new@example.com',
			},
		],
		[
			'Invitation > Refresh',
			{ resource: 'invitation', operation: 'refresh', caseId: byId(CASE_ID) },
		],
		[
			'Adverse Action > Start Pre-Adverse Action',
			{
				resource: 'adverseAction',
				operation: 'startPreAdverse',
				caseId: byId(CASE_ID),
				reason: 'The candidate was positive for cocaine in his drug test.',
				adverseScreeningSelections: ['service-drug-1200-panel'],
			},
		],
		[
			'Case Data > Cancel Search',
			{ resource: 'caseData', operation: 'cancelSearch', caseDataId: 'cd-1', searchId: 's-1' },
		],
		[
			'Package > Get Services',
			{ resource: 'package', operation: 'getServices', packageId: fromList(PACKAGE_ID) },
		],
		[
			'Professional License > Get Definitions',
			{ resource: 'cplc', operation: 'getDefinitions', caseId: byId(CASE_ID) },
		],
		['Shipment Mask > Get Many', { resource: 'shipmentMask', operation: 'getMany' }],
		[
			'Company User > Get Many',
			{ resource: 'companyUser', operation: 'getMany', options: { groupProfileId: 'group-2' } },
		],
		[
			'Verification Book > Search',
			{
				resource: 'verificationBook',
				operation: 'search',
				entryType: 'vbt_education',
				query: 'Valley',
			},
		],
		[
			'Testimony > Create (professional license)',
			{
				resource: 'testimony',
				operation: 'create',
				caseId: byId(CASE_ID),
				cplcId: fromList(CPLC_ID),
				firstName: 'Ann',
				lastName: "O'Neil",
				licenseNumber: 'RN123456',
				certifyingBody: 'Texas Board of Nursing',
				licenseFields: { state: 'TX', expirationDate: '2027-05-01' },
			},
		],
		[
			'Testimony > Create (employment)',
			{
				resource: 'testimony',
				operation: 'create',
				caseId: byId(CASE_ID),
				testimonyTypeId: 'aa99dc08-0238-4050-9176-bf322e077f71',
				details: JSON.stringify({
					employer: 'Acme',
					city: 'Austin',
					state: 'TX',
					country: 'US',
					current: false,
					position: 'Driver',
					monthBegin: 'April',
					yearBegin: '2019',
					monthEnd: 'May',
					yearEnd: '2021',
					staffingAgency: 'Northwind Staffing',
				}),
				testimonyOptions: { description: 'Driver at Acme' },
			},
		],
		[
			'Testimony > Update (education)',
			{
				resource: 'testimony',
				operation: 'update',
				testimonyId: '83b7eaf3-0409-4863-9709-14e28ab9cfa7',
				caseId: fromList(CASE_ID),
				testimonyTypeId: '19edb27e-5bfd-4c0f-888a-a5130b2f5250',
				details:
					'{ "institution": "UCLA", "city": "Los Angeles", "state": "CA", "country": "US", "current": false, "monthEnd": "May", "yearEnd": "2019" }',
			},
		],
		[
			'Secure Document > Upload',
			{
				resource: 'secureDocument',
				operation: 'create',
				options: { accessCaseId: CASE_ID, title: 'Authorization' },
			},
			[itemWithFile('authorization.pdf', Buffer.from('%PDF-1.4 signed'), 'application/pdf')],
		],
	];

	const rows = OPERATIONS.map(([name, parameters, items]) => ({ name, parameters, items }));
	it.each(rows)('$name', async ({ parameters, items }) => {
		const { requests } = await run(parameters, { items });
		expect(requests.filter((request) => request.authenticated).length).toBeGreaterThan(0);
		expect(problemsOf(requests)).toEqual(noProblems(requests));
	});

	it('the answers the fake gives are answers of the reference', () => {
		for (const [operation, body] of Object.entries(CONTRACT_ANSWERS)) {
			const [method, template] = operation.split(' ');
			const path = template.replace(/\{(\w+)\}/g, (_match, name: string) =>
				name === 'serviceTypeId' ? SCREENING_TYPE : `${name}-1`,
			);
			const contentType =
				body === undefined
					? undefined
					: typeof body === 'string'
						? 'text/plain'
						: 'application/json';
			expect({ operation, problems: answerProblems(method, path, 200, contentType, body) }).toEqual(
				{ operation, problems: [] },
			);
		}
	});
});

describe('every picker sends what the reference defines', () => {
	const pickers: Array<[string, (context: never) => Promise<unknown>, IDataObject]> = [
		['searchCases', (context) => listSearch.searchCases.call(context, 'matt'), {}],
		['searchPackages', (context) => listSearch.searchPackages.call(context), {}],
		['searchCplcs', (context) => listSearch.searchCplcs.call(context), {}],
		[
			'searchServiceTypes (of a case)',
			(context) => listSearch.searchServiceTypes.call(context),
			{ caseId: byId(CASE_ID) },
		],
		[
			'getPackageServices',
			(context) => loadOptions.getPackageServices.call(context),
			{ packageId: fromList(PACKAGE_ID) },
		],
		[
			'getCaseServices',
			(context) => loadOptions.getCaseServices.call(context),
			{ caseId: byId(CASE_ID) },
		],
		['getPackages', (context) => loadOptions.getPackages.call(context), {}],
		['getCompanyUsers', (context) => loadOptions.getCompanyUsers.call(context), {}],
		['getDocumentTypes', (context) => loadOptions.getDocumentTypes.call(context), {}],
		[
			'getOrderedServices',
			(context) => loadOptions.getOrderedServices.call(context),
			{ caseId: byId(CASE_ID) },
		],
		[
			'getOrderedScreenings',
			(context) => loadOptions.getOrderedScreenings.call(context),
			{ caseId: fromList(CASE_ID) },
		],
		['getCountries', (context) => loadOptions.getCountries.call(context), {}],
	];

	const rows = pickers.map(([name, pick, parameters]) => ({ name, pick, parameters }));
	it.each(rows)('$name', async ({ pick, parameters }) => {
		const { context, requests } = createRecordingLoadOptionsContext({
			parameters: { resource: 'case', operation: 'create', ...parameters },
			answer: contractAnswer,
		});
		await pick(context as never);
		expect(requests.length).toBeGreaterThan(0);
		expect(problemsOf(requests)).toEqual(noProblems(requests));
	});
});

describe('Case > Create', () => {
	it('sends the flat body of the customer-provided data flow, and the ordering user as a header', async () => {
		const { output, requests } = await run(CUSTOMER_PROVIDED_ORDER);
		expect(requests).toHaveLength(1);
		const [request] = requests;
		expect(request).toMatchObject({ method: 'POST', path: '/case/create' });
		expect(request.headers['karmacheck-on-behalf-of']).toBe('recruiter@example.com');
		expect(request.body).toEqual({
			packageId: PACKAGE_ID,
			email: 'matt.williams@example.com',
			givenName: 'Matt',
			middleName: 'J.',
			familyName: 'Williams',
			phone: '+18005550184',
			autoProcess: true,
			candidateConsentProvided: true,
			candidateDisclosuresAndAuthorizationDocumentIds: [
				'1234e9a3-8b78-4764-9fdd-12ce8c2b7f29',
				'b123427c',
			],
			excludeServices: ['2c6bbd00-dce3-4ecd-ae91-b0f3dab268f7'],
			orderOverride: 'replace',
			replaceCaseId: '74e1c0da-3106-4efb-b293-0f1648afae50',
			disableOptions: 5,
			orderData: [
				{ caseOrderDataTypeId: 'codt-dob', metadata: { dob: '1980-02-22' } },
				{ caseOrderDataTypeId: 'codt-govt-id', metadata: { govtId: '111-22-3333' } },
				{
					caseOrderDataTypeId: 'codt-current-candidate-address',
					metadata: {
						address1: '1 Main Street',
						city: 'New York',
						state: 'NY',
						postalCode: '10036',
						country: 'US',
					},
				},
				{
					caseOrderDataTypeId: 'codt-drug-reason-for-test',
					serviceId: 'service-drug-10-panel',
					metadata: { reasonForTest: 'post-accident' },
				},
				{
					caseOrderDataTypeId: 'codt-drug-testing-authority',
					metadata: { testingAuthority: 'faa' },
				},
				{
					caseOrderDataTypeId: 'codt-employment',
					serviceId: EMPLOYMENT_VERIFICATION,
					metadata: expect.objectContaining({ employer: 'Acme Logistics', monthEnd: '' }),
				},
				{
					caseOrderDataTypeId: 'codt-cplc',
					serviceId: 'service-cplc',
					metadata: { cplcId: CPLC_ID, fields: [{ fieldId: 'licenseNumber', value: 'L1234567' }] },
				},
				{
					caseOrderDataTypeId: 'codt-alias',
					metadata: { givenName: 'Matthew', familyName: 'Williams-Jones' },
				},
			],
			orderConfig: {
				contacts: [
					{
						type: 'default',
						email: 'defaultcontact@example.com',
						name: 'Dana R.',
						phone: '800-555-0170',
					},
					{ type: 'escalation', email: 'escalationcontact@example.com' },
				],
				aliasNameConfiguration: 'alias-all+hits-only',
				diluteDrugPolicy: 'reorder',
				serviceConfigs: {
					[EMPLOYMENT_VERIFICATION]: { verificationMethod: 'psv-first' },
					'service-ohs-tb-quantiferon-gold': { substitutionPolicy: 'replace-with-t-spot' },
				},
			},
			apiTrackingCode: 'REQ-1001',
			apiTrackingUser: 'recruiter@example.com',
		});
		expect(output.map((item) => item.json)).toEqual([
			CONTRACT_ANSWERS['POST /case/create'] as IDataObject,
		]);
	});
});

describe('outputs unwrap the answers', () => {
	it('Case > Get outputs the case itself, with the names of its status IDs', async () => {
		const { output } = await run({ resource: 'case', operation: 'get', caseId: byId(CASE_ID) });
		expect(output.map((item) => item.json)).toEqual([
			{
				...CASE_SUMMARY,
				caseStatusName: 'Pending',
				secondaryStatusName: 'Waiting for Authorization',
				resultName: 'Open',
			},
		]);
	});

	it('Case > Get Data outputs one item per case data, with status names and meanings', async () => {
		const { output } = await run({
			resource: 'case',
			operation: 'getData',
			caseId: byId(CASE_ID),
			serviceTypeId: byId(SCREENING_TYPE),
		});
		expect(output).toHaveLength(1);
		expect(output[0].json).toMatchObject({
			serviceId: EMPLOYMENT_VERIFICATION,
			statusName: 'pending',
			statusMeaning: 'In progress',
		});
	});

	it('Add Services, which the API answers with no body, outputs what was added', async () => {
		const { output } = await run({
			resource: 'case',
			operation: 'addServices',
			caseId: byId(CASE_ID),
			services: [EMPLOYMENT_VERIFICATION, EMPLOYMENT_VERIFICATION],
		});
		expect(output.map((item) => item.json)).toEqual([
			{ caseId: CASE_ID, success: true, serviceIds: [EMPLOYMENT_VERIFICATION] },
		]);
	});

	it.each([
		[
			'package',
			'getServices',
			{ packageId: byId(PACKAGE_ID) },
			'serviceId',
			EMPLOYMENT_VERIFICATION,
		],
		['shipmentMask', 'getMany', {}, 'sku', 'MASK-N95'],
		['companyUser', 'getMany', {}, 'id', 'user-1'],
		['cplc', 'getDefinitions', { caseId: byId(CASE_ID) }, 'id', CPLC_ID],
	])('%s > %s outputs one item per record', async (resource, operation, more, key, value) => {
		const { output } = await run({ resource, operation, ...more });
		expect(output.map((item) => item.json[key])).toEqual([value]);
	});

	it('Testimony > Create outputs the new testimony ID with its case', async () => {
		const { output } = await run({
			resource: 'testimony',
			operation: 'create',
			caseId: byId(CASE_ID),
			testimonyTypeId: '994bb728-f06d-4e4d-b689-f180adfb6ca5',
			details:
				'{ "parentGivenName": "Pat", "parentFamilyName": "Lee", "parentEmail": "pat@example.com" }',
		});
		expect(output[0].json).toEqual({
			id: '83b7eaf3-0409-4863-9709-14e28ab9cfa7',
			caseId: CASE_ID,
			testimonyTypeId: '994bb728-f06d-4e4d-b689-f180adfb6ca5',
		});
	});
});

describe('Testimony', () => {
	it('sends a professional license as details { cplcId, fields } with the license as its subtype', async () => {
		const { requests } = await run({
			resource: 'testimony',
			operation: 'update',
			testimonyId: 't-1',
			caseId: byId(CASE_ID),
			cplcId: byId(CPLC_ID),
			firstName: 'Ann',
			lastName: 'Lee',
			licenseNumber: 'RN1',
			certifyingBody: 'Board',
			customFields: { field: [{ fieldId: 'boardCertificationType', value: 'Compact' }] },
		});
		expect(requests.map((request) => [request.method, request.path, request.body])).toEqual([
			[
				'POST',
				`/testimony/id/t-1/update/case/id/${CASE_ID}`,
				{
					testimonyTypeId: 'testimony-type-cplc',
					testimonySubType: CPLC_ID,
					details: {
						cplcId: CPLC_ID,
						fields: [
							{ fieldId: 'firstName', value: 'Ann' },
							{ fieldId: 'lastName', value: 'Lee' },
							{ fieldId: 'licenseNumber', value: 'RN1' },
							{ fieldId: 'certifyingBody', value: 'Board' },
							{ fieldId: 'boardCertificationType', value: 'Compact' },
						],
					},
				},
			],
		]);
	});
});

describe('Secure Document > Upload', () => {
	it('asks for an upload address, PUTs the bytes there without the token, then creates the record', async () => {
		const content = Buffer.from('%PDF-1.4 signed authorization');
		const { output, requests } = await run(
			{ resource: 'secureDocument', operation: 'create', options: { accessCaseId: CASE_ID } },
			{ items: [itemWithFile('Authorization.PDF', content, 'application/pdf')] },
		);
		expect(
			requests.map((request) => [request.method, request.path, request.authenticated]),
		).toEqual([
			['POST', '/document/secure/upload', true],
			['PUT', UPLOAD_URL.split('?')[0], false],
			['POST', '/document/secure/create', true],
		]);
		const [upload, put, create] = requests;
		expect(upload.body).toEqual({
			files: [
				{ documentTypeId: 'candidate-disclosures-and-authorizations', mimeType: 'application/pdf' },
			],
		});
		expect(put.query).toEqual({ 'X-Signature': 'abc' });
		expect(put.body).toEqual(content);
		expect(put.headers).toEqual({ 'Content-Type': 'application/pdf' });
		expect(create.body).toEqual({
			list: [
				{
					originalFileName: 'Authorization.PDF',
					documentTypeId: 'candidate-disclosures-and-authorizations',
					fileKey: 'file-key-1',
					fileFormat: 'pdf',
				},
			],
			accessGrants: { caseId: CASE_ID },
		});
		expect(output.map((item) => item.json)).toEqual([
			{
				secureDocumentId: 'secure-document-1',
				originalFileName: 'Authorization.PDF',
				documentTypeId: 'candidate-disclosures-and-authorizations',
				fileKey: 'file-key-1',
				fileFormat: 'pdf',
				caseId: CASE_ID,
			},
		]);
	});

	it('refuses a file format the API does not store before any request', async () => {
		const { requests } = await run(
			{ resource: 'secureDocument', operation: 'create' },
			{ items: [itemWithFile('scan.tiff', Buffer.from('II*'), 'image/tiff')] },
		).catch((error: Error) => {
			expect(error.message).toBe(
				'The file format "tiff" of \'data\' is not one the API stores [item 0]',
			);
			return { requests: [] };
		});
		expect(requests).toEqual([]);
	});

	it('says the storage refused the file, without the token or the signed address', async () => {
		const answer: RecordingAnswer = (request) =>
			request.authenticated ? contractAnswer(request) : { status: 403, body: 'denied' };
		const error = await run(
			{ resource: 'secureDocument', operation: 'create' },
			{ items: [itemWithFile('a.png', Buffer.from('png'), 'image/png')], answer },
		).then(
			() => undefined,
			(failure: Error & { description?: string }) => failure,
		);
		expect(error?.message).toBe("Storing 'a.png' at the upload address failed (HTTP 403)");
		expect(`${error?.message} ${error?.description}`).not.toMatch(/X-Signature|recorded-token/);
	});
});

describe('Verification Book > Search', () => {
	it('advances the page until the last of totalPages, asking for the page size', async () => {
		const answer: RecordingAnswer = (request) => {
			const { listMetadata } = request.body as { listMetadata: { page: number; pageSize: number } };
			return {
				body: {
					listMetadata: { ...listMetadata, totalPages: 3 },
					results: [{ id: `entry-${listMetadata.page}`, name: 'Valley' }],
				},
			};
		};
		const { output, requests } = await run(
			{ resource: 'verificationBook', operation: 'search', returnAll: true },
			{ answer },
		);
		expect(requests.map((request) => request.body)).toEqual(
			[0, 1, 2].map((page) => ({
				searchDetails: { vbookTypeId: 'vbt_employment' },
				listMetadata: { page, pageSize: 50 },
			})),
		);
		expect(output.map((item) => item.json.id)).toEqual(['entry-0', 'entry-1', 'entry-2']);
		for (const request of requests) expect(operationOf(request)).toBe('POST /vbook/search');
	});

	it('stops at an empty page, and reads one page of the limit’s size', async () => {
		const empty: RecordingAnswer = () => ({
			body: { listMetadata: { page: 0, pageSize: 5, totalPages: 9 }, results: [] },
		});
		const { requests } = await run(
			{ resource: 'verificationBook', operation: 'search', returnAll: true },
			{ answer: empty },
		);
		expect(requests).toHaveLength(1);
		const limited = await run({ resource: 'verificationBook', operation: 'search', limit: 5 });
		expect(limited.requests.map((request) => request.body)).toEqual([
			{ searchDetails: { vbookTypeId: 'vbt_employment' }, listMetadata: { page: 0, pageSize: 5 } },
		]);
	});
});

describe('case actions, invitation and adverse action', () => {
	const OTHER_CASE = '74e1c0da-3106-4efb-b293-0f1648afae50';
	/** Two input items, each naming its case (as `={{ $json.caseId }}` would). */
	const twoCases = {
		items: [{ json: { caseId: CASE_ID } }, { json: { caseId: OTHER_CASE } }],
		caseId: ((item: INodeExecutionData) => byId(item.json.caseId as string)) as never,
	};
	const lines = (requests: RecordedRequest[]) =>
		requests.map((request) => `${request.method} ${request.path}`);
	const failureOf = async (promise: Promise<unknown>) =>
		await promise.then(
			() => undefined,
			(error: Error & { description?: string; context?: { itemIndex?: number } }) => error,
		);

	it.each([
		['case', 'cancel', {}, `POST /case/id/${CASE_ID}/cancel`, { canceled: true }],
		['case', 'archive', {}, `POST /case/archive/${CASE_ID}`, { archived: true }],
		['case', 'unarchive', {}, `POST /case/unarchive/${CASE_ID}`, { unarchived: true }],
		[
			'case',
			'beginProcessing',
			{},
			`PUT /case/id/${CASE_ID}/action/beginprocessing`,
			{ processingBegun: true },
		],
		['case', 'place', {}, `PUT /case/id/${CASE_ID}/action/place`, { placed: true }],
		[
			'invitation',
			'refresh',
			{},
			`PUT /case/id/${CASE_ID}/action/refreshinvite`,
			{ refreshed: true },
		],
		[
			'invitation',
			'resend',
			{ newEmail: ' new@example.com ' },
			`POST /case/id/${CASE_ID}/action/resendinvite`,
			{ resent: true, email: 'new@example.com' },
		],
		[
			'case',
			'cancelServices',
			{ serviceIds: `${EMPLOYMENT_VERIFICATION}, ${EMPLOYMENT_VERIFICATION}, service-ssn-trace` },
			`POST /case/id/${CASE_ID}/services/cancel`,
			{ canceled: true, serviceIds: [EMPLOYMENT_VERIFICATION, 'service-ssn-trace'] },
		],
		[
			'adverseAction',
			'startPreAdverse',
			{ reason: '  Failed drug test  ' },
			`POST /case/id/${CASE_ID}/action/preadverse`,
			{ preAdverseActionStarted: true, reason: 'Failed drug test' },
		],
	])(
		'%s > %s, answered with no body (Archive: text "success"), outputs what was done after one request',
		async (resource, operation, more, line, done) => {
			const { output, requests } = await run({
				resource,
				operation,
				caseId: byId(CASE_ID),
				...more,
			});
			expect(lines(requests)).toEqual([line]);
			expect(output).toEqual([{ json: { caseId: CASE_ID, ...done }, pairedItem: { item: 0 } }]);
		},
	);

	it('reads an answer with no body as n8n hands it over (an empty string) too', async () => {
		const { output } = await run(
			{ resource: 'case', operation: 'place', caseId: byId(CASE_ID) },
			{ answer: () => ({ body: '' }) },
		);
		expect(output[0].json).toEqual({ caseId: CASE_ID, placed: true });
	});

	it('sends the bodies the reference defines', async () => {
		const cancel = await run({
			resource: 'case',
			operation: 'cancelServices',
			caseId: byId(CASE_ID),
			serviceIds: [EMPLOYMENT_VERIFICATION],
		});
		expect(cancel.requests[0].body).toEqual({ serviceIds: [EMPLOYMENT_VERIFICATION] });
		const preAdverse = await run({
			resource: 'adverseAction',
			operation: 'startPreAdverse',
			caseId: byId(CASE_ID),
			adverseScreeningSelections: ['service-drug-1200-panel'],
		});
		expect(preAdverse.requests[0].body).toEqual({
			adverseScreeningSelections: ['service-drug-1200-panel'],
		});
		for (const operation of ['cancel', 'archive', 'unarchive', 'beginProcessing', 'place']) {
			const { requests } = await run({ resource: 'case', operation, caseId: byId(CASE_ID) });
			expect(requests[0].body).toBeUndefined();
		}
	});

	it("a 422 comes out as the API's own message, with what it means for the operation; the write is sent once", async () => {
		const refusal = {
			message: 'Cannot cancel a case that has already started.',
			error: 'Unprocessable Entity',
			statusCode: 422,
		};
		const answer: RecordingAnswer = (request) =>
			request.path.includes(OTHER_CASE) ? { status: 422, body: refusal } : {};
		const parameters = { resource: 'case', operation: 'cancel', caseId: twoCases.caseId };

		const { output, requests } = await runRecorded({
			parameters,
			items: twoCases.items,
			answer,
			continueOnFail: true,
		});
		expect(lines(requests)).toEqual([
			`POST /case/id/${CASE_ID}/cancel`,
			`POST /case/id/${OTHER_CASE}/cancel`,
		]);
		expect(output).toEqual([
			{ json: { caseId: CASE_ID, canceled: true }, pairedItem: { item: 0 } },
			{
				json: {
					error: 'Cannot cancel a case that has already started.',
					errorDescription: `The API cancels a case only before it has started. (HTTP 422 on POST /case/id/${OTHER_CASE}/cancel)`,
				},
				pairedItem: { item: 1 },
			},
		]);

		const error = await failureOf(runRecorded({ parameters, items: twoCases.items, answer }));
		expect(error?.message).toBe('Cannot cancel a case that has already started.');
		expect(error?.context?.itemIndex).toBe(1);
		expect(error?.description).toContain('the API carried out item 0 (1 of 2)');
	});

	it('a 422 without a body still names the status and the endpoint', async () => {
		const { output } = await runRecorded({
			parameters: { resource: 'invitation', operation: 'refresh', caseId: byId(CASE_ID) },
			answer: () => ({ status: 422 }),
			continueOnFail: true,
		});
		expect(output[0].json).toEqual({
			error: `The API answered HTTP 422 on PUT /case/id/${CASE_ID}/action/refreshinvite`,
			errorDescription: 'The candidate already began or finished onboarding.',
		});
	});

	it('a body that is no answer of the API is a clear error, saying the write may have been carried out', async () => {
		for (const body of ['<html>Welcome</html>', ['unexpected'], 42]) {
			const error = await failureOf(
				run(
					{ resource: 'case', operation: 'archive', caseId: byId(CASE_ID) },
					{ answer: () => ({ body }) },
				),
			);
			expect(error?.message).toBe(
				'The API answered POST /case/archive/{caseId} with an unexpected body [item 0]',
			);
			expect(error?.description).toMatch(
				/^It answered: .+\. The request was sent once and may have been carried out: check with Case > Get before running it again\.$/,
			);
		}
		const { output } = await run(
			{ resource: 'case', operation: 'cancel', caseId: byId(CASE_ID) },
			{ answer: () => ({ body: { status: 'canceled' } }) },
		);
		expect(output[0].json).toEqual({
			caseId: CASE_ID,
			canceled: true,
			response: { status: 'canceled' },
		});
	});

	describe('Get Candidate Info', () => {
		it('outputs the candidate unwrapped, without the password field', async () => {
			const { output, requests } = await run({
				resource: 'case',
				operation: 'getCandidateInfo',
				caseId: byId(CASE_ID),
			});
			expect(lines(requests)).toEqual([`GET /candidate/info/case/id/${CASE_ID}`]);
			const withoutPassword: IDataObject = { ...CANDIDATE };
			delete withoutPassword.password;
			expect(output[0].json).toEqual(withoutPassword);
			expect(output[0].json).not.toHaveProperty('password');
		});

		it('says what a 404 means, and refuses an answer without the candidate', async () => {
			const parameters = { resource: 'case', operation: 'getCandidateInfo', caseId: byId(CASE_ID) };
			const notFound = await failureOf(run(parameters, { answer: () => ({ status: 404 }) }));
			expect(notFound?.description).toMatch(/^No candidate is linked to the case yet/);
			const empty = await failureOf(run(parameters, { answer: () => ({ body: { cases: [] } }) }));
			expect(empty?.message).toBe(
				'The API answered GET /candidate/info/case/id/{caseId} without candidate [item 0]',
			);
			expect(empty?.description).toContain('an object with cases');
		});
	});

	describe('Update Candidate Info', () => {
		const update = (updateFields: IDataObject, more: IDataObject = {}) =>
			run({
				resource: 'case',
				operation: 'updateCandidateInfo',
				caseId: byId(CASE_ID),
				candidateId: 'candidate-9',
				updateFields,
				...more,
			});

		it('reads the candidate from the case when Candidate ID is empty, then sends the fields given', async () => {
			const { output, requests } = await update(
				{ givenName: 'Dwight', phone: '+1 (800) 555-0164', govtId: '333 22 1111' },
				{ candidateId: '' },
			);
			expect(lines(requests)).toEqual([
				`GET /case/id/${CASE_ID}`,
				`POST /candidate/id/candidate-1/update/case/id/${CASE_ID}`,
			]);
			expect(requests[1].body).toEqual({
				givenName: 'Dwight',
				phone: '+18005550164',
				govtId: '333-22-1111',
			});
			expect(output[0].json).toEqual({
				caseId: CASE_ID,
				candidateId: 'candidate-1',
				updated: true,
				sentFields: ['givenName', 'phone', 'govtId'],
			});
		});

		it('uses the Candidate ID given, and sends null for the fields to clear', async () => {
			const { requests } = await update({ clearFields: ['middleName'], email: 'a@example.com' });
			expect(lines(requests)).toEqual([`POST /candidate/id/candidate-9/update/case/id/${CASE_ID}`]);
			expect(requests[0].body).toEqual({ email: 'a@example.com', middleName: null });
		});

		it('says when the case names no candidate yet, before sending the update', async () => {
			const answer: RecordingAnswer = (request) =>
				request.method === 'GET'
					? { body: { cases: [{ ...CASE_SUMMARY, candidateId: undefined }] } }
					: {};
			const requests: RecordedRequest[] = [];
			const error = await failureOf(
				run(
					{
						resource: 'case',
						operation: 'updateCandidateInfo',
						caseId: byId(CASE_ID),
						updateFields: { phone: '+18005550164' },
					},
					{ answer: (request) => (requests.push(request), answer(request)) },
				),
			);
			expect(error?.message).toBe(
				'The case names no candidate yet, so Candidate ID cannot be read from it [item 0]',
			);
			expect(lines(requests)).toEqual([`GET /case/id/${CASE_ID}`]);
		});

		it.each([
			[{}, 'Update Fields is empty [item 0]'],
			[{ email: 'not-an-email' }, 'Email "not-an-email" is not an email address [item 0]'],
			[{ dob: '1991-02-30' }, 'Date of Birth "1991-02-30" is not a date [item 0]'],
			[
				{ phone: '800-555-0164' },
				'Phone "800-555-0164" is not a phone number in the form +[country code][number] [item 0]',
			],
			[
				{ phone: '+18005550164', clearFields: ['phone'] },
				'Phone is both given and in Clear Fields [item 0]',
			],
			[
				{ clearFields: ['email'] },
				'Clear Fields "email" is not a field that can be emptied [item 0]',
			],
			[{ familyName: 'Van Dyke' }, /^familyName contains characters the API does not accept/],
		])('refuses %j before any request', async (updateFields, message) => {
			const requests: RecordedRequest[] = [];
			const error = await failureOf(
				run(
					{
						resource: 'case',
						operation: 'updateCandidateInfo',
						caseId: byId(CASE_ID),
						updateFields,
					},
					{ answer: (request) => (requests.push(request), contractAnswer(request)) },
				),
			);
			if (typeof message === 'string') expect(error?.message).toBe(message);
			else expect(error?.message).toMatch(message);
			expect(requests).toEqual([]);
		});

		it('refuses a malformed Candidate ID before any request', async () => {
			const error = await failureOf(update({ phone: '+18005550164' }, { candidateId: 'a/b' }));
			expect(error?.message).toBe('Candidate ID "a/b" is not a valid ID [item 0]');
		});

		it('says what a 400 means: nothing the API could apply, e.g. locked personal data', async () => {
			const { output } = await runRecorded({
				parameters: {
					resource: 'case',
					operation: 'updateCandidateInfo',
					caseId: byId(CASE_ID),
					candidateId: 'candidate-9',
					updateFields: { givenName: 'Dwight' },
				},
				answer: () => ({ status: 400, body: { message: 'No valid updates', statusCode: 400 } }),
				continueOnFail: true,
			});
			expect(output[0].json.error).toBe('No valid updates');
			expect(output[0].json.errorDescription).toMatch(
				/^The request held no update the API could apply/,
			);
		});
	});

	describe('Invitation', () => {
		it('Get outputs the invitation unwrapped, without its token', async () => {
			const { output, requests } = await run({
				resource: 'invitation',
				operation: 'get',
				caseId: fromList(CASE_ID),
			});
			expect(lines(requests)).toEqual([`GET /invitation/case/${CASE_ID}`]);
			const withoutToken: IDataObject = { ...INVITATION };
			delete withoutToken.invitationToken;
			expect(output[0].json).toEqual({ caseId: CASE_ID, ...withoutToken });
			expect(JSON.stringify(output)).not.toContain(INVITATION.invitationToken);
		});

		it('Resend without New Email sends the current invitation’s email, read first', async () => {
			const { output, requests } = await run({
				resource: 'invitation',
				operation: 'resend',
				caseId: byId(CASE_ID),
			});
			expect(lines(requests)).toEqual([
				`GET /invitation/case/${CASE_ID}`,
				`POST /case/id/${CASE_ID}/action/resendinvite`,
			]);
			expect(requests[1].body).toEqual({ email: INVITATION.email });
			expect(output[0].json).toEqual({ caseId: CASE_ID, resent: true, email: INVITATION.email });
		});

		it('Resend refuses a New Email that is not one, and an invitation without an email, without resending', async () => {
			const requests: RecordedRequest[] = [];
			const bad = await failureOf(
				run(
					{ resource: 'invitation', operation: 'resend', caseId: byId(CASE_ID), newEmail: 'x@' },
					{ answer: (request) => (requests.push(request), contractAnswer(request)) },
				),
			);
			expect(bad?.message).toBe('New Email "x@" is not an email address [item 0]');
			expect(requests).toEqual([]);
			const noEmail = await run(
				{ resource: 'invitation', operation: 'resend', caseId: byId(CASE_ID) },
				{
					answer: (request) => (
						requests.push(request),
						{ body: { invitation: { ...INVITATION, email: undefined } } }
					),
				},
			).then(
				() => undefined,
				(error: Error) => error,
			);
			expect(noEmail?.message).toBe('The case’s invitation has no email to resend it to [item 0]');
			expect(lines(requests)).toEqual([`GET /invitation/case/${CASE_ID}`]);
		});
	});

	describe('Cancel Services and Start Pre-Adverse Action', () => {
		it.each([
			[
				{ resource: 'case', operation: 'cancelServices', serviceIds: [] },
				'Services is empty [item 0]',
			],
			[
				{ resource: 'case', operation: 'cancelServices', serviceIds: 'a, b/c' },
				'Services "b/c" is not a valid ID [item 0]',
			],
			[
				{ resource: 'adverseAction', operation: 'startPreAdverse', reason: '  ' },
				'Reason and Screenings are empty [item 0]',
			],
			[
				{
					resource: 'adverseAction',
					operation: 'startPreAdverse',
					adverseScreeningSelections: ['..'],
				},
				'Screenings ".." is not a valid ID [item 0]',
			],
		])('refuses %j before any request', async (parameters, message) => {
			const requests: RecordedRequest[] = [];
			const error = await failureOf(
				run(
					{ caseId: byId(CASE_ID), ...parameters },
					{ answer: (request) => (requests.push(request), contractAnswer(request)) },
				),
			);
			expect(error?.message).toBe(message);
			expect(requests).toEqual([]);
		});
	});

	describe('Get Services and Get Order Configuration', () => {
		it('Get Services reads one type when given, every type otherwise, one item per service', async () => {
			const legal = await run({
				resource: 'case',
				operation: 'getServices',
				caseId: byId(CASE_ID),
				serviceType: 'legal',
			});
			expect(lines(legal.requests)).toEqual([`GET /case/id/${CASE_ID}/services/legal`]);
			expect(legal.output.map((item) => item.json.serviceId)).toEqual([EMPLOYMENT_VERIFICATION]);
			const all = await run({ resource: 'case', operation: 'getServices', caseId: byId(CASE_ID) });
			expect(lines(all.requests)).toEqual([`GET /case/id/${CASE_ID}/services`]);
		});

		it('Get Services refuses an unknown type before any request, and an answer without the list', async () => {
			const unknown = await failureOf(
				run({
					resource: 'case',
					operation: 'getServices',
					caseId: byId(CASE_ID),
					serviceType: 'drugs',
				}),
			);
			expect(unknown?.message).toBe(
				'Service Type "drugs" is not a service type of the API [item 0]',
			);
			const noList = await failureOf(
				run(
					{ resource: 'case', operation: 'getServices', caseId: byId(CASE_ID) },
					{ answer: () => ({ body: '<html></html>' }) },
				),
			);
			expect(noList?.message).toBe(
				'The API answered GET /case/id/{caseId}/services without serviceGroupServices [item 0]',
			);
		});

		it('Get Order Configuration outputs the configuration with the case ID', async () => {
			const { output, requests } = await run({
				resource: 'case',
				operation: 'getOrderConfiguration',
				caseId: byId(CASE_ID),
			});
			expect(lines(requests)).toEqual([`GET /config/case/id/${CASE_ID}`]);
			expect(output[0].json).toEqual({ caseId: CASE_ID, ...ORDER_CONFIGURATION });
		});
	});

	describe('pickers', () => {
		it('getCountries offers each country by name with its two-letter code as the value', async () => {
			const { context } = createRecordingLoadOptionsContext({
				parameters: { resource: 'case', operation: 'create' },
				answer: contractAnswer,
			});
			expect(await loadOptions.getCountries.call(context as never)).toEqual([
				{ name: 'Canada', value: 'CA', description: 'CA · CAN' },
				{ name: 'United States', value: 'US', description: 'US · USA' },
			]);
		});

		it('getOrderedServices offers the services of the case, or the catalog before a case is chosen', async () => {
			const withCase = createRecordingLoadOptionsContext({
				parameters: { resource: 'case', operation: 'cancelServices', caseId: byId(CASE_ID) },
				answer: contractAnswer,
			});
			expect(await loadOptions.getOrderedServices.call(withCase.context as never)).toEqual([
				{
					name: 'Employment Verification',
					value: EMPLOYMENT_VERIFICATION,
					description: `Screening · ID: ${EMPLOYMENT_VERIFICATION}`,
				},
			]);
			const withoutCase = createRecordingLoadOptionsContext({
				parameters: { resource: 'case', operation: 'cancelServices' },
				answer: contractAnswer,
			});
			const catalog = await loadOptions.getOrderedServices.call(withoutCase.context as never);
			expect(catalog.length).toBeGreaterThan(10);
			expect(withoutCase.requests).toEqual([]);
		});
	});
});
