/**
 * Bad input is refused before any request (not even the token exchange), with an error that names the field
 * and the item: the cases the breadth of badInputEveryOperation.integration.test.ts does not hold (how a
 * refused character is named, names sent in NFC, the flows' own rules, typed order data, the failing item
 * after others ran). API failures: no retry of writes, the "may or may not" wording, 409 / 403, and the one
 * re-exchange after a refused token. Continue On Fail: execute.integration.test.ts.
 */
import type { IDataObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { byId, itemWithFile } from '../../../helpers/executeContext';
import {
	caseParameters,
	type NodeSandbox,
	orderCase,
	useNodeSandbox,
} from '../../../helpers/nodeSandbox';

const context = useNodeSandbox();

/** Runs the node and returns the error it throws; fails when it does not throw. */
async function failureOf(
	parameters: IDataObject,
	items?: Parameters<NodeSandbox['run']>[1],
): Promise<NodeOperationError | NodeApiError> {
	try {
		await context.run(parameters, items);
	} catch (error) {
		return error as NodeOperationError | NodeApiError;
	}
	throw new Error('the node did not fail');
}

/** The node refused the input: an operation error on item 0 that says `message`, and nothing was sent. */
async function expectRefusedBeforeAnyRequest(
	parameters: IDataObject,
	message: RegExp,
	items?: Parameters<NodeSandbox['run']>[1],
) {
	context.sandbox.admin.reset();
	const error = await failureOf(parameters, items);
	expect(error).toBeInstanceOf(NodeOperationError);
	expect(error.message).toMatch(message);
	expect(error.message).toMatch(/\[item 0\]$/);
	expect(error.context.itemIndex).toBe(0);
	expect(context.allRequests()).toEqual([]);
	return error;
}

const customerProvided = (overrides: IDataObject = {}) =>
	caseParameters({
		flow: 'customerProvided',
		candidateConsentProvided: true,
		orderData: { dateOfBirth: [{ dob: '1980-02-22' }] },
		...overrides,
	});

describe('validation before any request', () => {
	it('refuses name characters the API rejects, naming the body field', async () => {
		await expectRefusedBeforeAnyRequest(
			caseParameters({ candidateFirstName: 'Ann!' }),
			/^givenName contains characters the API does not accept \("!"\)/,
		);
		await expectRefusedBeforeAnyRequest(
			caseParameters({ aliases: { alias: [{ firstName: 'Annie', lastName: 'Van Dyke' }] } }),
			/^orderData\[0\]\.metadata\.familyName contains characters the API does not accept \(space\)/,
		);
		await expectRefusedBeforeAnyRequest(
			caseParameters({ candidateFields: { middleName: 'J@' } }),
			/^middleName contains characters/,
		);
	});

	it('accepts a name typed with a combining accent and sends it composed (NFC); still refuses ½ as a digit', async () => {
		await orderCase(context, {
			candidateFirstName: 'Jose\u0301',
			aliases: { alias: [{ firstName: 'Zoe\u0308', lastName: 'Lee' }] },
		});
		const [request] = context.apiRequests();
		expect(request).toMatchObject({ path: '/case/create', status: 200 });
		expect(request.body).toMatchObject({
			givenName: 'José',
			orderData: [
				{ caseOrderDataTypeId: 'codt-alias', metadata: { givenName: 'Zoë', familyName: 'Lee' } },
			],
		});
		await expectRefusedBeforeAnyRequest(
			caseParameters({ candidateLastName: 'Lee½' }),
			/^familyName contains characters the API does not accept \("½"\)/,
		);
	});

	it('refuses an order without a package, and emails that are not emails', async () => {
		await expectRefusedBeforeAnyRequest(
			caseParameters({ packageId: byId('') }),
			/^Package ID is empty/,
		);
		await expectRefusedBeforeAnyRequest(
			caseParameters({ candidateEmail: 'ann at example.com' }),
			/^Candidate Email "ann at example.com" is not an email address/,
		);
		await expectRefusedBeforeAnyRequest(
			caseParameters({ contacts: { contact: [{ type: 'default', email: 'hr' }] } }),
			/^Contacts 1: Email "hr" is not an email address/,
		);
		await expectRefusedBeforeAnyRequest(
			caseParameters({ options: { orderedBy: 'recruiter' } }),
			/^Ordered By \(Email\) "recruiter" is not an email address/,
		);
	});

	it('holds the customer-provided data flow to its rules: the candidate’s consent, and order data', async () => {
		await expectRefusedBeforeAnyRequest(
			customerProvided({ candidateConsentProvided: false }),
			/^Candidate Consent Provided is off/,
		);
		await expectRefusedBeforeAnyRequest(
			customerProvided({ orderData: {} }),
			/^Order Data is empty/,
		);
	});

	it('checks typed order data, and the required metadata of other order data, without showing a government ID', async () => {
		await expectRefusedBeforeAnyRequest(
			customerProvided({ orderData: { dateOfBirth: [{ dob: '22/02/1980' }] } }),
			/^Order Data > Date of Birth 1: Date of Birth is not a date/,
		);
		const error = await expectRefusedBeforeAnyRequest(
			customerProvided({ orderData: { governmentId: [{ govtId: '987-65-432' }] } }),
			/^Order Data > Government ID 1: Government ID is not nine digits/,
		);
		expect(`${error.message} ${error.description}`).not.toContain('987-65-432');
		await expectRefusedBeforeAnyRequest(
			customerProvided({
				orderData: { currentAddress: [{ address1: '1 Main St', city: 'Austin', state: 'TX' }] },
			}),
			/^Order Data > Current Address 1: Postal Code is empty/,
		);
		await expectRefusedBeforeAnyRequest(
			caseParameters({
				orderData: { other: [{ type: 'codt-mvr', metadata: '{ "state": "TX" }' }] },
			}),
			/^Order Data > Other Order Data 1: Metadata \(JSON\) lacks licenseNumber/,
		);
		await expectRefusedBeforeAnyRequest(
			caseParameters({ aliases: { alias: [{ firstName: 'Annie' }] } }),
			/^Aliases 1: Family Name is empty/,
		);
		await expectRefusedBeforeAnyRequest(
			caseParameters({ candidateFields: { orderOverride: 'replace' } }),
			/^Case to Replace \(ID\) is empty/,
		);
	});

	it('refuses Add Services with nothing to add, a service type the API does not have, and a file format it does not store', async () => {
		await expectRefusedBeforeAnyRequest(
			{ resource: 'case', operation: 'addServices', caseId: byId('case-1'), services: [] },
			/^Services and Order Data are empty/,
		);
		await expectRefusedBeforeAnyRequest(
			{
				resource: 'case',
				operation: 'getData',
				caseId: byId('case-1'),
				serviceTypeId: byId('service-type-screening'),
			},
			/^Service Type ID "service-type-screening" is not a service type of the API/,
		);
		await expectRefusedBeforeAnyRequest(
			{ resource: 'secureDocument', operation: 'create' },
			/^The file format "gif" of 'data' is not one the API stores/,
			{ items: [itemWithFile('scan.gif', Buffer.from('GIF89a'), 'image/gif')] },
		);
	});

	it('names the item that failed, after the items before it ran', async () => {
		const error = await failureOf(
			{
				resource: 'package',
				operation: 'getServices',
				packageId: (item: { json: IDataObject }) => item.json.packageId,
			},
			{ items: [{ json: { packageId: 'pkg-driver' } }, { json: { packageId: 'pkg driver' } }] },
		);
		expect(error.message).toBe('Package ID "pkg driver" is not a valid ID [item 1]');
		expect(error.context.itemIndex).toBe(1);
		expect(context.apiRequests().map((entry) => entry.path)).toEqual([
			'/package/id/pkg-driver/services',
		]);
	});

	it('refuses an ID with "%" (an encoded dot segment or slash) or a control character, naming the field', async () => {
		for (const id of ['%2e%2e', '%2E%2E', '..%2f', '%2F', '%', 'a%00b', 'a\u0000b', 'a\u007fb']) {
			const error = await expectRefusedBeforeAnyRequest(
				{ resource: 'case', operation: 'get', caseId: byId(id) },
				/^Case ID ".*" is not a valid ID/,
			);
			expect(error.message).toBe(`Case ID "${id}" is not a valid ID [item 0]`);
		}
	});

	it('refuses JSON nested thousands of levels deep naming the field (not "Maximum call stack size exceeded"); 100 levels pass', async () => {
		await expectRefusedBeforeAnyRequest(
			{
				resource: 'testimony',
				operation: 'create',
				caseId: byId('case-1'),
				testimonyTypeId: '19edb27e-5bfd-4c0f-888a-a5130b2f5250',
				details: `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`,
			},
			/^Details \(JSON\) is nested more than 100 levels deep/,
		);
		await expectRefusedBeforeAnyRequest(
			caseParameters({
				orderData: {
					other: [
						{
							type: 'codt-ohs-service-substitutions',
							metadata: `{"a":${'['.repeat(20_000)}${']'.repeat(20_000)}}`,
						},
					],
				},
			}),
			/^Order Data > Other Order Data 1: Metadata \(JSON\) is nested more than 100 levels deep/,
		);
	});
});

describe('API failures', () => {
	it('a body the API refuses as too large (413) was sent once, and the sandbox logs it, so "sent once" is provable', async () => {
		const created = await orderCase(context);
		context.sandbox.admin.reset();
		await expect(
			context.run({
				resource: 'testimony',
				operation: 'create',
				caseId: byId(created.id),
				testimonyTypeId: '19edb27e-5bfd-4c0f-888a-a5130b2f5250',
				details: JSON.stringify({ comments: 'x'.repeat(11 * 1024 * 1024) }),
			}),
		).rejects.toThrow('The request body is too large');
		expect(context.apiRequests().map(({ method, path, status }) => [method, path, status])).toEqual(
			[['POST', `/testimony/create/case/id/${created.id}`, 413]],
		);
	});

	it('does not retry a case creation that failed with a 5xx, and says the case may or may not exist', async () => {
		context.sandbox.admin.injectFault({
			kind: 'status',
			status: 500,
			method: 'POST',
			pathPrefix: '/case/create',
			times: 1,
		});
		const error = await failureOf(caseParameters());
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toMatch(/^The API failed on POST \/case\/create \(HTTP 500\)/);
		expect(error.description).toMatch(/may or may not have been carried out/);
		expect(error.context.itemIndex).toBe(0);
		expect(context.apiRequests().filter((entry) => entry.path === '/case/create')).toHaveLength(1);
	});

	it('does not retry a case creation whose connection dropped', async () => {
		context.sandbox.admin.injectFault({
			kind: 'drop',
			method: 'POST',
			pathPrefix: '/case/create',
			times: 1,
		});
		const error = await failureOf(caseParameters());
		expect(error.message).toMatch(/^The request POST \/case\/create got no answer/);
		expect(error.description).toMatch(/may or may not have been carried out/);
		expect(context.apiRequests().filter((entry) => entry.path === '/case/create')).toHaveLength(1);
	});

	it('names the existing case when the candidate already has one (409)', async () => {
		const parameters = caseParameters();
		const existing = await orderCase(context, parameters);
		const error = await failureOf(parameters);
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toMatch(/already has a case/);
		expect(`${error.message} ${error.description}`).toContain(existing.id);
		expect(context.apiRequests().at(-1)).toMatchObject({ path: '/case/create', status: 409 });
	});

	it('says a case of another group is refused (403)', async () => {
		const westCase = await orderCase(context);
		const error = await failureOf(
			{ resource: 'case', operation: 'get', caseId: byId(westCase.id) },
			{ credentials: context.credentials(1) },
		);
		expect(error.message).toMatch(/refused/);
		expect(error.description).toMatch(/another company group/);
	});

	it('exchanges the key pair again once after the API refused a revoked token, and resends the request', async () => {
		const credentials = context.credentials();
		await context.run({ resource: 'shipmentMask', operation: 'getMany' }, { credentials });
		expect(credentials.exchanges).toBe(1);
		const firstToken = credentials.data.token;
		context.sandbox.admin.revokeToken({ groupProfileId: '4e0c2a8e-5b1f-4d3c-9a7e-2f6b1c8d3e01' });

		const output = await context.run(
			{ resource: 'shipmentMask', operation: 'getMany' },
			{ credentials },
		);
		expect(output.length).toBeGreaterThan(0);
		expect(credentials.exchanges).toBe(2);
		expect(credentials.data.token).not.toBe(firstToken);
		const masks = context.allRequests().filter((entry) => entry.path === '/shipment/mask/list');
		expect(masks.at(-1)!.status).toBe(200);
	});

	it('keeps secrets out of errors', async () => {
		const credentials = context.credentials();
		credentials.data.clientAccessToken = 'not-a-valid-client-access-token';
		const error = await failureOf(
			{ resource: 'shipmentMask', operation: 'getMany' },
			{ credentials },
		);
		expect(
			JSON.stringify({ message: error.message, description: error.description }),
		).not.toContain('not-a-valid-client-access-token');
		expect(error.message).toMatch(/not accepted/);
	});
});
