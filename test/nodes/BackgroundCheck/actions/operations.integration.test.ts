/**
 * Every operation of the Background Check node, run through its execute function against the sandbox over
 * real HTTP: the output items, and the request the sandbox received (method, path, query, body).
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { CASE_DATA_STATUSES, PENDING_STATUSES } from '../../../../nodes/shared/catalog';
import {
	COUNTY_CRIMINAL,
	EMPLOYMENT_VERIFICATION,
	FACIS,
	fullCaseOrderBody,
	fullCaseOrderParameters,
	PENDING,
	SSN_TRACE,
} from '../../../fixtures/fullCaseOrder';
import { nurseTestimonyBody, nurseTestimonyParameters } from '../../../fixtures/nurseTestimony';
import { byId, fromList, itemWithFile } from '../../../helpers/executeContext';
import { createCase, useNodeSandbox } from '../../../helpers/nodeSandbox';

const DRUG_PANEL = 'service-drug-10-panel';

const context = useNodeSandbox();

const run = (resource: string, operation: string, parameters: IDataObject = {}) =>
	context.run({ resource, operation, ...parameters });
const createDocuments = (items: INodeExecutionData[], parameters: IDataObject = {}) =>
	context.run({ resource: 'secureDocument', operation: 'create', ...parameters }, { items });

/** Expects the last API request to be `method path`, with `status` and exactly `body` when given. */
function expectLastRequest(
	method: string,
	path: string,
	{ status, body }: { status?: number; body?: unknown } = {},
) {
	const request = context.apiRequests().at(-1)!;
	expect(request).toMatchObject(status === undefined ? { method, path } : { method, path, status });
	if (body !== undefined) expect(request.body).toEqual(body);
}

const requestLines = () => context.apiRequests().map((entry) => `${entry.method} ${entry.path}`);

async function createSecureDocument(): Promise<string> {
	const pdf = itemWithFile('license.pdf', Buffer.from('%PDF-1.4 license'), 'application/pdf');
	const [document] = await createDocuments([pdf]);
	return document.json.id as string;
}

describe('Case', () => {
	it('Create sends every typed field in the body and returns the case with status meanings', async () => {
		const documentId = await createSecureDocument();
		const email = `maria.garcia.${Date.now()}@example.com`;
		const output = await context.run({
			...fullCaseOrderParameters({ firstName: 'Maria', email }, documentId),
			// Empty rows and values, as the editor leaves them, are not sent.
			aliases: {
				alias: [
					{ firstName: 'Maria', lastName: 'Smith', middleName: '' },
					{ firstName: '', middleName: '', lastName: '' },
				],
			},
			contacts: {
				contact: [
					{ type: 'authorization', name: 'Pat Lee', email: 'pat.lee@example.com', phone: '' },
					{ type: '__other', customType: 'billing', email: 'billing@example.com' },
				],
			},
		});

		expectLastRequest('POST', '/case/create', {
			status: 201,
			body: fullCaseOrderBody(email, documentId),
		});

		expect(output).toHaveLength(1);
		const created = output[0];
		expect(created.pairedItem).toEqual({ item: 0 });
		expect(created.json).toMatchObject({
			candidate: { email },
			packageId: 'pkg-healthcare',
			apiTrackingCode: 'REQ-1001',
		});
		const services = created.json.services as Array<Record<string, unknown>>;
		expect(services.map((service) => service.serviceId)).toEqual(
			expect.arrayContaining(['service-bankruptcy', 'service-drug-5555N-panel', SSN_TRACE]),
		);
		expect(services.map((service) => service.serviceId)).not.toContain(FACIS);
		for (const service of services) {
			expect(service).toMatchObject({
				statusId: PENDING.statusId,
				statusName: 'pending',
				statusMeaning: 'In progress',
			});
		}
	});

	it('Get returns the case picked from the list or by ID, with status names next to status IDs', async () => {
		const created = await createCase(context);
		for (const caseId of [fromList(created.id as string), byId(created.id as string)]) {
			const [output] = await run('case', 'get', { caseId });
			expect(output.json).toMatchObject({ id: created.id, candidate: created.candidate });
			const [service] = output.json.services as IDataObject[];
			expect(service).toMatchObject({ statusMeaning: 'In progress' });
		}
		const gets = context.apiRequests().filter((entry) => entry.method === 'GET');
		const path = `/case/id/${created.id}`;
		expect(gets.map((entry) => entry.path)).toEqual([path, path]);
	});

	it('Get Many walks the pages with Return All, and stops at the limit otherwise', async () => {
		const ids = [];
		for (let index = 0; index < 12; index++) ids.push((await createCase(context)).id);
		const before = context.apiRequests().length;

		const all = await run('case', 'getMany', { returnAll: true });
		expect(all.map((item) => item.json.id).sort()).toEqual([...ids].sort());
		expect(all.every((item) => (item.pairedItem as { item: number }).item === 0)).toBe(true);
		const pages = context.apiRequests().slice(before);
		expect(pages.map((entry) => [entry.method, entry.path, entry.query.page])).toEqual([
			['GET', '/case/list', '0'],
			['GET', '/case/list', '1'],
		]);

		expect(await run('case', 'getMany', { returnAll: false, limit: 3 })).toHaveLength(3);
		const limitedPages = context.apiRequests().slice(before + 2);
		expect(limitedPages.map((entry) => entry.query.page)).toEqual(['0']);
	});

	it('Add Services posts services[].id and returns the case with the new services', async () => {
		const created = await createCase(context);
		const [output] = await run('case', 'addServices', {
			caseId: byId(created.id as string),
			services: ['service-bankruptcy', FACIS],
			customServiceIds: 'drug-service-H17P-panel',
		});
		const added = ['service-bankruptcy', FACIS, 'drug-service-H17P-panel'];
		expectLastRequest('POST', `/case/id/${created.id}/add/services`, {
			body: { services: added.map((id) => ({ id })) },
		});
		const services = output.json.services as Array<{ serviceId: string }>;
		expect(services.map((service) => service.serviceId)).toEqual(
			expect.arrayContaining([SSN_TRACE, ...added]),
		);
	});

	it('Get Data returns one item per case data, with status and pending-status names and meanings', async () => {
		const created = await createCase(context, { services: [EMPLOYMENT_VERIFICATION, DRUG_PANEL] });
		context.sandbox.admin.scriptCase(created.id as string, { holdAtStep: 3 });
		const services = created.services as Array<{ serviceId: string; serviceTypeId: string }>;
		const employmentType = services.find(
			(service) => service.serviceId === EMPLOYMENT_VERIFICATION,
		)!.serviceTypeId;
		// Walk the case until the drug screening shows a pending status.
		for (let step = 0; step < 3; step++) context.sandbox.admin.advanceCase(created.id as string);

		const output = await run('case', 'getData', {
			caseId: byId(created.id as string),
			serviceTypeId: byId(employmentType),
		});
		expectLastRequest('GET', `/case/id/${created.id}/data/${employmentType}`);
		expect(output.length).toBeGreaterThanOrEqual(2);
		for (const item of output) {
			const known = CASE_DATA_STATUSES.find((status) => status.statusId === item.json.statusId)!;
			expect(item.json).toMatchObject({ statusName: known.status, statusMeaning: known.meaning });
		}
		const byService = (serviceId: string) =>
			output.find((item) => item.json.serviceId === serviceId)!.json;
		const { records } = byService(EMPLOYMENT_VERIFICATION).details as { records: IDataObject[] };
		expect(records[0]).toMatchObject({
			searchId: expect.any(String),
			statusMeaning: expect.any(String),
		});
		const drug = byService(DRUG_PANEL);
		const pending = PENDING_STATUSES.find(
			(status) => status.pendingStatusId === drug.pendingStatusId,
		);
		expect(pending).toBeDefined();
		expect(drug).toMatchObject({
			pendingStatusName: pending!.name,
			pendingStatusAppliesTo: 'drug screenings',
		});
	});
});

