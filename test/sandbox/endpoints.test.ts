/** The endpoints the sandbox serves answer as the API reference (api/contract.json) defines them. */
import { SERVICE_TYPES } from '../../nodes/shared/catalog';
import { CPLC_DEFINITIONS, DEMO_GROUPS } from '../../sandbox';
import { caseBody, orderOf, tokenFor, useSandboxClient } from '../helpers/sandbox';

const client = useSandboxClient();

const [EAST, WEST] = DEMO_GROUPS.map((group) => group.groupProfileId);
const SCREENING = SERVICE_TYPES.find((type) => type.name === 'Screening')!.id;
const SSN_TRACE = '29cd44ab-a8f0-4b27-868e-dc4be88ff541';
const EMPLOYMENT = '9ac65633-b4c4-4062-875c-3556db9d2a08';
const DRUG_PANEL = 'service-drug-10-panel';

const RN_FIELDS = [
	{ fieldId: 'firstName', value: 'Ann' },
	{ fieldId: 'lastName', value: 'Lee' },
	{ fieldId: 'licenseNumber', value: 'RN123456' },
	{ fieldId: 'certifyingBody', value: 'State Board of Nursing' },
];

/** A registered-nurse license testimony, the reference's `Testimony` of the CPLC type. */
const nurseTestimony = (fields = RN_FIELDS) => ({
	testimonyTypeId: 'testimony-type-cplc',
	details: { cplcId: 'cplc-registered-nurse', fields },
});

/** Employment order data as the reference's `CaseOrderDataEmployment` has it. */
const employmentOrderData = (employer: string, metadata: Record<string, unknown> = {}) => ({
	caseOrderDataTypeId: 'codt-employment',
	serviceId: EMPLOYMENT,
	metadata: {
		employer,
		position: 'Driver',
		city: 'Dallas',
		state: 'TX',
		country: 'US',
		monthBegin: '01',
		yearBegin: '2020',
		current: false,
		monthEnd: '12',
		yearEnd: '2023',
		...metadata,
	},
});

const expectKeys = (object: object, keys: string[]) =>
	expect(Object.keys(object).sort()).toEqual([...keys].sort());

const statusOf = async (method: string, path: string, body?: unknown) =>
	(await client.call(method, path, { body })).status;

const messages = (body: { message: string | string[] }) =>
	Array.isArray(body.message) ? body.message : [body.message];

describe('case lists', () => {
	it('GET /case/list answers { cases } with every case of the group, no paging', async () => {
		for (let index = 0; index < 12; index++) await client.createCase();
		const list = await client.call('GET', '/case/list');
		expect(list.status).toBe(200);
		expectKeys(list.body, ['cases']);
		expect(list.body.cases).toHaveLength(12);
		expect(
			list.body.cases.every((entry: { groupProfileId: string }) => entry.groupProfileId === EAST),
		).toBe(true);
		// The reference defines no query parameter here: paging is refused.
		expect(await statusOf('GET', '/case/list?page=1')).toBe(400);
	});

	it('GET /case/list/all filters by packageId and by the user who created the case', async () => {
		const basic = await client.createCase();
		const driver = await client.createCase(caseBody(orderOf(DRUG_PANEL, 'service-idv-id')));
		const idsOf = async (query: string) =>
			(await client.call('GET', `/case/list/all${query}`)).body.cases.map(
				(entry: { id: string }) => entry.id,
			);
		expect(await idsOf('')).toEqual([basic.id, driver.id]);
		expect(await idsOf(`?packageId=${driver.packageId}`)).toEqual([driver.id]);
		expect(await idsOf(`?userId=${basic.crUserId}`)).toEqual([basic.id, driver.id]);
		expect(await idsOf('?userId=someone-else')).toEqual([]);
	});
});

