/**
 * Every operation of the Background Check node, run through its execute function against the sandbox over
 * real HTTP: the output items (the API's answers unwrapped), and the request the sandbox received (method,
 * path, query, body), which the sandbox checks against the API reference.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { requestProblems } from '../../../../api/contract';
import { CASE_DATA_STATUSES, SERVICE_TYPES } from '../../../../nodes/shared/catalog';
import {
	EDUCATION_VERIFICATION,
	EMPLOYMENT_VERIFICATION,
	FACIS,
	fullCaseOrderBody,
	fullCaseOrderParameters,
	HEALTHCARE_PACKAGE,
	ORDERED_BY,
	PENDING,
	SSN_TRACE,
} from '../../../fixtures/fullCaseOrder';
import { nurseTestimonyBody, nurseTestimonyParameters } from '../../../fixtures/nurseTestimony';
import { byId, fromList, itemWithFile } from '../../../helpers/executeContext';
import {
	BASIC_CRIMINAL,
	caseParameters,
	HEALTHCARE,
	orderCase,
	useNodeSandbox,
} from '../../../helpers/nodeSandbox';

const SCREENING = SERVICE_TYPES.find((type) => type.name === 'Screening')!.id;

const context = useNodeSandbox();

const run = (resource: string, operation: string, parameters: IDataObject = {}) =>
	context.run({ resource, operation, ...parameters });
const uploadDocuments = (items: INodeExecutionData[], parameters: IDataObject = {}) =>
	context.run({ resource: 'secureDocument', operation: 'create', ...parameters }, { items });

/** Expects the last API request to be `method path`, answered 200, with exactly `body` when given. */
function expectLastRequest(method: string, path: string, body?: unknown) {
	const request = context.apiRequests().at(-1)!;
	expect(request).toMatchObject({ method, path, status: 200 });
	if (body !== undefined) expect(request.body).toEqual(body);
}

const requestLines = () =>
	context.apiRequests().map((entry) => `${entry.method} ${entry.path}${queryOf(entry.query)}`);
const queryOf = (query: Record<string, string>) => {
	const text = new URLSearchParams(query).toString();
	return text ? `?${text}` : '';
};

async function uploadAuthorization(): Promise<string> {
	const pdf = itemWithFile('authorization.pdf', Buffer.from('%PDF-1.4 signed'), 'application/pdf');
	const [document] = await uploadDocuments([pdf]);
	if (document.json.error) throw new Error(`upload failed: ${JSON.stringify(document.json)}`);
	return document.json.secureDocumentId as string;
}

