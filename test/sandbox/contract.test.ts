/* eslint-disable @typescript-eslint/no-explicit-any -- sandbox answers are read as loose JSON */
/**
 * The sandbox against the API reference (api/contract.json, checked by api/contract.ts): every route it serves,
 * driven with realistic requests, takes a request the reference accepts and gives an answer the reference
 * gives; and it refuses what the reference refuses, with the reference's status and a message naming why.
 */
import { answerProblems, findOperation, listOperations, requestProblems } from '../../api/contract';
import { SERVICE_TYPES } from '../../nodes/shared/catalog';
import { DEMO_GROUPS, PACKAGES } from '../../sandbox';
import { API_ROUTES } from '../../sandbox/routes';
import { FINAL_CASE_DATA_STATUSES } from '../../sandbox/statuses';
import { caseBody, checkAnswer, orderOf, useSandboxClient } from '../helpers/sandbox';

const client = useSandboxClient({}, { signIn: false });

const SCREENING = SERVICE_TYPES.find((type) => type.name === 'Screening')!.id;
const EAST = DEMO_GROUPS[0].groupProfileId;
const SSN_TRACE = '29cd44ab-a8f0-4b27-868e-dc4be88ff541';
const EMPLOYMENT = '9ac65633-b4c4-4062-875c-3556db9d2a08';
const EDUCATION = '85307784-1f84-471a-8596-c8ea088c3a62';
const DRUG_PANEL = 'service-drug-10-panel';
const TB_TEST = 'service-ohs-tb-quantiferon-gold';
const COUNTY = 'fa226cb7-1214-4cdf-9296-6120a7376926';
const NATIONAL = 'd8e3dbdb-c2d7-4787-9736-86fffab74da4';

interface Exchange {
	method: string;
	path: string;
	token?: string;
	body?: unknown;
	headers?: Record<string, string>;
}

/** `METHOD /template` of every reference operation the walk below went through. */
const walked = new Set<string>();

/**
 * Sends a request the reference accepts (checked first) and returns the answer after checking it is a 200
 * the reference gives to it: status, media type and body.
 */
