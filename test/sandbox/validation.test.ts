/** Spec 4.3 and 7: name characters, staffingAgency length, service IDs, duplicates. */
import { caseBody, tokenFor, useSandboxClient, type ApiResult } from '../helpers/sandbox';

const client = useSandboxClient();

/** A registered-nurse testimony with the required fields of the sandbox's CPLC definition. */
const NURSE_TESTIMONY = {
	cplcId: 'cplc-registered-nurse',
	fields: [
		{ fieldId: 'firstName', value: 'Ann' },
		{ fieldId: 'lastName', value: 'Lee' },
		{ fieldId: 'licenseNumber', value: 'RN1' },
		{ fieldId: 'certifyingBody', value: 'Board' },
	],
};

const badRequestBody = { message: expect.anything(), error: 'Bad Request', statusCode: 400 };

function messages(body: { message: string | string[] }): string[] {
	return Array.isArray(body.message) ? body.message : [body.message];
}

function expectRejected(result: ApiResult, pattern: RegExp) {
	expect(result.status).toBe(400);
	expect(messages(result.body).join()).toMatch(pattern);
}

const postCase = (body: unknown, token = client.token) =>
	client.call('POST', '/case/create', { token, body });
const addServices = (caseId: string, body: unknown) =>
	client.call('POST', `/case/id/${caseId}/add/services`, { body });
const postNurseTestimony = (caseId: string, extra: object) =>
	client.call('POST', `/testimony/create/case/id/${caseId}`, {
		body: { ...NURSE_TESTIMONY, ...extra },
	});

/** A valid case-create body whose candidate has `fields` in place of the defaults. */
function withCandidate(fields: Record<string, string>, emailTag = '') {
	const body = caseBody({}, emailTag);
	Object.assign(body.candidate as object, fields);
	return body;
}

describe('name fields', () => {
	it.each([
		['a space', 'Ann Marie'],
		['an exclamation mark', 'Ann!'],
		['an at sign', 'ann@home'],
		['a slash', 'A/B'],
	])('rejects a candidate name with %s at case creation', async (_case, firstName) => {
		const result = await postCase(withCandidate({ firstName }));
		expectRejected(result, /candidate\.firstName/);
		expect(result.body).toEqual(badRequestBody);
	});

	it("accepts letters, digits, - ' , . and _ (accented letters included)", async () => {
		const body = withCandidate({ firstName: 'Zoë-Anne_2.', lastName: "O'Brien,Jr" });
		expect((await postCase(body)).status).toBe(201);
	});

	it('rejects alias names at creation', async () => {
		const aliases = [{ firstName: 'Ann', lastName: 'Smith#1' }];
		const result = await postCase(caseBody({ aliases }));
		expectRejected(result, /aliases\[0\]\.lastName/);
	});

	it('rejects names in a candidate-info update and leaves the case unchanged', async () => {
		const created = await client.createCase();
		const update = (body: object) =>
			client.call('PUT', `/case/id/${created.id}/candidate`, { body });

		expect((await update({ candidate: { lastName: 'Smith (née Jones)' } })).status).toBe(400);
		expect((await update({ aliases: [{ firstName: 'A&B' }] })).status).toBe(400);
		const unchanged = await client.call('GET', `/case/id/${created.id}`);
		expect(unchanged.body.candidate.lastName).toBe(created.candidate.lastName);
		expect(unchanged.body.aliases).toEqual([]);

		const accepted = await update({ candidate: { lastName: 'Smith-Jones' } });
		expect(accepted.status).toBe(200);
		expect(accepted.body.candidate.lastName).toBe('Smith-Jones');
	});
});

describe('name fields outside the bodies spec 7 names', () => {
	it('are not held to the name rule in Add Services or testimony (spec 7: case creation, aliases, candidate-info update)', async () => {
		const created = await client.createCase();
		const added = await addServices(created.id, {
			services: [{ id: 'service-bankruptcy' }],
			candidate: { lastName: 'Lee ½' },
		});
		expect(added.status).toBe(200);
		const testimony = await postNurseTestimony(created.id, { firstName: 'Ann Marie!' });
		expect(testimony.status).toBe(201);
	});

	it('reads names in NFC and digits as decimal digits at case creation', async () => {
		expect((await postCase(withCandidate({ firstName: 'Jose\u0301' }))).status).toBe(201);
		const refused = await postCase(withCandidate({ lastName: 'Lee½' }, 'fraction'));
		expectRejected(refused, /candidate\.lastName/);
	});
});