describe('every request the sandbox received in this file', () => {
	afterEach(() => {
		for (const entry of context.allRequests())
			expect({
				request: `${entry.method} ${entry.path}`,
				problems: entry.path.startsWith('/storage/')
					? []
					: requestProblems({
							method: entry.method,
							path: entry.path,
							query: entry.query,
							body: entry.body ?? undefined,
						}),
			}).toEqual({ request: `${entry.method} ${entry.path}`, problems: [] });
	});

	describe('Case', () => {
		it('Create sends the flat body of the customer-provided data flow and outputs the new case’s IDs', async () => {
			const documentId = await uploadAuthorization();
			const email = `maria.garcia.${Date.now()}@example.com`;
			const output = await context.run(
				fullCaseOrderParameters({ firstName: 'Maria', email }, documentId),
			);

			expectLastRequest('POST', '/case/create', fullCaseOrderBody(email, documentId));
			expect(output).toHaveLength(1);
			expect(output[0].pairedItem).toEqual({ item: 0 });
			expect(output[0].json).toEqual({
				caseId: expect.any(String),
				caseInvitationId: expect.any(String),
			});

			const [read] = await run('case', 'get', { caseId: byId(output[0].json.caseId as string) });
			expect(read.json).toMatchObject({
				id: output[0].json.caseId,
				candidateEmail: email,
				candidateGivenName: 'Maria',
				candidateFamilyName: 'Garcia-López',
				packageId: HEALTHCARE_PACKAGE,
				apiTrackingCode: 'REQ-1001',
				isCustomerProvidedPii: 1,
			});
		});

		it('Create sends the ordering user as the karmacheck-on-behalf-of header', async () => {
			const email = `ordered.${Date.now()}@example.com`;
			await context.run(
				caseParameters({ candidateEmail: email, options: { orderedBy: ORDERED_BY } }),
			);
			const request = context.apiRequests().at(-1)!;
			expect(request).toMatchObject({ method: 'POST', path: '/case/create', status: 200 });
			expect(request.headers['karmacheck-on-behalf-of']).toBe(ORDERED_BY);
		});

		it('Create in the candidate onboarding flow sends the minimum, with the package picked from the list', async () => {
			const email = `ann.${Date.now()}@example.com`;
			const [created] = await context.run(
				caseParameters({ packageId: fromList(BASIC_CRIMINAL), candidateEmail: email }),
			);
			expectLastRequest('POST', '/case/create', {
				packageId: BASIC_CRIMINAL,
				email,
				givenName: 'Ann',
				familyName: "O'Neil",
			});
			expect(Object.keys(created.json).sort()).toEqual(['caseId', 'caseInvitationId']);
		});

		it('Get returns the case itself, picked from the list or by ID, with the names of its status IDs', async () => {
			const created = await orderCase(context);
			for (const caseId of [fromList(created.id), byId(created.id)]) {
				const output = await run('case', 'get', { caseId });
				expect(output).toHaveLength(1);
				expect(output[0].json).toMatchObject({
					id: created.id,
					candidateEmail: created.email,
					candidateGivenName: 'Ann',
					caseStatus: 'Pending',
					caseStatusName: 'Pending',
					secondaryStatusName: 'Waiting for Authorization',
				});
				expect(output[0].json).not.toHaveProperty('cases');
			}
			expect(requestLines()).toEqual(
				expect.arrayContaining([`GET /case/id/${created.id}`, `GET /case/id/${created.id}`]),
			);
		});

		it('Get Many returns the active cases, all of them with Return All and Limit applied here', async () => {
			const ids = [];
			for (let index = 0; index < 4; index++) ids.push((await orderCase(context)).id);
			const before = context.apiRequests().length;

			const all = await run('case', 'getMany', { returnAll: true });
			expect(all.map((item) => item.json.id)).toEqual(expect.arrayContaining(ids));
			expect(all.every((item) => (item.pairedItem as { item: number }).item === 0)).toBe(true);
			expect(await run('case', 'getMany', { limit: 3 })).toHaveLength(3);
			expect(requestLines().slice(before)).toEqual(['GET /case/list', 'GET /case/list']);
		});

		it('Get Many of all cases filters by package', async () => {
			const healthcare = await orderCase(context, { packageId: byId(HEALTHCARE) });
			const basic = await orderCase(context);
			const before = context.apiRequests().length;
			const output = await run('case', 'getMany', {
				scope: 'all',
				returnAll: true,
				filters: { packageId: HEALTHCARE },
			});
			const ids = output.map((item) => item.json.id);
			expect(ids).toContain(healthcare.id);
			expect(ids).not.toContain(basic.id);
			expect(requestLines().slice(before)).toEqual([`GET /case/list/all?packageId=${HEALTHCARE}`]);
		});

		it('Add Services posts services[].id with order data, and outputs what was added', async () => {
			const created = await orderCase(context, {
				packageId: byId(HEALTHCARE),
				excludeServices: [EDUCATION_VERIFICATION],
			});
			const education = {
				institution: 'Valley State University',
				city: 'Austin',
				state: 'TX',
				country: 'US',
				current: false,
				monthEnd: '05',
				yearEnd: '2015',
			};
			const [output] = await run('case', 'addServices', {
				caseId: byId(created.id),
				services: [EDUCATION_VERIFICATION],
				orderData: {
					other: [
						{
							type: 'codt-education',
							serviceId: EDUCATION_VERIFICATION,
							metadata: JSON.stringify(education),
						},
					],
				},
				orderConfig: { educationVerificationMethod: 'psv' },
			});
			expectLastRequest('POST', `/case/id/${created.id}/add/services`, {
				services: [{ id: EDUCATION_VERIFICATION }],
				orderData: [
					{
						caseOrderDataTypeId: 'codt-education',
						serviceId: EDUCATION_VERIFICATION,
						metadata: education,
					},
				],
				orderConfig: {
					serviceConfigs: { [EDUCATION_VERIFICATION]: { verificationMethod: 'psv' } },
				},
			});
			expect(output.json).toEqual({
				caseId: created.id,
				success: true,
				serviceIds: [EDUCATION_VERIFICATION],
			});
			const services = context.sandbox.admin
				.getCase(created.id)
				.caseData.map((caseData) => caseData.serviceId);
			expect(services).toContain(EDUCATION_VERIFICATION);
		});

		it('Get Data returns one item per case data of the service type, with status names and meanings', async () => {
			const created = await orderCase(context, { packageId: byId(HEALTHCARE) });
			const output = await run('case', 'getData', {
				caseId: byId(created.id),
				serviceTypeId: fromList(SCREENING),
			});
			expectLastRequest('GET', `/case/id/${created.id}/data/${SCREENING}`);
			expect(output.length).toBeGreaterThanOrEqual(2);
			for (const item of output) {
				const known = CASE_DATA_STATUSES.find((status) => status.statusId === item.json.statusId)!;
				expect(item.json).toMatchObject({
					caseId: created.id,
					serviceTypeId: SCREENING,
					statusName: known.status,
					statusMeaning: known.meaning,
				});
			}
			expect(output.map((item) => item.json.serviceId)).toEqual(
				expect.arrayContaining([SSN_TRACE, EMPLOYMENT_VERIFICATION]),
			);
			expect(output.find((item) => item.json.serviceId === SSN_TRACE)!.json).toMatchObject({
				statusId: PENDING.statusId,
			});
		});
	});

	describe('Case Data', () => {
		it('Cancel Search posts to the search record with no body and outputs what was canceled', async () => {
			const created = await orderCase(context, { packageId: byId(HEALTHCARE) });
			const caseData = context.sandbox.admin
				.getCase(created.id)
				.caseData.find((entry) => entry.serviceId === EMPLOYMENT_VERIFICATION)!;
			const searches = JSON.parse(caseData.details as string) as {
				records: Array<{ searchId: string }>;
			};
			const searchId = searches.records[0].searchId;

			const [output] = await run('caseData', 'cancelSearch', { caseDataId: caseData.id, searchId });
			const request = context.apiRequests().at(-1)!;
			expect(request).toMatchObject({
				method: 'POST',
				path: `/case/data/id/${caseData.id}/search/id/${searchId}/cancel`,
			});
			expect([200, 204]).toContain(request.status);
			expect(request.body).toBeNull();
			expect(output.json).toEqual({ caseDataId: caseData.id, searchId, success: true });
		});
	});

	describe('Package', () => {
		it('Get Services returns one item per service of the package, cut to the limit unless Return All', async () => {
			const all = await run('package', 'getServices', {
				packageId: fromList(BASIC_CRIMINAL),
				returnAll: true,
			});
			expect(all.map((item) => item.json.serviceId)).toEqual([
				SSN_TRACE,
				'd8e3dbdb-c2d7-4787-9736-86fffab74da4',
				'fa226cb7-1214-4cdf-9296-6120a7376926',
				'03635d39-c9df-418f-948d-10d38a7e06db',
			]);
			expect(all[0].json).toMatchObject({ serviceName: 'SSN Trace', serviceId: SSN_TRACE });
			expect(
				await run('package', 'getServices', { packageId: byId(BASIC_CRIMINAL), limit: 2 }),
			).toHaveLength(2);
			const line = `GET /package/id/${BASIC_CRIMINAL}/services`;
			expect(requestLines()).toEqual([line, line]);
		});
	});

	describe('Secure Document', () => {
		// The sandbox refuses a PUT with an Authorization header, and a create whose file was not PUT (it logs
		// the API's requests, not the storage's).
		it('Upload asks for an upload address, PUTs the file there without the token, and creates the document', async () => {
			const content = Buffer.from('%PDF-1.4 diploma scan');
			const created = await orderCase(context);
			const before = context.apiRequests().length;
			const file = itemWithFile('diploma.PDF', content, 'application/pdf');
			const [output] = await uploadDocuments([file], {
				options: { accessCaseId: created.id, description: 'Nursing diploma' },
			});
			const [upload, create, ...others] = context.apiRequests().slice(before);
			expect(others).toEqual([]);
			expect(upload).toMatchObject({
				method: 'POST',
				path: '/document/secure/upload',
				status: 200,
			});
			expect(upload.body).toEqual({
				files: [
					{
						documentTypeId: 'candidate-disclosures-and-authorizations',
						mimeType: 'application/pdf',
					},
				],
			});
			expect(create).toMatchObject({
				method: 'POST',
				path: '/document/secure/create',
				status: 200,
			});
			expect(create.body).toEqual({
				list: [
					{
						originalFileName: 'diploma.PDF',
						documentTypeId: 'candidate-disclosures-and-authorizations',
						fileKey: expect.any(String),
						fileFormat: 'pdf',
						description: 'Nursing diploma',
					},
				],
				accessGrants: { caseId: created.id },
			});
			expect(output.json).toMatchObject({
				secureDocumentId: expect.any(String),
				originalFileName: 'diploma.PDF',
				fileFormat: 'pdf',
				caseId: created.id,
			});
			expect(output.pairedItem).toEqual({ item: 0 });
		});

		it('Upload sends one file per named binary field, in one request per step', async () => {
			const item = itemWithFile('front.png', Buffer.from('front'), 'image/png', 'front');
			item.binary!.back = itemWithFile('back.jpg', Buffer.from('back'), 'image/jpeg').binary!.data;
			const output = await uploadDocuments([item], { binaryPropertyName: 'front, back' });
			expect(output.map((entry) => [entry.json.originalFileName, entry.json.fileFormat])).toEqual([
				['front.png', 'png'],
				['back.jpg', 'jpg'],
			]);
			expect(new Set(output.map((entry) => entry.json.secureDocumentId)).size).toBe(2);
			expect(requestLines()).toEqual([
				'POST /document/secure/upload',
				'POST /document/secure/create',
			]);
		});
	});

	describe('Verification Book', () => {
		const search = (parameters: IDataObject) => run('verificationBook', 'search', parameters);

		it('Search advances the page with Return All until the last page', async () => {
			const output = await search({ entryType: 'vbt_education', returnAll: true });
			expect(output.length).toBeGreaterThan(0);
			expect(new Set(output.map((item) => item.json.id)).size).toBe(output.length);
			const pages = context.apiRequests().map((entry) => entry.body as IDataObject);
			expect(pages.map((body) => (body.listMetadata as IDataObject).page)).toEqual(
				pages.map((_body, index) => index),
			);
			for (const body of pages)
				expect(body.searchDetails).toEqual({ vbookTypeId: 'vbt_education' });
		});

		it('Search sends the name and book, and reads one page of the limit’s size', async () => {
			const output = await search({ entryType: 'vbt_education', query: 'University', limit: 3 });
			expect(output.length).toBeGreaterThan(0);
			expect(output.length).toBeLessThanOrEqual(3);
			for (const item of output) expect(item.json.name).toMatch(/University/);
			expect(context.apiRequests().map((entry) => entry.body)).toEqual([
				{
					searchDetails: { vbookTypeId: 'vbt_education', nameQuery: 'University' },
					listMetadata: { page: 0, pageSize: 3 },
				},
			]);
		});
	});

	describe('Testimony and CPLC', () => {
		it('Create, Update and Get Definitions work together on one case', async () => {
			const created = await orderCase(context, { packageId: byId(HEALTHCARE) });
			const caseId = byId(created.id);

			const [testimony] = await context.run(nurseTestimonyParameters(caseId));
			expectLastRequest('POST', `/testimony/create/case/id/${created.id}`, nurseTestimonyBody());
			expect(testimony.json).toEqual({
				id: expect.any(String),
				caseId: created.id,
				testimonyTypeId: 'testimony-type-cplc',
			});

			const [updated] = await run('testimony', 'update', {
				...nurseTestimonyParameters(fromList(created.id)),
				operation: 'update',
				testimonyId: testimony.json.id,
				licenseFields: { state: 'OK' },
			});
			const update = nurseTestimonyBody();
			update.details.fields = update.details.fields
				.filter((field) => field.fieldId !== 'expirationDate')
				.map((field) => (field.fieldId === 'state' ? { ...field, value: 'OK' } : field));
			expectLastRequest(
				'POST',
				`/testimony/id/${testimony.json.id}/update/case/id/${created.id}`,
				update,
			);
			expect(updated.json).toMatchObject({ id: expect.any(String), caseId: created.id });

			const employment = await run('testimony', 'create', {
				caseId,
				testimonyTypeId: 'aa99dc08-0238-4050-9176-bf322e077f71',
				details: JSON.stringify({
					employer: 'Acme',
					city: 'Austin',
					state: 'TX',
					country: 'US',
					current: true,
					position: 'Driver',
					monthBegin: '04',
					yearBegin: '2019',
					monthEnd: '',
					yearEnd: '',
				}),
			});
			expect(employment[0].json.id).toEqual(expect.any(String));

			const definitions = await run('cplc', 'getDefinitions', { caseId });
			expectLastRequest('GET', `/service/cplc/case/id/${created.id}`);
			expect(definitions.map((item) => item.json.id)).toContain('cplc-registered-nurse');
			const ordinals = (definitions[0].json.fields as Array<{ ordinal: number }>).map(
				(field) => field.ordinal,
			);
			expect(ordinals).toEqual([...ordinals].sort((a, b) => a - b));
		});
	});

	describe('Reference lists', () => {
		it('Shipment Mask > Get Many returns the masks', async () => {
			const output = await run('shipmentMask', 'getMany', { returnAll: true });
			expect(output.length).toBeGreaterThan(0);
			for (const item of output)
				expect(item.json).toEqual({
					sku: expect.any(String),
					name: expect.any(String),
					inStock: expect.any(Boolean),
				});
			expect(requestLines()).toEqual(['GET /shipment/mask/list']);
		});

		it('Company User > Get Many returns the users of the credential’s group, cut to the limit', async () => {
			const output = await run('companyUser', 'getMany', { limit: 1 });
			expect(output).toHaveLength(1);
			expect(output[0].json).toMatchObject({
				id: expect.any(String),
				givenName: expect.any(String),
				familyName: expect.any(String),
			});
			expect(requestLines()).toEqual(['GET /company/user/list']);
		});
	});
});

it('Create excludes a service of the package', async () => {
	const created = await orderCase(context, {
		packageId: byId(HEALTHCARE),
		excludeServices: [FACIS],
	});
	const services = context.sandbox.admin
		.getCase(created.id)
		.caseData.map((caseData) => caseData.serviceId);
	expect(services).not.toContain(FACIS);
	expect(services).toContain(SSN_TRACE);
});
