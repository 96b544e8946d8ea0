/** Spec 4.3 and 7: name characters, staffingAgency length, service IDs, duplicates. */
import type { Sandbox } from '../../sandbox';
import {
	adminCall,
	call,
	caseBody,
	createCase,
	startTestSandbox,
	tokenFor,
} from '../helpers/sandbox';

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

/** The required fields of the sandbox's registered-nurse CPLC definition. */
const NURSE_FIELDS = [
	{ fieldId: 'firstName', value: 'Ann' },
	{ fieldId: 'lastName', value: 'Lee' },
	{ fieldId: 'licenseNumber', value: 'RN1' },
	{ fieldId: 'certifyingBody', value: 'Board' },
];

const badRequestBody = { message: expect.anything(), error: 'Bad Request', statusCode: 400 };

function messages(body: { message: string | string[] }): string[] {
	return Array.isArray(body.message) ? body.message : [body.message];
}

describe('name fields', () => {
	it.each([
		['a space', 'Ann Marie'],
		['an exclamation mark', 'Ann!'],
		['an at sign', 'ann@home'],
		['a slash', 'A/B'],
	])('rejects a candidate name with %s at case creation', async (_case, firstName) => {
		const body = caseBody();
		(body.candidate as Record<string, unknown>).firstName = firstName;
		const result = await call(sandbox, 'POST', '/case/create', { token, body });
		expect(result.status).toBe(400);
		expect(result.body).toEqual(badRequestBody);
		expect(messages(result.body).join()).toMatch(/candidate\.firstName/);
	});

	it("accepts letters, digits, - ' , . and _ (accented letters included)", async () => {
		const body = caseBody();
		Object.assign(body.candidate as object, { firstName: 'Zoë-Anne_2.', lastName: "O'Brien,Jr" });
		expect((await call(sandbox, 'POST', '/case/create', { token, body })).status).toBe(201);
	});

	it('rejects alias names at creation', async () => {
		const result = await call(sandbox, 'POST', '/case/create', {
			token,
			body: caseBody({ aliases: [{ firstName: 'Ann', lastName: 'Smith#1' }] }),
		});
		expect(result.status).toBe(400);
		expect(messages(result.body).join()).toMatch(/aliases\[0\]\.lastName/);
	});

	it('rejects names in a candidate-info update and leaves the case unchanged', async () => {
		const created = await createCase(sandbox, token);
		const path = `/case/id/${created.id}/candidate`;

		const rejected = await call(sandbox, 'PUT', path, {
			token,
			body: { candidate: { lastName: 'Smith (née Jones)' } },
		});
		expect(rejected.status).toBe(400);
		const aliasRejected = await call(sandbox, 'PUT', path, {
			token,
			body: { aliases: [{ firstName: 'A&B' }] },
		});
		expect(aliasRejected.status).toBe(400);
		const unchanged = await call(sandbox, 'GET', `/case/id/${created.id}`, { token });
		expect(unchanged.body.candidate.lastName).toBe(created.candidate.lastName);
		expect(unchanged.body.aliases).toEqual([]);

		const accepted = await call(sandbox, 'PUT', path, {
			token,
			body: { candidate: { lastName: 'Smith-Jones' } },
		});
		expect(accepted.status).toBe(200);
		expect(accepted.body.candidate.lastName).toBe('Smith-Jones');
	});
});

describe('name fields outside the bodies spec 7 names', () => {
	it('are not held to the name rule in Add Services or testimony (spec 7: case creation, aliases, candidate-info update)', async () => {
		const created = await createCase(sandbox, token);
		const added = await call(sandbox, 'POST', `/case/id/${created.id}/add/services`, {
			token,
			body: { services: [{ id: 'service-bankruptcy' }], candidate: { lastName: 'Lee ½' } },
		});
		expect(added.status).toBe(200);
		const testimony = await call(sandbox, 'POST', `/testimony/create/case/id/${created.id}`, {
			token,
			body: {
				cplcId: 'cplc-registered-nurse',
				firstName: 'Ann Marie!',
				fields: NURSE_FIELDS,
			},
		});
		expect(testimony.status).toBe(201);
	});

	it('reads names in NFC and digits as decimal digits at case creation', async () => {
		const decomposed = caseBody();
		Object.assign(decomposed.candidate as object, { firstName: 'Jose\u0301' });
		expect((await call(sandbox, 'POST', '/case/create', { token, body: decomposed })).status).toBe(
			201,
		);
		const fraction = caseBody({}, 'fraction');
		Object.assign(fraction.candidate as object, { lastName: 'Lee½' });
		const refused = await call(sandbox, 'POST', '/case/create', { token, body: fraction });
		expect(refused.status).toBe(400);
		expect(messages(refused.body).join()).toMatch(/candidate\.lastName/);
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
		expect((await call(sandbox, 'POST', '/case/create', { token, body: order(100) })).status).toBe(
			201,
		);

		const result = await call(sandbox, 'POST', '/case/create', { token, body: order(101) });
		expect(result.status).toBe(400);
		expect(result.body).toEqual(badRequestBody);
		expect(messages(result.body).join()).toMatch(/orderData\[0\]\.staffingAgency.*101/);
	});

	it('rejects more than 100 characters in testimony', async () => {
		const created = await createCase(sandbox, token);
		const result = await call(sandbox, 'POST', `/testimony/create/case/id/${created.id}`, {
			token,
			body: {
				cplcId: 'cplc-registered-nurse',
				fields: NURSE_FIELDS,
				staffingAgency: 'y'.repeat(101),
			},
		});
		expect(result.status).toBe(400);
		expect(messages(result.body).join()).toMatch(/staffingAgency/);
	});
});