describe('staffingAgency', () => {
	const employment = '9ac65633-b4c4-4062-875c-3556db9d2a08';

	it('accepts 100 characters and rejects 101 in employment order data', async () => {
		const order = (length: number) =>
			caseBody({
				services: [{ id: employment }],
				orderData: [
					{ serviceId: employment, employerName: 'Acme', staffingAgency: 'x'.repeat(length) },
				],
			});
		expect((await postCase(order(100))).status).toBe(201);

		const result = await postCase(order(101));
		expectRejected(result, /orderData\[0\]\.staffingAgency.*101/);
		expect(result.body).toEqual(badRequestBody);
	});

	it('rejects more than 100 characters in testimony', async () => {
		const created = await client.createCase();
		const result = await postNurseTestimony(created.id, { staffingAgency: 'y'.repeat(101) });
		expectRejected(result, /staffingAgency/);
	});
});

describe('service IDs', () => {
	it('rejects unknown IDs in services, excludeServices and order data, all in one message list', async () => {
		const result = await postCase(
			caseBody({
				services: [{ id: 'service-does-not-exist' }],
				excludeServices: ['service-also-unknown'],
				orderData: [{ serviceId: 'drug-service-12X-panel' }],
			}),
		);
		expect(result.status).toBe(400);
		expect(result.body).toEqual(badRequestBody);
		const text = messages(result.body).join('\n');
		expect(text).toMatch(/services\[0\]\.id "service-does-not-exist"/);
		expect(text).toMatch(/excludeServices\[0\] "service-also-unknown"/);
		expect(text).toMatch(/orderData\[0\]\.serviceId "drug-service-12X-panel"/);
	});

	it('accepts drug-panel IDs of both patterns and GUID service IDs', async () => {
		const ids = [
			'drug-service-65090N-panel',
			'service-drug-H17P-panel',
			'd8e3dbdb-c2d7-4787-9736-86fffab74da4',
		];
		const created = await client.createCase(caseBody({ services: ids.map((id) => ({ id })) }));
		const serviceIds = created.services.map((service: { serviceId: string }) => service.serviceId);
		expect(serviceIds).toEqual(ids);
	});

	it('rejects unknown IDs when adding services', async () => {
		const created = await client.createCase();
		const result = await addServices(created.id, { services: [{ id: 'nope' }] });
		expect(result.status).toBe(400);
		expect(result.body).toEqual(badRequestBody);
	});

	it('applies excludeServices to a package', async () => {
		const created = await client.createCase(
			caseBody({
				services: undefined,
				packageId: 'pkg-basic-criminal',
				excludeServices: ['03635d39-c9df-418f-948d-10d38a7e06db'],
			}),
		);
		expect(created.services.map((service: { serviceName: string }) => service.serviceName)).toEqual(
			['SSN Trace', 'National Criminal Search', 'County Criminal Search'],
		);
	});
});

describe('duplicate candidate', () => {
	it('answers a second case for the same email in a group with 409 { httpStatus, cases }', async () => {
		const first = await client.createCase();
		const again = withCandidate({ email: first.candidate.email.toUpperCase() });

		const result = await postCase(again);
		expect(result.status).toBe(409);
		expect(result.body).toEqual({
			httpStatus: 409,
			cases: [expect.objectContaining({ id: first.id })],
		});

		expect((await postCase(again, await tokenFor(client.sandbox, 1))).status).toBe(201);
	});
});

describe('a sandbox started with refuseSameCandidate false', () => {
	const lenient = useSandboxClient({ refuseSameCandidate: false });

	it('creates a second case for the same email, as an API without the check would', async () => {
		const body = caseBody();
		const first = await lenient.createCase(body);
		const second = await lenient.createCase(body);
		expect(second.id).not.toBe(first.id);
		const email = (body.candidate as { email: string }).email.toLowerCase();
		expect(lenient.admin.casesPerCandidate()).toEqual(new Map([[email, 2]]));
		expect((await lenient.adminCall('GET', '/cases-per-candidate')).body).toEqual({ [email]: 2 });
	});
});

describe('malformed bodies', () => {
	it('answers invalid JSON and missing candidate fields with 400', async () => {
		const response = await fetch(`${client.sandbox.url}/case/create`, {
			method: 'POST',
			headers: { authorization: `Bearer ${client.token}`, 'content-type': 'application/json' },
			body: '{"candidate":',
		});
		expect(response.status).toBe(400);
		expect(await response.json()).toEqual(badRequestBody);

		const result = await postCase({ candidate: { firstName: 'Ann' } });
		expect(result.status).toBe(400);
		expect(messages(result.body)).toEqual(
			expect.arrayContaining(['candidate.lastName is required', 'candidate.email is required']),
		);
	});
});