async function exchange({ method, path, token, body, headers = {} }: Exchange): Promise<any> {
	const url = new URL(path, client.sandbox.url);
	const sent: Record<string, string> = {
		...(body === undefined ? {} : { 'content-type': 'application/json' }),
		...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
		...headers,
	};
	const label = `${method} ${path}`;
	const request = { method, path: url.pathname, query: url.searchParams, headers: sent, body };
	expect({ label, problems: requestProblems(request) }).toEqual({ label, problems: [] });

	const response = await fetch(url, {
		method,
		headers: sent,
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await response.text();
	const contentType = response.headers.get('content-type') ?? undefined;
	const answer =
		text === '' ? undefined : contentType?.includes('application/json') ? JSON.parse(text) : text;
	expect({ label, status: response.status, answer }).toEqual({ label, status: 200, answer });
	expect({
		label,
		problems: answerProblems(method, url.pathname, response.status, contentType, answer),
	}).toEqual({ label, problems: [] });
	walked.add(`${method} ${findOperation(method, url.pathname)!.template}`);
	return answer;
}

const employmentOrderData = (employer: string, secureDocumentIds: string[] = []) => ({
	caseOrderDataTypeId: 'codt-employment',
	serviceId: EMPLOYMENT,
	metadata: {
		employer,
		position: 'Registered Nurse',
		city: 'Dallas',
		state: 'TX',
		country: 'US',
		monthBegin: '03',
		yearBegin: '2019',
		current: false,
		monthEnd: '08',
		yearEnd: '2023',
		contact: { email: 'hr@acme.example', phone: '+12145550100' },
		okToContact: true,
		staffingAgency: 'Nurses Now',
		secureDocumentIds,
	},
});

const RN_FIELDS = [
	{ fieldId: 'firstName', value: 'Ann' },
	{ fieldId: 'lastName', value: "O'Neil" },
	{ fieldId: 'licenseNumber', value: 'RN123456' },
	{ fieldId: 'certifyingBody', value: 'Texas Board of Nursing' },
];

describe('every route the sandbox serves', () => {
	it('is an operation of the reference', () => {
		const operations = new Set(listOperations());
		const served = API_ROUTES.map((route) => `${route.method} ${route.path}`);
		expect(served.filter((route) => !operations.has(route))).toEqual([]);
	});

	it('takes realistic requests the reference accepts and answers them as the reference does', async () => {
		const [east] = client.sandbox.demoCredentials;
		const auth = await exchange({
			method: 'POST',
			path: '/auth/api',
			body: { apiKey: east.apiKey, clientAccessToken: east.clientAccessToken },
		});
		const token: string = auth.token;
		const get = (path: string) => exchange({ method: 'GET', path, token });
		const post = (path: string, body?: unknown, headers?: Record<string, string>) =>
			exchange({ method: 'POST', path, token, body, headers });

		// Reference data.
		const packages = await get('/package/min/list');
		expect(packages.packages.length).toBeGreaterThan(0);
		await get('/package/min/id/pkg-healthcare');
		await get('/package/id/pkg-healthcare/services');
		await get('/package/id/pkg-driver/services/idv');
		const cplcs = await get('/service/cplc/list');
		await get('/service/cplc/list/all');
		await get(`/service/cplc/id/${cplcs.cplcList[0].id}`);
		const [documentType] = await get('/document/secure/type/list');
		const mimeTypes = await get('/document/secure/mimetypes');
		await get('/shipment/mask/list');
		await get(`/company/user/list?groupProfileId=${EAST}`);
		await post('/vbook/search', {
			searchDetails: { vbookTypeId: 'vbt_employment', nameQuery: 'acme' },
			listMetadata: { page: 0, pageSize: 25 },
		});

		// Secure documents: two files, one for the order, one granted to the case once it exists.
		const uploads = await post('/document/secure/upload', {
			files: [
				{ documentTypeId: documentType.id, mimeType: mimeTypes.list[0] },
				{ documentTypeId: documentType.id, mimeType: 'image/png' },
			],
		});
		for (const { url } of uploads.list) {
			const stored = await fetch(url, { method: 'PUT', body: Buffer.from('%PDF-1.7') });
			expect(stored.status).toBe(200);
		}
		const [paystub, license] = uploads.list.map((entry: { fileKey: string }) => entry.fileKey);
		const documents = await post('/document/secure/create', {
			list: [
				{
					originalFileName: 'paystub.pdf',
					documentTypeId: documentType.id,
					fileKey: paystub,
					title: 'Paystub',
					description: 'Last paystub at Acme',
					fileFormat: 'pdf',
				},
			],
		});
		const [{ secureDocumentId }] = documents.list;

		// A case of the customer-provided-PII flow, with every kind of order data the package takes.
		const created = await post(
			'/case/create',
			{
				...orderOf(SSN_TRACE, EMPLOYMENT, EDUCATION, 'service-cplc', TB_TEST, DRUG_PANEL),
				email: 'ann.oneil@example.com',
				givenName: 'Ann',
				middleName: 'J',
				familyName: "O'Neil",
				phone: '+15125550100',
				autoProcess: true,
				candidateConsentProvided: true,
				candidateDisclosuresAndAuthorizationDocumentIds: [secureDocumentId],
				orderData: [
					{ caseOrderDataTypeId: 'codt-dob', metadata: { dob: '1990-04-01' } },
					{ caseOrderDataTypeId: 'codt-govt-id', metadata: { govtId: '123-45-6789' } },
					{
						caseOrderDataTypeId: 'codt-current-candidate-address',
						metadata: {
							address1: '1 Main St',
							city: 'Austin',
							state: 'TX',
							postalCode: '78701',
							country: 'US',
						},
					},
					{
						caseOrderDataTypeId: 'codt-alias',
						metadata: { givenName: 'Annie', familyName: 'Lee' },
					},
					employmentOrderData('Acme Logistics', [secureDocumentId]),
					{
						caseOrderDataTypeId: 'codt-education',
						serviceId: EDUCATION,
						metadata: {
							institution: 'Valley State University',
							degree: 'BSN',
							city: 'Fresno',
							state: 'CA',
							country: 'US',
							current: false,
							monthEnd: '05',
							yearEnd: '2012',
						},
					},
					{
						caseOrderDataTypeId: 'codt-cplc',
						serviceId: 'service-cplc',
						metadata: { cplcId: 'cplc-registered-nurse', fields: RN_FIELDS },
					},
					{
						caseOrderDataTypeId: 'codt-drug-reason-for-test',
						serviceId: DRUG_PANEL,
						metadata: { reasonForTest: 'pre-employment' },
					},
				],
				orderConfig: {
					contacts: [
						{ type: 'authorization', email: 'hr@example.com', name: 'HR', phone: '+15125550101' },
					],
					aliasNameConfiguration: 'alias-all',
					serviceConfigs: { [EMPLOYMENT]: { verificationMethod: 'psv-first' } },
				},
				apiTrackingCode: 'REQ-7',
				apiTrackingUser: 'ats-user-1',
			},
			{ 'karmacheck-on-behalf-of': 'east.recruiter@sandbox-demo.example' },
		);
		const caseId: string = created.caseId;

		await post('/document/secure/create', {
			list: [
				{ originalFileName: 'license.png', documentTypeId: documentType.id, fileKey: license },
			],
			accessGrants: { caseId },
		});
		expect(await get(`/document/secure/list/case/id/${caseId}`)).toHaveLength(1);

		// The case and its reads.
		const [summary] = (await get(`/case/id/${caseId}`)).cases;
		expect((await get('/case/list')).cases).toHaveLength(1);
		await get(`/case/list/all?userId=${summary.crUserId}&packageId=${summary.packageId}`);
		await get(`/case/id/${caseId}/services`);
		await post(`/case/id/${caseId}/add/services`, {
			services: [{ id: COUNTY }],
			orderData: [
				{
					caseOrderDataTypeId: 'codt-jurisdiction-county',
					serviceId: COUNTY,
					metadata: { state: 'IL', county: 'Cook' },
				},
			],
			orderConfig: { contacts: [{ type: 'default', email: 'ops@example.com' }] },
		});
		const screening = (await get(`/case/id/${caseId}/data/${SCREENING}`)).data;
		const employment = screening.find(
			(data: { serviceId: string }) => data.serviceId === EMPLOYMENT,
		);
		const [record] = JSON.parse(employment.details).records;
		await post(`/case/data/id/${employment.id}/search/id/${record.searchId}/cancel`);

		// Testimony, and the CPLC definitions it makes the case's.
		const testimony = {
			testimonyTypeId: 'testimony-type-cplc',
			description: 'Registered nurse license',
			details: { cplcId: 'cplc-registered-nurse', fields: RN_FIELDS },
		};
		const { id: testimonyId } = await post(`/testimony/create/case/id/${caseId}`, testimony);
		await post(`/testimony/id/${testimonyId}/update/case/id/${caseId}`, {
			...testimony,
			details: { ...testimony.details, fields: [...RN_FIELDS, { fieldId: 'state', value: 'TX' }] },
		});
		await get(`/testimony/case/${caseId}`);
		expect((await get(`/service/cplc/case/id/${caseId}`)).cplcDefinitionsList).toHaveLength(1);
		await exchange({
			method: 'DELETE',
			path: `/testimony/id/${testimonyId}/detach/case/id/${caseId}`,
			token,
		});

		// After the order: its reads, the candidate, processing, reports and documents, a decision.
		const put = (path: string) => exchange({ method: 'PUT', path, token });
		await get(`/case/id/${caseId}/services/screenings`);
		await get(`/config/case/id/${caseId}`);
		await get('/candidate/countries');
		await get(`/candidate/info/case/id/${caseId}`);
		await post(`/candidate/id/${summary.candidateId}/update/case/id/${caseId}`, {
			phone: '+15125550102',
		});
		await put(`/case/id/${caseId}/action/beginprocessing`);
		const documentUrl = await get(`/document/secure/id/${secureDocumentId}/download/url`);
		expect((await fetch(documentUrl)).status).toBe(200);
		client.admin.scriptCase(caseId, { finalStatus: 'consider' });
		for (
			let guard = 0;
			guard < 20 && client.admin.getCase(caseId).caseStatus !== 'Complete';
			guard++
		)
			client.admin.advanceCase(caseId);
		expect((await fetch(await get(`/case/id/${caseId}/report/pdf/download/url`))).status).toBe(200);
		const [firstData] = (await get(`/case/id/${caseId}/data/${SCREENING}`)).data;
		await post(`/case/id/${caseId}/report/pdf/download/url`, {
			caseDataIds: [firstData.id],
			excludeCaseDataAttachments: true,
		});
		await get(`/case/id/${caseId}/data/esig/pdf`);
		await get(`/case/id/${caseId}/data/fcra/pdf/download`);
		await post(`/case/id/${caseId}/action/preadverse`, {
			reason: 'Records found',
			adverseScreeningSelections: [SSN_TRACE],
		});
		await get(`/case/id/${caseId}/preadverse/notice/pdf`);
		await get(`/case/id/${caseId}/preadverse/report/pdf/download`);
		await put(`/case/id/${caseId}/action/place`);
		expect(await post(`/case/archive/${caseId}`)).toBe('success');
		await post(`/case/unarchive/${caseId}`);

		// An invited case: its invitation, then its cancels.
		const invited = await post('/case/create', {
			...orderOf(SSN_TRACE, NATIONAL),
			email: 'bo.lee@example.com',
			givenName: 'Bo',
			familyName: 'Lee',
		});
		await get(`/invitation/case/${invited.caseId}`);
		await put(`/case/id/${invited.caseId}/action/refreshinvite`);
		await post(`/case/id/${invited.caseId}/action/resendinvite`, { email: 'bo@example.com' });
		await post(`/case/id/${invited.caseId}/services/cancel`, { serviceIds: [NATIONAL] });
		await post(`/case/id/${invited.caseId}/cancel`);

		// Every route the sandbox serves was walked.
		const served = API_ROUTES.map((route) => `${route.method} ${route.path}`).sort();
		expect([...walked].sort()).toEqual(served);
	});

	it.each(
		PACKAGES.flatMap(({ packageId }) =>
			FINAL_CASE_DATA_STATUSES.map((finalStatus) => [packageId, finalStatus] as const),
		),
	)(
		'answers every read of a %s case as the reference does through its whole lifecycle, ending %s',
		async (packageId, finalStatus) => {
			const [east] = client.sandbox.demoCredentials;
			const { token } = await exchange({
				method: 'POST',
				path: '/auth/api',
				body: { apiKey: east.apiKey, clientAccessToken: east.clientAccessToken },
			});
			const get = (path: string) => exchange({ method: 'GET', path, token });
			const { caseId } = await exchange({
				method: 'POST',
				path: '/case/create',
				token,
				body: caseBody({ packageId, excludeServices: undefined }),
			});
			client.admin.scriptCase(caseId, { finalStatus });
			const services = (await get(`/case/id/${caseId}/services`)).serviceGroupServices;
			const types = new Set<string>(
				services.map((service: { serviceTypeId: string }) => service.serviceTypeId),
			);
			const statuses = new Set<string>();
			for (let step = 0; step < 12; step++) {
				const [summary] = (await get(`/case/id/${caseId}`)).cases;
				statuses.add(`${summary.caseStatus}/${summary.secondaryStatus ?? ''}`);
				for (const type of types)
					for (const caseData of (await get(`/case/id/${caseId}/data/${type}`)).data)
						statuses.add(`${caseData.status}/${caseData.pendingStatusId ?? ''}`);
				if (summary.caseStatus === 'Complete') break;
				client.admin.advanceCase(caseId);
			}
			expect(statuses).toContain('Complete/');
			expect(statuses).toContain(`${finalStatus}/`);
			expect((await get('/case/list')).cases).toHaveLength(1);
		},
	);
});

describe('the contract gate', () => {
	beforeEach(async () => {
		const [east] = client.sandbox.demoCredentials;
		const auth = await client.call('POST', '/auth/api', {
			body: { apiKey: east.apiKey, clientAccessToken: east.clientAccessToken },
		});
		client.token = auth.body.token;
	});

	const messages = (body: { message: string | string[] }) =>
		Array.isArray(body.message) ? body.message : [body.message];

	it('refuses a body with a property the reference does not define (400), naming it, and creates nothing', async () => {
		const result = await client.call('POST', '/case/create', {
			body: {
				...caseBody(),
				candidate: { firstName: 'Ann', lastName: 'Lee', email: 'ann@example.com' },
				services: [{ id: SSN_TRACE }],
			},
		});
		expect(result.status).toBe(400);
		expect(result.body).toMatchObject({ error: 'Bad Request', statusCode: 400 });
		expect(messages(result.body)).toEqual(
			expect.arrayContaining([
				'body: candidate is not a property of the reference',
				'body: services is not a property of the reference',
			]),
		);
		expect(client.admin.summary().counts.cases).toBe(0);
	});

	it('refuses a property the reference does not define deep in the body, naming where', async () => {
		const result = await client.call('POST', '/case/create', {
			body: caseBody({
				orderData: [
					{
						caseOrderDataTypeId: 'codt-alias',
						metadata: { givenName: 'Annie', familyName: 'Lee', firstName: 'Annie' },
					},
				],
			}),
		});
		expect(result.status).toBe(400);
		expect(messages(result.body)).toContain(
			'body/orderData/0/metadata: firstName is not a property of the reference',
		);
	});

	it('refuses with 422 where the operation declares 422 and no 400', async () => {
		const created = await client.createCase();
		const testimony = await client.call('POST', `/testimony/create/case/id/${created.id}`, {
			body: { cplcId: 'cplc-registered-nurse', fields: RN_FIELDS },
		});
		expect(testimony.status).toBe(422);
		expect(testimony.body).toMatchObject({ error: 'Unprocessable Entity', statusCode: 422 });
		expect(messages(testimony.body)).toEqual(
			expect.arrayContaining([
				"body must have required property 'testimonyTypeId'",
				'body: cplcId is not a property of the reference',
			]),
		);
		const added = await client.call('POST', `/case/id/${created.id}/add/services`, {
			body: { services: [{ id: 'service-bankruptcy' }], packageId: 'pkg-healthcare' },
		});
		expect(added.status).toBe(422);
		expect(messages(added.body)).toEqual(['body: packageId is not a property of the reference']);
	});

	it('refuses a body without a required property (400), naming it', async () => {
		const body = caseBody();
		delete body.familyName;
		const result = await client.call('POST', '/case/create', { body });
		expect(result.status).toBe(400);
		expect(messages(result.body)).toEqual(["body must have required property 'familyName'"]);
	});

	it('refuses a value outside the enum the reference gives, naming the values it takes', async () => {
		const created = await client.createCase();
		const result = await client.call('GET', `/case/id/${created.id}/data/screening`);
		expect(result.status).toBe(400);
		expect(messages(result.body).join()).toMatch(
			/path parameter serviceTypeId must be one of "30bc2c03-c8dd-409a-8da6-e0070ea6a681"/,
		);
		const search = await client.call('POST', '/vbook/search', {
			body: { searchDetails: { nameQuery: 'acme' } },
		});
		expect(search.status).toBe(400);
		expect(messages(search.body)).toEqual([
			"body/searchDetails must have required property 'vbookTypeId'",
		]);
	});

	it('refuses a query parameter the reference does not define on GET /case/list (400)', async () => {
		for (const query of ['page=1', 'pageSize=100', 'userId=someone']) {
			const result = await client.call('GET', `/case/list?${query}`);
			expect(result.status).toBe(400);
			expect(messages(result.body)).toEqual([
				`query parameter ${query.split('=')[0]} is not defined by the reference`,
			]);
		}
		expect((await client.call('GET', '/case/list/all?userId=someone')).status).toBe(200);
	});

	it('answers a bad token with 403, before looking at the body', async () => {
		for (const token of ['not-a-token', `${client.token.slice(0, -2)}xx`]) {
			const result = await client.call('POST', '/case/create', { token, body: { nope: true } });
			expect(result.status).toBe(403);
			expect(result.body).toMatchObject({ error: 'Forbidden', statusCode: 403 });
		}
	});

	it('answers an unknown case on GET /case/id/{caseId} with 403', async () => {
		const result = await client.call('GET', '/case/id/4a1c7e2b-0000-4000-8000-000000000000');
		expect(result.status).toBe(403);
		expect(result.body).toMatchObject({ error: 'Forbidden', statusCode: 403 });
	});
});

describe('the answer check every sandbox suite runs (test/helpers/sandbox.ts)', () => {
	const request = { method: 'GET', path: '/case/list', headers: {} };
	const answer = (status: number, body: unknown) => ({
		status,
		body,
		contentType: 'application/json; charset=utf-8',
		retryAfter: null,
	});

	it('passes an answer the reference gives', () => {
		expect(() => checkAnswer(request, answer(200, { cases: [] }))).not.toThrow();
	});

	it('fails an answer of another shape, or of a status the operation does not declare', () => {
		expect(() => checkAnswer(request, answer(200, { caseList: [] }))).toThrow(
			/must have required property 'cases'/,
		);
		expect(() => checkAnswer(request, answer(201, { cases: [] }))).toThrow(/does not answer 201/);
		expect(() =>
			checkAnswer(
				request,
				answer(500, {
					message: "The sandbox's answer to GET /case/list is not one the API reference gives: x",
				}),
			),
		).toThrow(/not one the API reference gives/);
	});

	it('fails a request the reference refuses that the sandbox accepted', () => {
		const refused = { ...request, path: '/case/list?page=1' };
		expect(() => checkAnswer(refused, answer(200, { cases: [] }))).toThrow(
			/accepted GET \/case\/list\?page=1 \(200\), which the API reference refuses: query parameter page/,
		);
	});

	it('leaves alone what the reference has no answer for: a refused request, an injected fault', () => {
		const refused = { ...request, path: '/case/list?page=1' };
		expect(() => checkAnswer(refused, answer(400, { message: ['x'] }))).not.toThrow();
		expect(() => checkAnswer(request, answer(502, { message: 'Injected fault f1' }))).not.toThrow();
	});
});