describe('service IDs', () => {
	it('rejects unknown IDs in services, excludeServices and order data, all in one message list', async () => {
		const result = await call(sandbox, 'POST', '/case/create', {
			token,
			body: caseBody({
				services: [{ id: 'service-does-not-exist' }],
				excludeServices: ['service-also-unknown'],
				orderData: [{ serviceId: 'drug-service-12X-panel' }],
			}),
		});
		expect(result.status).toBe(400);
		expect(result.body).toEqual(badRequestBody);
		const text = messages(result.body).join('\n');
		expect(text).toMatch(/services\[0\]\.id "service-does-not-exist"/);
		expect(text).toMatch(/excludeServices\[0\] "service-also-unknown"/);
		expect(text).toMatch(/orderData\[0\]\.serviceId "drug-service-12X-panel"/);
	});

	it('accepts drug-panel IDs of both patterns and GUID service IDs', async () => {
		const created = await createCase(
			sandbox,
			token,
			caseBody({
				services: [
					{ id: 'drug-service-65090N-panel' },
					{ id: 'service-drug-H17P-panel' },
					{ id: 'd8e3dbdb-c2d7-4787-9736-86fffab74da4' },
				],
			}),
		);
		expect(created.services.map((service: { serviceId: string }) => service.serviceId)).toEqual([
			'drug-service-65090N-panel',
			'service-drug-H17P-panel',
			'd8e3dbdb-c2d7-4787-9736-86fffab74da4',
		]);
	});

	it('rejects unknown IDs when adding services', async () => {
		const created = await createCase(sandbox, token);
		const result = await call(sandbox, 'POST', `/case/id/${created.id}/add/services`, {
			token,
			body: { services: [{ id: 'nope' }] },
		});
		expect(result.status).toBe(400);
		expect(result.body).toEqual(badRequestBody);
	});

	it('applies excludeServices to a package', async () => {
		const created = await createCase(
			sandbox,
			token,
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
		const first = await createCase(sandbox, token, caseBody());
		const again = caseBody();
		(again.candidate as Record<string, string>).email = first.candidate.email.toUpperCase();

		const result = await call(sandbox, 'POST', '/case/create', { token, body: again });
		expect(result.status).toBe(409);
		expect(result.body).toEqual({
			httpStatus: 409,
			cases: [expect.objectContaining({ id: first.id })],
		});

		const otherGroup = await tokenFor(sandbox, 1);
		expect(
			(await call(sandbox, 'POST', '/case/create', { token: otherGroup, body: again })).status,
		).toBe(201);
	});
});

describe('a sandbox started with refuseSameCandidate false', () => {
	it('creates a second case for the same email, as an API without the check would', async () => {
		const lenient = await startTestSandbox({ refuseSameCandidate: false });
		try {
			const lenientToken = await tokenFor(lenient);
			const body = caseBody();
			const first = await createCase(lenient, lenientToken, body);
			const second = await createCase(lenient, lenientToken, body);
			expect(second.id).not.toBe(first.id);
			const email = (body.candidate as { email: string }).email;
			expect(lenient.admin.casesPerCandidate()).toEqual(new Map([[email.toLowerCase(), 2]]));
			expect((await adminCall(lenient, 'GET', '/cases-per-candidate')).body).toEqual({
				[email.toLowerCase()]: 2,
			});
		} finally {
			await lenient.stop();
		}
	});
});

describe('malformed bodies', () => {
	it('answers invalid JSON and missing candidate fields with 400', async () => {
		const response = await fetch(`${sandbox.url}/case/create`, {
			method: 'POST',
			headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
			body: '{"candidate":',
		});
		expect(response.status).toBe(400);
		expect(await response.json()).toEqual(badRequestBody);

		const result = await call(sandbox, 'POST', '/case/create', {
			token,
			body: { candidate: { firstName: 'Ann' } },
		});
		expect(result.status).toBe(400);
		expect(messages(result.body)).toEqual(
			expect.arrayContaining(['candidate.lastName is required', 'candidate.email is required']),
		);
	});
});
