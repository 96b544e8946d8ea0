/**
 * Minimal cases for the bugs the bad-input fuzzing found in the node's validation and in the sandbox, each
 * fixed in its own commit. Without n8n: the node against the sandbox (test/integration/nodeSandbox.ts).
 */
import type { IDataObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { byId } from '../helpers/executeContext';
import { startNodeSandbox, type NodeSandbox } from '../integration/nodeSandbox';

let context: NodeSandbox;

beforeAll(async () => {
	context = await startNodeSandbox();
});

afterAll(async () => {
	await context.sandbox.stop();
});

beforeEach(() => context.sandbox.admin.reset());

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
		[{ resource: 'case', operation: 'getMany', additionalQuery: deepObject }, /^Additional Query Parameters \(JSON\) is nested more than 100 levels deep \[item 0\]$/],
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
	const [item] = await context.run({ resource: 'verificationBook', operation: 'search', limit: 1, additionalBody: `{"a":${'['.repeat(98)}${']'.repeat(98)}}` });
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
	const logged = context.sandbox.admin.requestLog().slice(before).filter((entry) => entry.path !== '/auth/api');
	expect(logged.map((entry) => [entry.method, entry.path, entry.status])).toEqual([['POST', '/vbook/search', 413]]);
});
