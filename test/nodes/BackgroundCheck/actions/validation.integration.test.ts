/**
 * Bad input is refused before any request (not even the token exchange), with an error that names the field
 * and the item: the cases the breadth of badInputEveryOperation.integration.test.ts does not hold (how a
 * refused character is named, names sent in NFC, nothing to send, the failing item after others ran).
 * API failures: no retry of writes, the "may or may not" wording, 409 / 403, and the one re-exchange after
 * a 401. Continue On Fail: execute.integration.test.ts.
 */
import type { IDataObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { byId } from '../../../helpers/executeContext';
import {
	createCase,
	newCaseParameters,
	useNodeSandbox,
	type NodeSandbox,
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

	it('refuses Add Services without services and a testimony update with nothing to update', async () => {
		await expectRefusedBeforeAnyRequest(
			{ resource: 'case', operation: 'addServices', caseId: byId('case-1'), services: [] },
			/^Services is empty/,
		);
		await expectRefusedBeforeAnyRequest(
			{ resource: 'testimony', operation: 'update', testimonyId: 't-1', caseId: byId('case-1') },
			/^Nothing to update/,
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
			context.sandbox.admin.reset();
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
				resource: 'case',
				operation: 'getMany',
				additionalQuery: `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`,
			},
			/^Additional Query Parameters \(JSON\) is nested more than 100 levels deep/,
		);
		context.sandbox.admin.reset();
		await expectRefusedBeforeAnyRequest(
			{
				resource: 'verificationBook',
				operation: 'search',
				additionalBody: `{"a":${'['.repeat(20_000)}${']'.repeat(20_000)}}`,
			},
			/^Additional Fields \(JSON\) is nested more than 100 levels deep/,
		);
		const [item] = await context.run({
			resource: 'verificationBook',
			operation: 'search',
			limit: 1,
			additionalBody: `{"a":${'['.repeat(98)}${']'.repeat(98)}}`,
		});
		expect(item.json).toHaveProperty('id');
	});
});

describe('API failures', () => {
	it('a body the API refuses as too large (413) was sent once, and the sandbox logs it, so "sent once" is provable', async () => {
		await expect(
			context.run({
				resource: 'verificationBook',
				operation: 'search',
				additionalBody: JSON.stringify({ note: 'x'.repeat(11 * 1024 * 1024) }),
			}),
		).rejects.toThrow('The request body is too large');
		expect(context.apiRequests().map(({ method, path, status }) => [method, path, status])).toEqual(
			[['POST', '/vbook/search', 413]],
		);
	});

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
