/** Every endpoint of spec section 4 answers, with the shapes documented in sandbox/README.md. */
import { CPLC_DEFINITIONS } from '../../sandbox';
import { caseBody, tokenFor, useSandboxClient } from '../helpers/sandbox';

const client = useSandboxClient();

const RN_FIELDS = [
	{ fieldId: 'firstName', value: 'Ann' },
	{ fieldId: 'lastName', value: 'Lee' },
	{ fieldId: 'licenseNumber', value: 'RN123456' },
	{ fieldId: 'certifyingBody', value: 'State Board of Nursing' },
];

const listMetadata = (page: number, totalCount: number, totalPages: number) => ({
	page,
	pageSize: 10,
	totalCount,
	totalPages,
});

const expectKeys = (object: object, keys: string[]) =>
	expect(Object.keys(object).sort()).toEqual([...keys].sort());

const statusOf = async (method: string, path: string, body?: unknown) =>
	(await client.call(method, path, { body })).status;

describe('cases', () => {
	it('lists the group cases with 0-based listMetadata', async () => {
		for (let index = 0; index < 12; index++) await client.createCase();
		const second = await client.call('GET', '/case/list?page=1');
		expect(second.status).toBe(200);
		expect(second.body.caseList).toHaveLength(2);
		expect(second.body.listMetadata).toEqual(listMetadata(1, 12, 2));
		expect(await statusOf('GET', '/case/list?page=-1')).toBe(400);
	});

	it('creates from a package with contacts and DOT order data, and returns the case on GET', async () => {
		const drug = 'service-drug-10-panel';
		const body = caseBody({
			services: undefined,
			packageId: 'pkg-driver',
			orderConfig: { contacts: [{ type: 'authorization', email: 'hr@example.com' }] },
			orderData: [
				{ serviceId: drug, type: 'codt-drug-reason-for-test', value: 'pre-employment' },
				{ serviceId: drug, type: 'codt-drug-testing-authority', value: 'FMCSA' },
			],
			aliases: [{ firstName: 'Annie', lastName: 'Lee' }],
		});
		const created = await client.createCase(body);
		expect(created).toMatchObject({
			packageId: 'pkg-driver',
			groupProfileId: 'group-profile-east',
			orderConfig: body.orderConfig,
			aliases: body.aliases,
		});
		expect(created.services).toHaveLength(4);

		expect((await client.call('GET', `/case/id/${created.id}`)).body).toEqual(created);
		expect(await statusOf('POST', '/case/create', caseBody({ packageId: 'pkg-nope' }))).toBe(400);
	});
});

describe('GET /package/id/{packageId}/services', () => {
	it('lists serviceName / serviceId pairs, 404 for an unknown package', async () => {
		const result = await client.call('GET', '/package/id/pkg-basic-criminal/services');
		expect(result.status).toBe(200);
		expect(result.body.servicesList[0]).toEqual({
			serviceName: 'SSN Trace',
			serviceId: '29cd44ab-a8f0-4b27-868e-dc4be88ff541',
		});
		expect(await statusOf('GET', '/package/id/pkg-nope/services')).toBe(404);
	});
});

describe('POST /document/secure/create', () => {
	it('creates documents with optional fileFormat that order data and testimony can refer to', async () => {
		const license = { fileName: 'license.pdf', fileFormat: 'pdf' };
		const content = Buffer.from('%PDF').toString('base64');
		const result = await client.call('POST', '/document/secure/create', {
			body: { documents: [{ ...license, content }, { fileName: 'x.png' }] },
		});
		expect(result.status).toBe(201);
		const [pdf, png] = result.body.secureDocumentList;
		expect(pdf).toMatchObject({ ...license, sizeBytes: 4, id: expect.any(String) });
		expect(png.fileFormat).toBeNull();

		const employment = '9ac65633-b4c4-4062-875c-3556db9d2a08';
		const withDocument = caseBody({
			services: [{ id: employment }],
			orderData: [{ serviceId: employment, employerName: 'Acme', secureDocumentIds: [pdf.id] }],
		});
		expect(await statusOf('POST', '/case/create', withDocument)).toBe(201);

		const foreign = await client.call('POST', '/case/create', {
			token: await tokenFor(client.sandbox, 1),
			body: {
				...withDocument,
				candidate: { firstName: 'B', lastName: 'C', email: 'b@example.com' },
			},
		});
		expect(foreign.status).toBe(400);
		expect(foreign.body.message.join()).toMatch(/secure document/);
	});
});