describe('POST /case/create', () => {
	it('creates from a package with contacts, DOT order data and an alias; GET answers { cases: [the case] }', async () => {
		const body = caseBody({
			packageId: 'pkg-driver',
			excludeServices: undefined,
			middleName: 'J',
			phone: '+15125550100',
			orderConfig: { contacts: [{ type: 'authorization', email: 'hr@example.com' }] },
			orderData: [
				{
					caseOrderDataTypeId: 'codt-drug-reason-for-test',
					serviceId: DRUG_PANEL,
					metadata: { reasonForTest: 'pre-employment' },
				},
				{
					caseOrderDataTypeId: 'codt-drug-testing-authority',
					serviceId: DRUG_PANEL,
					metadata: { testingAuthority: 'fmcsa' },
				},
				{ caseOrderDataTypeId: 'codt-alias', metadata: { givenName: 'Annie', familyName: 'Lee' } },
			],
			apiTrackingCode: 'REQ-7',
		});
		const created = await client.call('POST', '/case/create', {
			body,
			headers: { 'karmacheck-on-behalf-of': 'east.recruiter@sandbox-demo.example' },
		});
		expect(created.status).toBe(200);
		expectKeys(created.body, ['caseId', 'caseInvitationId']);

		const read = await client.call('GET', `/case/id/${created.body.caseId}`);
		expect(read.status).toBe(200);
		expect(read.body.cases).toHaveLength(1);
		expect(read.body.cases[0]).toMatchObject({
			id: created.body.caseId,
			caseInvitationId: created.body.caseInvitationId,
			packageId: 'pkg-driver',
			packageName: 'Driver',
			groupProfileId: EAST,
			candidateEmail: body.email,
			candidateGivenName: 'Ann',
			candidateFamilyName: "O'Neil",
			apiTrackingCode: 'REQ-7',
			caseStatus: 'Pending',
		});
		expect(read.body.cases[0].services).toBeUndefined();

		const services = await client.call('GET', `/case/id/${created.body.caseId}/services`);
		expect(services.body.serviceGroupServices).toHaveLength(4);
		expect(services.body.serviceGroupServices[0]).toMatchObject({
			caseId: created.body.caseId,
			serviceId: 'service-idv-id',
			serviceTypeName: 'Identity',
		});
	});

	it('refuses an unknown package (422, naming packageId) and an ordering user that is not an email (400)', async () => {
		const unknown = await client.call('POST', '/case/create', {
			body: caseBody({ packageId: 'pkg-nope', excludeServices: undefined }),
		});
		expect(unknown.status).toBe(422);
		expect(messages(unknown.body).join()).toMatch(/packageId "pkg-nope"/);

		const onBehalf = await client.call('POST', '/case/create', {
			body: caseBody(),
			headers: { 'karmacheck-on-behalf-of': 'not an email' },
		});
		expect(onBehalf.status).toBe(400);
		expect(messages(onBehalf.body).join()).toMatch(/karmacheck-on-behalf-of/);
	});
});

describe('packages', () => {
	it('lists packages, one package, and the services of a package (all, or of one type)', async () => {
		const list = await client.call('GET', '/package/min/list');
		expect(list.body.packages).toContainEqual({ id: 'pkg-basic-criminal', name: 'Basic Criminal' });
		expect((await client.call('GET', '/package/min/id/pkg-driver')).body).toEqual({
			packages: [{ id: 'pkg-driver', name: 'Driver' }],
		});
		expect(await statusOf('GET', '/package/min/id/pkg-nope')).toBe(404);

		const services = await client.call('GET', '/package/id/pkg-basic-criminal/services');
		expect(services.status).toBe(200);
		expect(services.body.serviceGroupServices[0]).toMatchObject({
			serviceGroupId: 'pkg-basic-criminal',
			serviceId: SSN_TRACE,
			serviceName: 'SSN Trace',
			serviceTypeId: SCREENING,
			serviceTypeName: 'Screening',
		});
		// The reference declares no 404 here: an unknown package has no services.
		expect((await client.call('GET', '/package/id/pkg-nope/services')).body).toEqual({
			serviceGroupServices: [],
		});
		const identity = await client.call('GET', '/package/id/pkg-driver/services/idv');
		expect(
			identity.body.serviceGroupServices.map((service: { serviceId: string }) => service.serviceId),
		).toEqual(['service-idv-id']);
		expect(await statusOf('GET', '/package/id/pkg-driver/services/nope')).toBe(400);
	});
});

