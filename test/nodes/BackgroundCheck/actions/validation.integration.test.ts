/**
 * Bad input is refused before any request (not even the token exchange), with an error that names the field
 * and the item; "Continue On Fail" puts the error on the item and goes on. API failures: no retry of writes,
 * the "may or may not" wording, 409 / 403, and the one re-exchange after a 401.
 */
import type { IDataObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { byId, itemWithFile } from '../../../helpers/executeContext';
import {
	createCase,
	newCaseParameters,
	useNodeSandbox,
	type NodeSandbox,
} from '../../../helpers/nodeSandbox';

const EMPLOYMENT_VERIFICATION = '9ac65633-b4c4-4062-875c-3556db9d2a08';

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
	const error = await failureOf(parameters, items);
	expect(error).toBeInstanceOf(NodeOperationError);
	expect(error.message).toMatch(message);
	expect(error.message).toMatch(/\[item 0\]$/);
	expect(error.context.itemIndex).toBe(0);
	expect(context.allRequests()).toEqual([]);
	return error;
}

describe('validation before any request', () => {
	it('refuses name characters the API rejects, naming the body field', async () => {
		await expectRefusedBeforeAnyRequest(
			newCaseParameters({ candidateFirstName: 'Ann!' }),
			/^candidate\.firstName contains characters the API does not accept \("!"\)/,
		);
		await expectRefusedBeforeAnyRequest(
			newCaseParameters({ aliases: { alias: [{ firstName: 'Annie', lastName: 'Van Dyke' }] } }),
			/^aliases\[0\]\.lastName contains characters the API does not accept \(space\)/,
		);
		await expectRefusedBeforeAnyRequest(
			newCaseParameters({ additionalBody: '{ "candidate": { "middleName": "J@" } }' }),
			/^candidate\.middleName contains characters/,
		);
	});

	it('accepts a name typed with a combining accent and sends it composed (NFC); still refuses ½ as a digit', async () => {
		await createCase(context, {
			candidateFirstName: 'Jose\u0301',
			aliases: { alias: [{ firstName: 'Zoe\u0308', lastName: 'Lee' }] },
		});
		const [request] = context.apiRequests();
		expect(request).toMatchObject({ path: '/case/create', status: 201 });
		expect(request.body).toMatchObject({
			candidate: { firstName: 'José' },
			aliases: [{ firstName: 'Zoë', lastName: 'Lee' }],
		});
		context.sandbox.admin.reset();
		await expectRefusedBeforeAnyRequest(
			newCaseParameters({ candidateLastName: 'Lee½' }),
			/^candidate\.lastName contains characters the API does not accept \("½"\)/,
		);
	});

	it('refuses a staffingAgency over 100 characters in order data and in testimony', async () => {
		const tooLong = 'S'.repeat(101);
		await expectRefusedBeforeAnyRequest(
			newCaseParameters({
				orderData: {
					employment: [{ serviceId: EMPLOYMENT_VERIFICATION, staffingAgency: tooLong }],
				},
			}),
			/^orderData\[0\]\.staffingAgency is 101 characters long; the API accepts at most 100/,
		);
		await expectRefusedBeforeAnyRequest(
			{
				resource: 'testimony',
				operation: 'update',
				testimonyId: 'testimony-1',
				caseId: byId('case-1'),
				testimonyOptions: { staffingAgency: tooLong },
			},
			/^staffingAgency is 101 characters long/,
		);
	});

	it('refuses empty IDs, naming the field', async () => {
		await expectRefusedBeforeAnyRequest(
			{ resource: 'case', operation: 'get', caseId: byId('') },
			/^Case ID is empty/,
		);
		await expectRefusedBeforeAnyRequest(
			{ resource: 'case', operation: 'get', caseId: byId('   ') },
			/^Case ID is empty/,
		);
		await expectRefusedBeforeAnyRequest(
			{ resource: 'package', operation: 'getServices', packageId: '' },
			/^Package ID is empty/,
		);
		await expectRefusedBeforeAnyRequest(
			{ resource: 'caseData', operation: 'cancelSearch', caseDataId: 'case-data-1', searchId: '' },
			/^Search ID is empty/,
		);
		await expectRefusedBeforeAnyRequest(
			{ resource: 'case', operation: 'getData', caseId: byId('case-1'), serviceTypeId: byId('') },
			/^Service Type ID is empty/,
		);
		await expectRefusedBeforeAnyRequest(
			{
				resource: 'testimony',
				operation: 'create',
				caseId: byId('case-1'),
				cplcId: '',
				firstName: 'A',
				lastName: 'B',
				licenseNumber: 'L',
				certifyingBody: 'C',
			},
			/^CPLC Definition ID is empty/,
		);
		await expectRefusedBeforeAnyRequest(
			{
				resource: 'testimony',
				operation: 'update',
				testimonyId: '',
				caseId: byId('case-1'),
				licenseFields: { state: 'TX' },
			},
			/^Testimony ID is empty/,
		);
	});

	it('refuses IDs with slashes, dot segments, spaces, ? or #', async () => {
		for (const malformed of ['a/b', '../x', '..', '.', 'case 1', 'case?x=1', 'case#1', 'a\\b']) {
			context.sandbox.admin.reset();
			await expectRefusedBeforeAnyRequest(
				{ resource: 'case', operation: 'get', caseId: byId(malformed) },
				/^Case ID ".*" is not a valid ID/,
			);
		}
		await expectRefusedBeforeAnyRequest(
			{ resource: 'caseData', operation: 'cancelSearch', caseDataId: 'x/y', searchId: 's' },
			/^Case Data ID "x\/y" is not a valid ID/,
		);
		await expectRefusedBeforeAnyRequest(
			newCaseParameters({ customServiceIds: 'service-bankruptcy, service drug' }),
			/^Custom Service IDs "service drug" is not a valid ID/,
		);
		await expectRefusedBeforeAnyRequest(
			newCaseParameters({
				orderData: {
					dotDrug: [
						{
							serviceId: '__custom',
							customServiceId: '',
							type: 'codt-drug-reason-for-test',
							value: 'x',
						},
					],
				},
			}),
			/^Order Data > DOT Drug Order Data 1: Service \(custom ID\) is empty/,
		);
		await expectRefusedBeforeAnyRequest(
			newCaseParameters({
				orderData: {
					employment: [{ serviceId: EMPLOYMENT_VERIFICATION, secureDocumentIds: 'doc-1, ../doc' }],
				},
			}),
			/^Order Data > Employment 1: Secure Document IDs "\.\.\/doc" is not a valid ID/,
		);
	});

	it('refuses JSON fields that do not parse or are not objects', async () => {
		await expectRefusedBeforeAnyRequest(
			newCaseParameters({ additionalBody: '{ "candidate": ' }),
			/^Additional Fields \(JSON\) is not valid JSON/,
		);
		await expectRefusedBeforeAnyRequest(
			newCaseParameters({ additionalBody: '[1, 2]' }),
			/^Additional Fields \(JSON\) must be a JSON object/,
		);
		await expectRefusedBeforeAnyRequest(
			newCaseParameters({
				orderData: {
					other: [{ serviceId: '', type: 't', additionalFields: 'jurisdictions: Travis' }],
				},
			}),
			/^Order Data > Other Order Data 1: Additional Fields \(JSON\) is not valid JSON/,
		);
		await expectRefusedBeforeAnyRequest(
			{ resource: 'case', operation: 'getMany', additionalQuery: '"page=2"' },
			/^Additional Query Parameters \(JSON\) must be a JSON object/,
		);
		await expectRefusedBeforeAnyRequest(
			{ resource: 'secureDocument', operation: 'create', additionalDocumentFields: '{,}' },
			/^Additional Document Fields \(JSON\) is not valid JSON/,
			{ items: [itemWithFile('a.pdf', Buffer.from('a'), 'application/pdf')] },
		);
	});

	it('refuses required values left empty and requests with nothing to send', async () => {
		await expectRefusedBeforeAnyRequest(
			newCaseParameters({ candidateEmail: ' ' }),
			/^Candidate Email is empty/,
		);
		await expectRefusedBeforeAnyRequest(
			{ resource: 'case', operation: 'addServices', caseId: byId('case-1'), services: [] },
			/^Services is empty/,
		);
		await expectRefusedBeforeAnyRequest(
			{ resource: 'testimony', operation: 'update', testimonyId: 't-1', caseId: byId('case-1') },
			/^Nothing to update/,
		);
	});

	it('refuses a secure document when the item has no such binary field', async () => {
		await expectRefusedBeforeAnyRequest(
			{ resource: 'secureDocument', operation: 'create', binaryPropertyName: 'license' },
			/^The item has no binary field 'license'/,
			{ items: [itemWithFile('a.pdf', Buffer.from('a'), 'application/pdf')] },
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
});

describe('Continue On Fail', () => {
	it('puts the error on the failing item, links it, and runs the other items', async () => {
		const output = await context.run(
			{
				resource: 'case',
				operation: 'get',
				caseId: (item: { json: IDataObject }) => byId(item.json.caseId as string),
			},
			{
				continueOnFail: true,
				items: [
					{ json: { caseId: '' } },
					{ json: { caseId: 'no-such-case' } },
					{ json: { caseId: 'a/b' } },
				],
			},
		);
		expect(output).toEqual([
			{
				json: { error: 'Case ID is empty [item 0]', errorDescription: expect.any(String) },
				pairedItem: { item: 0 },
			},
			{
				json: { error: 'Invalid case', errorDescription: expect.stringContaining('HTTP 404') },
				pairedItem: { item: 1 },
			},
			{
				json: {
					error: 'Case ID "a/b" is not a valid ID [item 2]',
					errorDescription: expect.any(String),
				},
				pairedItem: { item: 2 },
			},
		]);
		expect(context.apiRequests().map((entry) => entry.path)).toEqual(['/case/id/no-such-case']);
	});
});

describe('API failures', () => {
	it('does not retry a case creation that failed with a 5xx, and says the case may or may not exist', async () => {
		context.sandbox.admin.injectFault({
			kind: 'status',
			status: 503,
			method: 'POST',
			pathPrefix: '/case/create',
			times: 1,
		});
		const error = await failureOf(newCaseParameters());
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toMatch(/^The API failed on POST \/case\/create \(HTTP 503\)/);
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
		const error = await failureOf(newCaseParameters());
		expect(error.message).toMatch(/^The request POST \/case\/create got no answer/);
		expect(error.description).toMatch(/may or may not have been carried out/);
		expect(context.apiRequests().filter((entry) => entry.path === '/case/create')).toHaveLength(1);
	});

	it('reports the existing case when the candidate already has one (409)', async () => {
		const parameters = newCaseParameters();
		const existing = await createCase(context, parameters);
		const error = await failureOf(parameters);
		expect(error.message).toBe('The candidate already has a case in this group');
		expect(error.description).toContain(existing.id as string);
	});

	it('says a case of another group is refused (403)', async () => {
		const westCase = await createCase(context);
		const error = await failureOf(
			{ resource: 'case', operation: 'get', caseId: byId(westCase.id as string) },
			{ credentials: context.credentials(1) },
		);
		expect(error.message).toBe('Access to this case was refused (403)');
		expect(error.description).toMatch(/another company group/);
	});

	it('exchanges the key pair again once after a 401 (revoked token) and retries the request', async () => {
		const credentials = context.credentials();
		await context.run({ resource: 'shipmentMask', operation: 'getMany' }, { credentials });
		expect(credentials.exchanges).toBe(1);
		const firstToken = credentials.data.token;
		context.sandbox.admin.revokeToken({ groupProfileId: 'group-profile-east' });

		const output = await context.run(
			{ resource: 'shipmentMask', operation: 'getMany' },
			{ credentials },
		);
		expect(output).toHaveLength(3);
		expect(credentials.exchanges).toBe(2);
		expect(credentials.data.token).not.toBe(firstToken);
		expect(context.allRequests().map((entry) => [entry.path, entry.status])).toEqual([
			['/auth/api', 200],
			['/shipment/mask/list', 200],
			// The transport hands the 401 to n8n's throwing path, which exchanges again and retries once.
			['/shipment/mask/list', 401],
			['/shipment/mask/list', 401],
			['/auth/api', 200],
			['/shipment/mask/list', 200],
		]);
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
