/** Every endpoint of spec section 4 answers, with the shapes documented in sandbox/README.md. */
import { CPLC_DEFINITIONS } from '../../sandbox';
import type { Sandbox } from '../../sandbox';
import { call, caseBody, createCase, startTestSandbox, tokenFor } from '../helpers/sandbox';

let sandbox: Sandbox;
let token: string;

beforeAll(async () => {
	sandbox = await startTestSandbox();
});
afterAll(() => sandbox.stop());
beforeEach(async () => {
	sandbox.admin.reset();
	token = await tokenFor(sandbox);
});

const RN_FIELDS = [
	{ fieldId: 'firstName', value: 'Ann' },
	{ fieldId: 'lastName', value: 'Lee' },
	{ fieldId: 'licenseNumber', value: 'RN123456' },
	{ fieldId: 'certifyingBody', value: 'State Board of Nursing' },
];

describe('cases', () => {
	it('lists the group cases with 0-based listMetadata', async () => {
		for (let index = 0; index < 12; index++) await createCase(sandbox, token);
		const second = await call(sandbox, 'GET', '/case/list?page=1', { token });
		expect(second.status).toBe(200);
		expect(second.body.caseList).toHaveLength(2);
		expect(second.body.listMetadata).toEqual({
			page: 1,
			pageSize: 10,
			totalCount: 12,
			totalPages: 2,
		});
		expect((await call(sandbox, 'GET', '/case/list?page=-1', { token })).status).toBe(400);
	});

	it('creates from a package with contacts and DOT order data, and returns the case on GET', async () => {
		const body = caseBody({
			services: undefined,
			packageId: 'pkg-driver',
			orderConfig: { contacts: [{ type: 'authorization', email: 'hr@example.com' }] },
			orderData: [
				{
					serviceId: 'service-drug-10-panel',
					type: 'codt-drug-reason-for-test',
					value: 'pre-employment',
				},
				{ serviceId: 'service-drug-10-panel', type: 'codt-drug-testing-authority', value: 'FMCSA' },
			],
			aliases: [{ firstName: 'Annie', lastName: 'Lee' }],
		});
		const created = await createCase(sandbox, token, body);
		expect(created).toMatchObject({
			packageId: 'pkg-driver',
			groupProfileId: 'group-profile-east',
			orderConfig: body.orderConfig,
			aliases: body.aliases,
		});
		expect(created.services).toHaveLength(4);

		const fetched = await call(sandbox, 'GET', `/case/id/${created.id}`, { token });
		expect(fetched.body).toEqual(created);
		expect(
			(
				await call(sandbox, 'POST', '/case/create', {
					token,
					body: caseBody({ packageId: 'pkg-nope' }),
				})
			).status,
		).toBe(400);
	});
});

describe('GET /package/id/{packageId}/services', () => {
	it('lists serviceName / serviceId pairs, 404 for an unknown package', async () => {
		const result = await call(sandbox, 'GET', '/package/id/pkg-basic-criminal/services', { token });
		expect(result.status).toBe(200);
		expect(result.body.servicesList[0]).toEqual({
			serviceName: 'SSN Trace',
			serviceId: '29cd44ab-a8f0-4b27-868e-dc4be88ff541',
		});
		expect((await call(sandbox, 'GET', '/package/id/pkg-nope/services', { token })).status).toBe(
			404,
		);
	});
});