describe('Case Data', () => {
	it('Cancel Search posts to the search record and returns the case data', async () => {
		const created = await createCase(context, { services: [EMPLOYMENT_VERIFICATION] });
		const caseData = context.sandbox.admin.getCase(created.id as string).caseData[0];
		const searchId = caseData.details.records![0].searchId;

		const [output] = await run('caseData', 'cancelSearch', { caseDataId: caseData.id, searchId });

		expectLastRequest('POST', `/case/data/id/${caseData.id}/search/id/${searchId}/cancel`, {
			status: 200,
			body: {},
		});
		expect(output.json).toMatchObject({ id: caseData.id, serviceId: EMPLOYMENT_VERIFICATION });
		const record = (output.json.details as { records: IDataObject[] }).records[0];
		expect(record).toMatchObject({
			searchId,
			statusName: 'canceled',
			statusMeaning: 'Not performed',
		});
	});
});

describe('Package', () => {
	it('Get Services returns one item per service, cut to the limit unless Return All', async () => {
		const packageId = 'pkg-basic-criminal';
		const all = await run('package', 'getServices', { packageId, returnAll: true });
		expect(all.map((item) => item.json.serviceId)).toEqual([
			SSN_TRACE,
			'd8e3dbdb-c2d7-4787-9736-86fffab74da4',
			COUNTY_CRIMINAL,
			'03635d39-c9df-418f-948d-10d38a7e06db',
		]);
		expect(all[0].json).toEqual({ serviceName: 'SSN Trace', serviceId: SSN_TRACE });
		expect(await run('package', 'getServices', { packageId, limit: 2 })).toHaveLength(2);
		const line = 'GET /package/id/pkg-basic-criminal/services';
		expect(requestLines()).toEqual([line, line]);
	});
});