describe('secure documents: upload, PUT to the pre-signed URL, create', () => {
	async function upload(token = client.token) {
		const types = await client.call('GET', '/document/secure/type/list', { token });
		const documentTypeId: string = types.body[0].id;
		const answer = await client.call('POST', '/document/secure/upload', {
			token,
			body: { files: [{ documentTypeId, mimeType: 'application/pdf' }] },
		});
		expect(answer.status).toBe(200);
		const [{ url, fileKey }] = answer.body.list;
		return { documentTypeId, url: url as string, fileKey: fileKey as string };
	}

	const put = (url: string, headers: Record<string, string> = {}) =>
		fetch(url, {
			method: 'PUT',
			headers: { 'content-type': 'application/pdf', ...headers },
			body: '%PDF',
		});

	it('takes the bytes at the URL without a bearer token, then makes a document the case lists', async () => {
		const created = await client.createCase();
		const { documentTypeId, url, fileKey } = await upload();
		expect(new URL(url).searchParams.get('signature')).toEqual(expect.any(String));

		// The bearer token never goes to the pre-signed URL: one that carries it is refused.
		expect((await put(url, { authorization: `Bearer ${client.token}` })).status).toBe(400);
		const early = await client.call('POST', '/document/secure/create', {
			body: { list: [{ originalFileName: 'license.pdf', documentTypeId, fileKey }] },
		});
		expect(early.status).toBe(400);
		expect(messages(early.body).join()).toMatch(/no file was put/);

		expect((await put(url)).status).toBe(200);
		const document = await client.call('POST', '/document/secure/create', {
			body: {
				list: [{ originalFileName: 'license.pdf', documentTypeId, fileKey, fileFormat: 'pdf' }],
				accessGrants: { caseId: created.id },
			},
		});
		expect(document.status).toBe(200);
		const [{ secureDocumentId }] = document.body.list;
		expect(secureDocumentId).toEqual(expect.any(String));

		const listed = await client.call('GET', `/document/secure/list/case/id/${created.id}`);
		expect(listed.body).toEqual([
			expect.objectContaining({
				id: secureDocumentId,
				documentTypeId,
				fileName: 'license.pdf',
				fileKey,
				fileFormat: 'pdf',
			}),
		]);
	});

	it('refuses a URL with a wrong signature, and a file key handed out to another group', async () => {
		const { url, fileKey, documentTypeId } = await upload();
		const forged = new URL(url);
		forged.searchParams.set('signature', 'forged');
		expect((await put(forged.toString())).status).toBe(403);
		expect((await put(url)).status).toBe(200);

		const west = await client.call('POST', '/document/secure/create', {
			token: await tokenFor(client.sandbox, 1),
			body: { list: [{ originalFileName: 'x.pdf', documentTypeId, fileKey }] },
		});
		expect(west.status).toBe(400);
		expect(messages(west.body).join()).toMatch(/not handed out to this group/);
	});

	it("lets order data name the group's documents, and refuses another group's", async () => {
		const { url, fileKey, documentTypeId } = await upload();
		await put(url);
		const document = await client.call('POST', '/document/secure/create', {
			body: { list: [{ originalFileName: 'paystub.pdf', documentTypeId, fileKey }] },
		});
		const { secureDocumentId } = document.body.list[0];
		const withDocument = caseBody({
			...orderOf(EMPLOYMENT),
			orderData: [employmentOrderData('Acme', { secureDocumentIds: [secureDocumentId] })],
		});
		expect(await statusOf('POST', '/case/create', withDocument)).toBe(200);

		const foreign = await client.call('POST', '/case/create', {
			token: await tokenFor(client.sandbox, 1),
			body: { ...withDocument, email: 'b@example.com' },
		});
		expect(foreign.status).toBe(422);
		expect(messages(foreign.body).join()).toMatch(/secure document/);
	});

	it('refuses a document type the type list does not have, at upload and at create', async () => {
		const { url, fileKey } = await upload();
		await put(url);
		const files = [{ documentTypeId: 'passport-scan', mimeType: 'application/pdf' }];
		const refused = await client.call('POST', '/document/secure/upload', { body: { files } });
		expect(refused.status).toBe(400);
		expect(messages(refused.body)).toEqual([
			'files[0].documentTypeId "passport-scan" is not a document type (GET /document/secure/type/list)',
		]);
		const created = await client.call('POST', '/document/secure/create', {
			body: {
				list: [{ originalFileName: 'x.pdf', documentTypeId: 'passport-scan', fileKey }],
			},
		});
		expect(created.status).toBe(400);
		expect(messages(created.body).join()).toMatch(/list\[0\]\.documentTypeId "passport-scan"/);
	});

	it('lists the MIME types', async () => {
		expect((await client.call('GET', '/document/secure/mimetypes')).body.list).toContain(
			'application/pdf',
		);
	});
});

describe('POST /vbook/search', () => {
	const search = async (vbookTypeId: string, listMetadata: object, nameQuery?: string) =>
		(
			await client.call('POST', '/vbook/search', {
				body: { searchDetails: { vbookTypeId, nameQuery }, listMetadata },
			})
		).body;

	it('pages with a 0-based page and the pageSize asked for', async () => {
		const first = await search('vbt_employment', { page: 0, pageSize: 10 });
		expect(first.results).toHaveLength(10);
		expect(first.listMetadata).toEqual({ page: 0, pageSize: 10, totalPages: 2 });
		expect((await search('vbt_employment', { page: 1, pageSize: 10 })).results).toHaveLength(5);
		expectKeys(first.results[0], ['id', 'name', 'city', 'state']);

		const schools = await search('vbt_education', { page: 0, pageSize: 3 }, 'university');
		expect(schools.results).toHaveLength(3);
		expect(schools.listMetadata).toEqual({ page: 0, pageSize: 3, totalPages: 2 });
		expect(schools.results.every((item: { name: string }) => /University/.test(item.name))).toBe(
			true,
		);
	});

	it('refuses a search without searchDetails', async () => {
		expect(await statusOf('POST', '/vbook/search', { listMetadata: { page: 0 } })).toBe(400);
	});
});