describe('POST /vbook/search', () => {
	it('pages with a 0-based page and pageSize 10', async () => {
		const search = async (body: object) =>
			(await client.call('POST', '/vbook/search', { body })).body;
		const first = await search({});
		expect(first.vbookList).toHaveLength(10);
		expect(first.listMetadata).toEqual(listMetadata(0, 25, 3));
		expect((await search({ page: 2 })).vbookList).toHaveLength(5);

		const schools = await search({ query: 'university', type: 'school' });
		expect(schools.vbookList.every((item: { type: string }) => item.type === 'school')).toBe(true);
		expect(schools.listMetadata.totalCount).toBe(5);
	});
});

describe('testimony and CPLC definitions (4.2)', () => {
	it('creates and updates testimony; the case then lists the definition with its fields', async () => {
		const created = await client.createCase();
		const definitionsPath = `/service/cplc/case/id/${created.id}`;
		expect((await client.call('GET', definitionsPath)).body).toEqual({ cplcDefinitionsList: [] });

		const testimony = await client.call('POST', `/testimony/create/case/id/${created.id}`, {
			body: { cplcId: 'cplc-registered-nurse', fields: RN_FIELDS, staffingAgency: 'Nurses Now' },
		});
		expect(testimony.status).toBe(201);
		expect(testimony.body).toMatchObject({
			caseId: created.id,
			cplcId: 'cplc-registered-nurse',
			staffingAgency: 'Nurses Now',
		});

		const updatePath = `/testimony/id/${testimony.body.id}/update/case/id/${created.id}`;
		const state = { fieldId: 'state', value: 'TX' };
		const updated = await client.call('PUT', updatePath, { body: { fields: [state] } });
		expect(updated.status).toBe(200);
		expect(updated.body.fields).toEqual([...RN_FIELDS, state]);

		const definitions = await client.call('GET', definitionsPath);
		expect(definitions.status).toBe(200);
		const [definition] = definitions.body.cplcDefinitionsList;
		const fields: Array<{ ordinal: number; required: boolean; fieldId: string }> =
			definition.fields;
		expectKeys(definition, ['category', 'crStamp', 'enabled', 'fields', 'id', 'modStamp', 'name']);
		expectKeys(fields[0], [
			'cplcId',
			'crStamp',
			'displayLabel',
			'fieldId',
			'id',
			'label',
			'modStamp',
			'ordinal',
			'placeholder',
			'required',
		]);
		expect(fields.map((field) => field.ordinal)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
		const required = fields.filter((field) => field.required).map((field) => field.fieldId);
		expect(required.sort()).toEqual(['certifyingBody', 'firstName', 'lastName', 'licenseNumber']);
		expect(definition.crStamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
	});

	it('rejects a testimony missing required fields or for an unknown or disabled definition', async () => {
		const created = await client.createCase();
		const path = `/testimony/create/case/id/${created.id}`;
		const missing = await client.call('POST', path, {
			body: { cplcId: 'cplc-registered-nurse', fields: RN_FIELDS.slice(1) },
		});
		expect(missing.status).toBe(400);
		expect(missing.body.message.join()).toMatch(/firstName is required/);
		const disabled = CPLC_DEFINITIONS.find((definition) => !definition.enabled)!;
		for (const cplcId of [disabled.id, 'nope'])
			expect(await statusOf('POST', path, { cplcId, fields: RN_FIELDS })).toBe(400);
		expect(await statusOf('PUT', `/testimony/id/nope/update/case/id/${created.id}`, {})).toBe(404);
	});
});

describe('lists', () => {
	it('GET /shipment/mask/list', async () => {
		const result = await client.call('GET', '/shipment/mask/list');
		expect(result.status).toBe(200);
		expect(result.body.shipmentMaskList.length).toBeGreaterThan(0);
		expect(result.body.shipmentMaskList[0]).toEqual({
			id: expect.any(String),
			name: expect.any(String),
			description: expect.any(String),
		});
	});

	it("GET /company/user/list shows the caller's group, including its API client user", async () => {
		const result = await client.call('GET', '/company/user/list');
		expect(result.status).toBe(200);
		expect(result.body.groupProfileId).toBe('group-profile-east');
		const users: Array<{ groupProfileId: string; username: string }> = result.body.userList;
		expect(users.every((user) => user.groupProfileId === 'group-profile-east')).toBe(true);
		expect(users.some((user) => user.username.includes('api'))).toBe(true);
		expect(await statusOf('GET', '/company/user/list?groupProfileId=group-profile-west')).toBe(403);
	});
});

describe('unknown routes', () => {
	it('answer 404 with the JSON error body', async () => {
		const result = await client.call('GET', '/nope');
		expect(result.status).toBe(404);
		expect(result.body).toEqual({
			message: 'Cannot GET /nope',
			error: 'Not Found',
			statusCode: 404,
		});
	});
});