describe('Secure Document', () => {
	it('Create sends the item’s binary file in base64 with its format and returns the document', async () => {
		const content = Buffer.from('%PDF-1.4 diploma scan');
		const file = itemWithFile('diploma.PDF', content, 'application/pdf');
		const [output] = await createDocuments([file], { options: { description: 'Nursing diploma' } });
		const [request] = context.apiRequests();
		expect(request).toMatchObject({ method: 'POST', path: '/document/secure/create', status: 201 });
		const document = { fileName: 'diploma.PDF', fileFormat: 'pdf' };
		expect(request.body).toEqual({
			documents: [
				{ ...document, description: 'Nursing diploma', content: content.toString('base64') },
			],
		});
		expect(output.json).toMatchObject({
			...document,
			id: expect.any(String),
			sizeBytes: content.length,
		});
		expect(output.pairedItem).toEqual({ item: 0 });
	});

	it('Create sends one record per named binary field, with a chosen file format and name', async () => {
		const item = itemWithFile('front.png', Buffer.from('front'), 'image/png', 'front');
		item.binary!.back = itemWithFile('back.png', Buffer.from('back'), 'image/png').binary!.data;
		const output = await createDocuments([item], {
			binaryPropertyName: 'front, back',
			fileFormat: 'image/png',
			additionalDocumentFields: '{ "description": "Driver license" }',
		});
		expect(context.apiRequests()[0].body).toEqual({
			documents: ['front', 'back'].map((side) => ({
				fileName: `${side}.png`,
				fileFormat: 'image/png',
				content: Buffer.from(side).toString('base64'),
				description: 'Driver license',
			})),
		});
		expect(output.map((entry) => entry.json.fileName)).toEqual(['front.png', 'back.png']);
	});
});

describe('Verification Book', () => {
	const search = (parameters: IDataObject) => run('verificationBook', 'search', parameters);

	it('Search walks every page with Return All (0-based page in the body)', async () => {
		const output = await search({ returnAll: true });
		expect(output).toHaveLength(25);
		expect(new Set(output.map((item) => item.json.id)).size).toBe(25);
		expect(context.apiRequests().map((entry) => [entry.method, entry.path, entry.body])).toEqual([
			['POST', '/vbook/search', { page: 0 }],
			['POST', '/vbook/search', { page: 1 }],
			['POST', '/vbook/search', { page: 2 }],
		]);
	});

	it('Search sends the text and entry type, and reads one page for a small limit', async () => {
		const output = await search({ query: 'University', entryType: 'school', limit: 3 });
		expect(output).toHaveLength(3);
		const school = { type: 'school', name: expect.stringContaining('University') };
		for (const item of output) expect(item.json).toMatchObject(school);
		expect(context.apiRequests().map((entry) => entry.body)).toEqual([
			{ query: 'University', type: 'school', page: 0 },
		]);
	});
});

describe('Testimony and CPLC', () => {
	it('Create, Update and Get Definitions work together on one case', async () => {
		const created = await createCase(context);
		const documentId = await createSecureDocument();
		const caseId = byId(created.id as string);

		const [testimony] = await context.run(nurseTestimonyParameters(caseId, documentId));
		expectLastRequest('POST', `/testimony/create/case/id/${created.id}`, {
			status: 201,
			body: nurseTestimonyBody(documentId),
		});
		expect(testimony.json).toMatchObject({
			id: expect.any(String),
			caseId: created.id,
			cplcId: 'cplc-registered-nurse',
		});

		const additionalInfo = { fieldId: 'additionalInfo', value: 'Compact license' };
		const [updated] = await run('testimony', 'update', {
			testimonyId: testimony.json.id,
			caseId: fromList(created.id as string),
			licenseFields: { state: 'OK' },
			customFields: { field: [additionalInfo] },
		});
		const state = { fieldId: 'state', value: 'OK' };
		expectLastRequest('PUT', `/testimony/id/${testimony.json.id}/update/case/id/${created.id}`, {
			status: 200,
			body: { fields: [state, additionalInfo] },
		});
		const kept = { fieldId: 'licenseNumber', value: 'RN123456' };
		expect(updated.json.fields).toEqual(expect.arrayContaining([state, kept, additionalInfo]));

		const definitions = await run('cplc', 'getDefinitions', { caseId });
		expectLastRequest('GET', `/service/cplc/case/id/${created.id}`);
		expect(definitions).toHaveLength(1);
		const [definition] = definitions;
		expect(definition.json).toMatchObject({
			id: 'cplc-registered-nurse',
			name: 'RN',
			enabled: true,
		});
		const ordinals = (definition.json.fields as Array<{ ordinal: number }>).map(
			(field) => field.ordinal,
		);
		expect(ordinals).toEqual([...ordinals].sort((a, b) => a - b));
	});
});

describe('Reference lists', () => {
	it('Shipment Mask > Get Many returns the masks', async () => {
		const output = await run('shipmentMask', 'getMany', { returnAll: true });
		expect(output.map((item) => item.json.id)).toEqual([
			'shipment-mask-candidate-home',
			'shipment-mask-employer-site',
			'shipment-mask-clinic',
		]);
		expect(requestLines()).toEqual(['GET /shipment/mask/list']);
	});

	it('Company User > Get Many returns the users of the credential’s group, cut to the limit', async () => {
		const output = await run('companyUser', 'getMany', { limit: 2 });
		expect(output).toHaveLength(2);
		for (const item of output)
			expect(item.json).toMatchObject({ groupProfileId: 'group-profile-east' });
		expect(requestLines()).toEqual(['GET /company/user/list']);
	});
});