describe('testimony and CPLC definitions', () => {
	it('creates a testimony, updates it with a whole testimony, lists it; the case then lists the definition', async () => {
		const created = await client.createCase();
		const definitionsPath = `/service/cplc/case/id/${created.id}`;
		expect((await client.call('GET', definitionsPath)).body).toEqual({ cplcDefinitionsList: [] });

		const testimony = await client.call('POST', `/testimony/create/case/id/${created.id}`, {
			body: nurseTestimony(),
		});
		expect(testimony.status).toBe(200);
		expectKeys(testimony.body, ['id']);

		const updatePath = `/testimony/id/${testimony.body.id}/update/case/id/${created.id}`;
		const state = { fieldId: 'state', value: 'TX' };
		const updated = await client.call('POST', updatePath, {
			body: nurseTestimony([...RN_FIELDS, state]),
		});
		expect(updated.status).toBe(200);
		expect(updated.body).toEqual({ id: testimony.body.id });

		const listed = await client.call('GET', `/testimony/case/${created.id}`);
		expect(listed.body.testimony.customProfessionalLicense).toEqual([
			expect.objectContaining({
				id: testimony.body.id,
				cplcId: 'cplc-registered-nurse',
				cplcName: 'RN',
				fields: [...RN_FIELDS, state],
			}),
		]);

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

		const detach = `/testimony/id/${testimony.body.id}/detach/case/id/${created.id}`;
		expect(await statusOf('DELETE', detach)).toBe(200);
		expect(
			(await client.call('GET', `/testimony/case/${created.id}`)).body.testimony
				.customProfessionalLicense,
		).toEqual([]);
		expect(await statusOf('DELETE', detach)).toBe(404);
	});

	it('refuses a testimony missing a required field or of an unknown definition (422), and an unknown testimony (404)', async () => {
		const created = await client.createCase();
		const path = `/testimony/create/case/id/${created.id}`;
		const missing = await client.call('POST', path, { body: nurseTestimony(RN_FIELDS.slice(1)) });
		expect(missing.status).toBe(422);
		expect(messages(missing.body).join()).toMatch(/firstName is required/);
		const unknown = nurseTestimony();
		unknown.details.cplcId = 'nope';
		expect(await statusOf('POST', path, unknown)).toBe(422);
		expect(
			await statusOf('POST', `/testimony/id/nope/update/case/id/${created.id}`, nurseTestimony()),
		).toBe(404);
	});

	it('lists the enabled definitions, all of them, and one in full', async () => {
		const enabled = (await client.call('GET', '/service/cplc/list')).body.cplcList;
		const all = (await client.call('GET', '/service/cplc/list/all')).body.cplcList;
		expect(all).toHaveLength(CPLC_DEFINITIONS.length);
		expect(enabled).toHaveLength(CPLC_DEFINITIONS.filter((entry) => entry.enabled).length);
		expect(enabled[0].fields).toBeUndefined();
		const one = await client.call('GET', `/service/cplc/id/${enabled[0].id}`);
		expect(one.body.fields).toHaveLength(9);
		expect(await statusOf('GET', '/service/cplc/id/nope')).toBe(404);
	});
});

describe('lists', () => {
	it('GET /shipment/mask/list', async () => {
		const result = await client.call('GET', '/shipment/mask/list');
		expect(result.status).toBe(200);
		expect(result.body.list.length).toBeGreaterThan(0);
		expect(result.body.list[0]).toEqual({
			sku: expect.any(String),
			name: expect.any(String),
			inStock: expect.any(Boolean),
		});
	});

	it("GET /company/user/list shows the caller's group, including its API client user", async () => {
		const result = await client.call('GET', '/company/user/list');
		expect(result.status).toBe(200);
		const users: Array<{ groupProfileId: string; username: string }> = result.body.users;
		expect(users.every((user) => user.groupProfileId === EAST)).toBe(true);
		expect(users.some((user) => user.username.includes('api'))).toBe(true);
		expect(await statusOf('GET', `/company/user/list?groupProfileId=${EAST}`)).toBe(200);
		expect(await statusOf('GET', `/company/user/list?groupProfileId=${WEST}`)).toBe(403);
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
