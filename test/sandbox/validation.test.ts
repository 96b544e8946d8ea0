/**
 * What the sandbox refuses beyond the reference's shapes (spec 7's name rule, staffingAgency, service IDs,
 * the second case of a candidate) and how: the reference's status and `{ message: string[], error, statusCode }`.
 */
import { caseBody, orderOf, tokenFor, useSandboxClient, type ApiResult } from '../helpers/sandbox';

const client = useSandboxClient();

const EMPLOYMENT = '9ac65633-b4c4-4062-875c-3556db9d2a08';
const SSN_TRACE = '29cd44ab-a8f0-4b27-868e-dc4be88ff541';

const errorBody = (statusCode: number, error: string) => ({
	message: expect.anything(),
	error,
	statusCode,
});
const badRequestBody = errorBody(400, 'Bad Request');
const unprocessableBody = errorBody(422, 'Unprocessable Entity');

function messages(body: { message: string | string[] }): string[] {
	return Array.isArray(body.message) ? body.message : [body.message];
}

function expectRefused(result: ApiResult, status: number, pattern: RegExp) {
	expect(result.status).toBe(status);
	expect(messages(result.body).join()).toMatch(pattern);
}

/** A registered-nurse license testimony with the required fields of the sandbox's CPLC definition. */
const nurseTestimony = (fields: Array<{ fieldId: string; value: string }> = []) => ({
	testimonyTypeId: 'testimony-type-cplc',
	details: {
		cplcId: 'cplc-registered-nurse',
		fields: [
			{ fieldId: 'firstName', value: 'Ann' },
			{ fieldId: 'lastName', value: 'Lee' },
			{ fieldId: 'licenseNumber', value: 'RN1' },
			{ fieldId: 'certifyingBody', value: 'Board' },
			...fields,
		],
	},
});

/** Employment order data as the reference's `CaseOrderDataEmployment` has it. */
const employment = (metadata: Record<string, unknown> = {}) => ({
	caseOrderDataTypeId: 'codt-employment',
	serviceId: EMPLOYMENT,
	metadata: {
		employer: 'Acme',
		position: 'Nurse',
		city: 'Dallas',
		state: 'TX',
		country: 'US',
		monthBegin: '01',
		yearBegin: '2020',
		current: true,
		monthEnd: '12',
		yearEnd: '2023',
		...metadata,
	},
});

const alias = (givenName: string, familyName: string) => ({
	caseOrderDataTypeId: 'codt-alias',
	metadata: { givenName, familyName },
});

const postCase = (body: unknown, token = client.token) =>
	client.call('POST', '/case/create', { token, body });
const addServices = (caseId: string, body: unknown) =>
	client.call('POST', `/case/id/${caseId}/add/services`, { body });

describe('name fields (spec 7: case creation and its aliases)', () => {
	it.each([
		['a space', 'Ann Marie'],
		['an exclamation mark', 'Ann!'],
		['an at sign', 'ann@home'],
		['a slash', 'A/B'],
	])('refuses a candidate name with %s at case creation', async (_case, givenName) => {
		const result = await postCase(caseBody({ givenName }));
		expectRefused(result, 422, /^givenName contains characters/);
		expect(result.body).toEqual(unprocessableBody);
	});

	it("accepts letters, digits, - ' , . and _ (accented letters included)", async () => {
		const body = caseBody({ givenName: 'Zoë-Anne_2.', familyName: "O'Brien,Jr", middleName: 'J.' });
		expect((await postCase(body)).status).toBe(200);
	});

	it('refuses alias names at creation', async () => {
		const result = await postCase(caseBody({ orderData: [alias('Ann', 'Smith#1')] }));
		expectRefused(result, 422, /orderData\[0\]\.metadata\.familyName/);
	});

	it('reads names in NFC and digits as decimal digits', async () => {
		expect((await postCase(caseBody({ givenName: 'Jose\u0301' }))).status).toBe(200);
		expectRefused(await postCase(caseBody({ familyName: 'Lee½' })), 422, /^familyName/);
	});
});

