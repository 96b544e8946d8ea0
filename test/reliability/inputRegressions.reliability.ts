/**
 * Minimal cases for the bugs the bad-input fuzzing found in the node's validation and in the sandbox, each
 * fixed in its own commit. Without n8n: the node against the sandbox (test/helpers/nodeSandbox.ts).
 */
import type { IDataObject, IExecuteFunctions, INode } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { apiPath, apiRequest } from '../../nodes/shared/transport';
import { byId } from '../helpers/executeContext';
import { useNodeSandbox } from '../helpers/nodeSandbox';

const context = useNodeSandbox();

async function failureOf(parameters: IDataObject): Promise<Error> {
	try {
		await context.run(parameters);
	} catch (error) {
		return error as Error;
	}
	throw new Error('the node did not fail');
}

test('an ID with "%" (an encoded dot segment, an encoded slash) or a control character is refused, naming the field, before any request', async () => {
	for (const id of ['%2e%2e', '%2E%2E', '..%2f', '%2F', '%', 'a%00b', 'a\u0000b', 'a\u007fb']) {
		context.sandbox.admin.reset();
		const error = await failureOf({ resource: 'case', operation: 'get', caseId: byId(id) });
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toBe(`Case ID "${id}" is not a valid ID [item 0]`);
		expect(context.sandbox.admin.requestLog()).toEqual([]);
	}
});

test('JSON nested thousands of levels deep is refused naming the field, not with "Maximum call stack size exceeded" (or "got no answer") after a token exchange', async () => {
	const deepObject = `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`;
	const deepArray = `{"a":${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
	const cases: Array<[IDataObject, RegExp]> = [
		[
			{ resource: 'case', operation: 'getMany', additionalQuery: deepObject },
			/^Additional Query Parameters \(JSON\) is nested more than 100 levels deep \[item 0\]$/,
		],
		[
			{ resource: 'verificationBook', operation: 'search', additionalBody: deepArray },
			/^Additional Fields \(JSON\) is nested more than 100 levels deep \[item 0\]$/,
		],
	];
	for (const [parameters, message] of cases) {
		context.sandbox.admin.reset();
		const error = await failureOf(parameters);
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toMatch(message);
		expect(context.sandbox.admin.requestLog()).toEqual([]);
	}
	// 100 levels are fine.
	const [item] = await context.run({
		resource: 'verificationBook',
		operation: 'search',
		limit: 1,
		additionalBody: `{"a":${'['.repeat(98)}${']'.repeat(98)}}`,
	});
	expect(item.json).toHaveProperty('id');
});

test('the sandbox logs a request whose body it refuses as too large (413), so "sent once" and "nothing sent" can be proved for huge bodies', async () => {
	const [item] = await context.run({ resource: 'shipmentMask', operation: 'getMany', limit: 1 });
	expect(item.json).toHaveProperty('id');
	const before = context.sandbox.admin.requestLog().length;
	let error: Error | undefined;
	try {
		await context.run({
			resource: 'verificationBook',
			operation: 'search',
			additionalBody: JSON.stringify({ note: 'x'.repeat(11 * 1024 * 1024) }),
		});
	} catch (caught) {
		error = caught as Error;
	}
	expect(error?.message).toBe('The request body is too large');
	const logged = context.sandbox.admin
		.requestLog()
		.slice(before)
		.filter((entry) => entry.path !== '/auth/api');
	expect(logged.map((entry) => [entry.method, entry.path, entry.status])).toEqual([
		['POST', '/vbook/search', 413],
	]);
});

test('a request that times out (60 s) says so, not "The connection was aborted, perhaps the server is offline" (what n8n makes of axios\'s ECONNABORTED)', async () => {
	const node = {
		name: 'Background Check',
		type: 'n8n-nodes-background-check.backgroundCheck',
	} as INode;
	// What n8n-core throws when axios gives up after `timeout`: a NodeApiError around the axios error.
	const timeout = Object.assign(new Error('timeout of 60000ms exceeded'), {
		code: 'ECONNABORTED',
		isAxiosError: true,
	});
	const executeContext = {
		getNode: () => node,
		getCredentials: async () => ({
			environment: 'custom',
			customBaseUrl: 'https://api.example.com',
			apiKey: 'k',
			clientAccessToken: 't',
			token: 'x',
		}),
		helpers: {
			httpRequestWithAuthentication: async () => {
				throw new NodeApiError(node, timeout as never);
			},
		},
	} as unknown as IExecuteFunctions;
	let error: NodeApiError | undefined;
	try {
		await apiRequest.call(executeContext, 'POST', apiPath`/case/create`, { body: {} });
	} catch (caught) {
		error = caught as NodeApiError;
	}
	expect(error?.message).toBe('The request POST /case/create got no answer within 60 seconds');
	expect(error?.description).toMatch(/may or may not have been carried out/);
});
