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
	CASE_ID,
	CASE_SUMMARY,
	CONTRACT_ANSWERS,
	CPLC_ID,
	contractAnswer,
	EMPLOYMENT_VERIFICATION,
	operationOf,
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
			const contentType = body === undefined ? undefined : 'application/json';
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