describe('name fields outside the bodies spec 7 names', () => {
	it('are not held to the name rule in Add Services or testimony', async () => {
		const created = await client.createCase();
		const added = await addServices(created.id, {
			services: [{ id: 'service-bankruptcy' }],
			orderData: [alias('Lee ½', 'Smith#1')],
		});
		expect(added.status).toBe(200);
		const testimony = await client.call('POST', `/testimony/create/case/id/${created.id}`, {
			body: nurseTestimony([{ fieldId: 'middleInitial', value: 'J!' }]),
		});
		expect(testimony.status).toBe(200);
	});
});

describe('staffingAgency', () => {
	it('accepts 100 characters and refuses 101 in employment order data (the reference says so: 400)', async () => {
		const order = (length: number) =>
			caseBody({
				...orderOf(EMPLOYMENT),
				orderData: [employment({ staffingAgency: 'x'.repeat(length) })],
			});
		expect((await postCase(order(100))).status).toBe(200);

		const result = await postCase(order(101));
		expectRefused(result, 400, /orderData\/0\/metadata\/staffingAgency.*100 characters/);
		expect(result.body).toEqual(badRequestBody);
	});

	it('refuses more than 100 characters in an employment testimony (422: the operation declares no 400)', async () => {
		const created = await client.createCase();
		const { metadata } = employment({ staffingAgency: 'y'.repeat(101) });
		const result = await client.call('POST', `/testimony/create/case/id/${created.id}`, {
			body: { testimonyTypeId: 'aa99dc08-0238-4050-9176-bf322e077f71', details: metadata },
		});
		expectRefused(result, 422, /staffingAgency/);
	});
});

describe('service IDs', () => {
	it('refuses unknown IDs in excludeServices and order data, all in one message list', async () => {
		const result = await postCase(
			caseBody({
				excludeServices: ['service-also-unknown'],
				orderData: [
					{
						caseOrderDataTypeId: 'codt-drug-reason-for-test',
						serviceId: 'drug-service-12X-panel',
						metadata: { reasonForTest: 'pre-employment' },
					},
				],
			}),
		);
		expect(result.status).toBe(422);
		expect(result.body).toEqual(unprocessableBody);
		const text = messages(result.body).join('\n');
		expect(text).toMatch(/excludeServices\[0\] "service-also-unknown"/);
		expect(text).toMatch(/orderData\[0\]\.serviceId "drug-service-12X-panel"/);
	});

	it('adds drug-panel IDs of both patterns and GUID service IDs', async () => {
		const created = await client.createCase();
		const ids = [
			'drug-service-65090N-panel',
			'service-drug-H17P-panel',
			'd8e3dbdb-c2d7-4787-9736-86fffab74da4',
		];
		expect((await addServices(created.id, { services: ids.map((id) => ({ id })) })).status).toBe(
			200,
		);
		const services = await client.call('GET', `/case/id/${created.id}/services`);
		expect(
			services.body.serviceGroupServices.map((service: { serviceId: string }) => service.serviceId),
		).toEqual([SSN_TRACE, ...ids]);
	});

	it('refuses unknown IDs, or no service at all, when adding services', async () => {
		const created = await client.createCase();
		const unknown = await addServices(created.id, { services: [{ id: 'nope' }] });
		expectRefused(unknown, 422, /services\[0\]\.id "nope"/);
		expect(unknown.body).toEqual(unprocessableBody);
		expectRefused(
			await addServices(created.id, { services: [] }),
			422,
			/give services or order data/,
		);
	});

	it('applies excludeServices to a package, and refuses excluding all of them', async () => {
		const created = await client.createCase(
			caseBody({
				packageId: 'pkg-basic-criminal',
				excludeServices: ['03635d39-c9df-418f-948d-10d38a7e06db'],
			}),
		);
		const services = await client.call('GET', `/case/id/${created.id}/services`);
		expect(
			services.body.serviceGroupServices.map(
				(service: { serviceName: string }) => service.serviceName,
			),
		).toEqual(['SSN Trace', 'National Criminal Search', 'County Criminal Search']);

		const none = caseBody({
			packageId: 'pkg-basic-criminal',
			excludeServices: [...orderOf(SSN_TRACE).excludeServices, SSN_TRACE],
		});
		expectRefused(await postCase(none), 422, /no service/);
	});
});