describe('POST /document/secure/create', () => {
	it('creates documents with optional fileFormat that order data and testimony can refer to', async () => {
		const result = await call(sandbox, 'POST', '/document/secure/create', {
			token,
			body: {
				documents: [
					{
						fileName: 'license.pdf',
						fileFormat: 'pdf',
						content: Buffer.from('%PDF').toString('base64'),
					},
					{ fileName: 'x.png' },
				],
			},
		});
		expect(result.status).toBe(201);
		const [pdf, png] = result.body.secureDocumentList;
		expect(pdf).toMatchObject({
			fileName: 'license.pdf',
			fileFormat: 'pdf',
			sizeBytes: 4,
			id: expect.any(String),
		});
		expect(png.fileFormat).toBeNull();

		const employment = '9ac65633-b4c4-4062-875c-3556db9d2a08';
		const withDocument = caseBody({
			services: [{ id: employment }],
			orderData: [{ serviceId: employment, employerName: 'Acme', secureDocumentIds: [pdf.id] }],
		});
		expect(
			(await call(sandbox, 'POST', '/case/create', { token, body: withDocument })).status,
		).toBe(201);

		const westToken = await tokenFor(sandbox, 1);
		const foreign = await call(sandbox, 'POST', '/case/create', {
			token: westToken,
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
		const first = await call(sandbox, 'POST', '/vbook/search', { token, body: {} });
		expect(first.body.vbookList).toHaveLength(10);
		expect(first.body.listMetadata).toEqual({
			page: 0,
			pageSize: 10,
			totalCount: 25,
			totalPages: 3,
		});
		const last = await call(sandbox, 'POST', '/vbook/search', { token, body: { page: 2 } });
		expect(last.body.vbookList).toHaveLength(5);

		const schools = await call(sandbox, 'POST', '/vbook/search', {
			token,
			body: { query: 'university', type: 'school' },
		});
		expect(schools.body.vbookList.every((entry: { type: string }) => entry.type === 'school')).toBe(
			true,
		);
		expect(schools.body.listMetadata.totalCount).toBe(5);
	});
});

describe('testimony and CPLC definitions (4.2)', () => {
	it('creates and updates testimony; the case then lists the definition with its fields', async () => {
		const created = await createCase(sandbox, token);
		expect(
			(await call(sandbox, 'GET', `/service/cplc/case/id/${created.id}`, { token })).body,
		).toEqual({ cplcDefinitionsList: [] });

		const testimony = await call(sandbox, 'POST', `/testimony/create/case/id/${created.id}`, {
			token,
			body: { cplcId: 'cplc-registered-nurse', fields: RN_FIELDS, staffingAgency: 'Nurses Now' },
		});
		expect(testimony.status).toBe(201);
		expect(testimony.body).toMatchObject({
			caseId: created.id,
			cplcId: 'cplc-registered-nurse',
			staffingAgency: 'Nurses Now',
		});

		const updated = await call(
			sandbox,
			'PUT',
			`/testimony/id/${testimony.body.id}/update/case/id/${created.id}`,
			{
				token,
				body: { fields: [{ fieldId: 'state', value: 'TX' }] },
			},
		);
		expect(updated.status).toBe(200);
		expect(updated.body.fields).toEqual([...RN_FIELDS, { fieldId: 'state', value: 'TX' }]);

		const definitions = await call(sandbox, 'GET', `/service/cplc/case/id/${created.id}`, {
			token,
		});
		expect(definitions.status).toBe(200);
		const [definition] = definitions.body.cplcDefinitionsList;
		expect(Object.keys(definition).sort()).toEqual([
			'category',
			'crStamp',
			'enabled',
			'fields',
			'id',
			'modStamp',
			'name',
		]);
		expect(Object.keys(definition.fields[0]).sort()).toEqual(
			[
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
			].sort(),
		);
		expect(definition.fields.map((field: { ordinal: number }) => field.ordinal)).toEqual([
			0, 1, 2, 3, 4, 5, 6, 7, 8,
		]);
		const required = definition.fields
			.filter((field: { required: boolean }) => field.required)
			.map((field: { fieldId: string }) => field.fieldId);
		expect(required.sort()).toEqual(['certifyingBody', 'firstName', 'lastName', 'licenseNumber']);
		expect(definition.crStamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
	});

	it('rejects a testimony missing required fields or for an unknown or disabled definition', async () => {
		const created = await createCase(sandbox, token);
		const path = `/testimony/create/case/id/${created.id}`;
		const missing = await call(sandbox, 'POST', path, {
			token,
			body: { cplcId: 'cplc-registered-nurse', fields: RN_FIELDS.slice(1) },
		});
		expect(missing.status).toBe(400);
		expect(missing.body.message.join()).toMatch(/firstName is required/);
		const disabled = CPLC_DEFINITIONS.find((definition) => !definition.enabled)!;
		expect(
			(
				await call(sandbox, 'POST', path, {
					token,
					body: { cplcId: disabled.id, fields: RN_FIELDS },
				})
			).status,
		).toBe(400);
		expect(
			(await call(sandbox, 'POST', path, { token, body: { cplcId: 'nope', fields: RN_FIELDS } }))
				.status,
		).toBe(400);
		expect(
			(
				await call(sandbox, 'PUT', `/testimony/id/nope/update/case/id/${created.id}`, {
					token,
					body: {},
				})
			).status,
		).toBe(404);
	});
});

describe('lists', () => {
	it('GET /shipment/mask/list', async () => {
		const result = await call(sandbox, 'GET', '/shipment/mask/list', { token });
		expect(result.status).toBe(200);
		expect(result.body.shipmentMaskList.length).toBeGreaterThan(0);
		expect(result.body.shipmentMaskList[0]).toEqual({
			id: expect.any(String),
			name: expect.any(String),
			description: expect.any(String),
		});
	});

	it("GET /company/user/list shows the caller's group, including its API client user", async () => {
		const result = await call(sandbox, 'GET', '/company/user/list', { token });
		expect(result.status).toBe(200);
		expect(result.body.groupProfileId).toBe('group-profile-east');
		expect(
			result.body.userList.every(
				(user: { groupProfileId: string }) => user.groupProfileId === 'group-profile-east',
			),
		).toBe(true);
		expect(
			result.body.userList.some((user: { username: string }) => user.username.includes('api')),
		).toBe(true);
		expect(
			(
				await call(sandbox, 'GET', '/company/user/list?groupProfileId=group-profile-west', {
					token,
				})
			).status,
		).toBe(403);
	});
});

describe('unknown routes', () => {
	it('answer 404 with the JSON error body', async () => {
		const result = await call(sandbox, 'GET', '/nope', { token });
		expect(result.status).toBe(404);
		expect(result.body).toEqual({
			message: 'Cannot GET /nope',
			error: 'Not Found',
			statusCode: 404,
		});
	});
});