describe('duplicate candidate', () => {
	it('answers a second case for the same email in a group with 409 { cases: [existing case] }', async () => {
		const first = await client.createCase();
		const again = caseBody({ email: first.candidateEmail.toUpperCase() });

		const result = await postCase(again);
		expect(result.status).toBe(409);
		expect(result.body).toEqual({
			cases: [
				{
					existingCaseId: first.id,
					existingCaseCrStamp: first.crStamp,
					existingCasePackageId: first.packageId,
					existingCasePackageName: first.packageName,
					existingCaseStatusId: first.caseStatusId,
					existingCaseStatus: first.caseStatus,
					existingCaseSecondaryStatusId: first.secondaryCaseStatusId,
					existingCaseSecondaryStatus: first.secondaryStatus,
					modStamp: first.modStamp,
				},
			],
		});

		expect((await postCase(again, await tokenFor(client.sandbox, 1))).status).toBe(200);
	});
});

describe('orderOverride', () => {
	it('add: creates another case for a candidate who has one', async () => {
		const first = await client.createCase();
		const result = await postCase(caseBody({ email: first.candidateEmail, orderOverride: 'add' }));
		expect(result.status).toBe(200);
		expect((result.body as { caseId: string }).caseId).not.toBe(first.id);
	});

	it('replace: archives the case replaceCaseId names, then creates the new one; an unknown one is refused', async () => {
		const first = await client.createCase();
		const refused = await postCase(
			caseBody({ email: first.candidateEmail, orderOverride: 'replace', replaceCaseId: 'nope' }),
		);
		expectRefused(refused, 422, /replaceCaseId/);
		const result = await postCase(
			caseBody({ email: first.candidateEmail, orderOverride: 'replace', replaceCaseId: first.id }),
		);
		expect(result.status).toBe(200);
		expect(client.admin.getCase(first.id).archived).toBe(1);
		// A 409 now names the new case only: the archived one is not the candidate's active case.
		const again = await postCase(caseBody({ email: first.candidateEmail }));
		expect(again.status).toBe(409);
		expect((again.body as { cases: Array<{ existingCaseId: string }> }).cases).toEqual([
			expect.objectContaining({ existingCaseId: (result.body as { caseId: string }).caseId }),
		]);
	});
});

describe('a sandbox started with refuseSameCandidate false', () => {
	const lenient = useSandboxClient({ refuseSameCandidate: false });

	it('creates a second case for the same email, as an API without the check would', async () => {
		const body = caseBody();
		const first = await lenient.createCase(body);
		const second = await lenient.createCase(body);
		expect(second.id).not.toBe(first.id);
		const email = String(body.email).toLowerCase();
		expect(lenient.admin.casesPerCandidate()).toEqual(new Map([[email, 2]]));
		expect((await lenient.adminCall('GET', '/cases-per-candidate')).body).toEqual({ [email]: 2 });
	});
});

describe('malformed bodies', () => {
	it('answers invalid JSON and missing required properties with 400', async () => {
		const response = await fetch(`${client.sandbox.url}/case/create`, {
			method: 'POST',
			headers: { authorization: `Bearer ${client.token}`, 'content-type': 'application/json' },
			body: '{"packageId":',
		});
		expect(response.status).toBe(400);
		expect(await response.json()).toEqual(badRequestBody);

		const result = await postCase({ packageId: 'pkg-basic-criminal', givenName: 'Ann' });
		expect(result.status).toBe(400);
		expect(result.body).toEqual(badRequestBody);
		expect(messages(result.body)).toEqual(
			expect.arrayContaining([
				"body must have required property 'email'",
				"body must have required property 'familyName'",
			]),
		);
	});
});
