/**
 * Spec 2.1, 4.1 and 5: the token exchange, bearer checks, group isolation and revocation, refused as the API
 * reference refuses them: 403 for a bad, missing or revoked token and for a case the token cannot see.
 */
import type { Sandbox } from '../../sandbox';
import { SERVICE_TYPES } from '../../nodes/shared/catalog';
import { adminCall, call, createCase, startTestSandbox, tokenFor } from '../helpers/sandbox';

let sandbox: Sandbox;

beforeAll(async () => {
	sandbox = await startTestSandbox();
});
afterAll(() => sandbox.stop());
beforeEach(() => sandbox.admin.reset());

function decodeJwt(token: string) {
	const [header, payload] = token
		.split('.')
		.slice(0, 2)
		.map((part) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')));
	return { header, payload };
}

describe('POST /auth/api', () => {
	it('returns the API client resource with a JWT whose jti is the client id', async () => {
		const [east] = sandbox.demoCredentials;
		const result = await call(sandbox, 'POST', '/auth/api', {
			body: { apiKey: east.apiKey, clientAccessToken: east.clientAccessToken },
		});

		expect(result.status).toBe(200);
		expect(Object.keys(result.body).sort()).toEqual(['groupProfileId', 'id', 'token', 'username']);
		expect(result.body.groupProfileId).toBe(east.groupProfileId);
		expect(result.body.username).toContain('api');
		const { header, payload } = decodeJwt(result.body.token);
		expect(header).toEqual({ alg: 'HS256', typ: 'JWT' });
		expect(payload.jti).toBe(result.body.id);
		expect(payload.exp).toBeUndefined();
	});

	it('gives the same token for the group every time', async () => {
		expect(await tokenFor(sandbox, 0)).toBe(await tokenFor(sandbox, 0));
		expect(await tokenFor(sandbox, 0)).not.toBe(await tokenFor(sandbox, 1));
	});

	it.each([
		[
			'an unknown clientAccessToken',
			{ apiKey: 'sandbox-api-key-demo-partner', clientAccessToken: 'nope' },
		],
		[
			'an unknown apiKey',
			{ apiKey: 'nope', clientAccessToken: 'sandbox-client-access-token-east' },
		],
	])('answers 403 for %s', async (_case, body) => {
		const result = await call(sandbox, 'POST', '/auth/api', { body });
		expect(result.status).toBe(403);
	});

	it('refuses a body without the pair (400, naming what is missing)', async () => {
		const result = await call(sandbox, 'POST', '/auth/api', { body: {} });
		expect(result.status).toBe(400);
		expect(result.body.message).toEqual(
			expect.arrayContaining([
				"body must have required property 'apiKey'",
				"body must have required property 'clientAccessToken'",
			]),
		);
	});
});

describe('bearer header', () => {
	it('is required on every other route: 403 without one', async () => {
		for (const [method, path] of [
			['GET', '/case/list'],
			['POST', '/case/create'],
			['GET', '/shipment/mask/list'],
			['POST', '/vbook/search'],
		]) {
			const result = await call(sandbox, method, path, {
				body: method === 'POST' ? {} : undefined,
			});
			expect(result.status).toBe(403);
			expect(result.body).toMatchObject({ error: 'Forbidden', statusCode: 403 });
		}
	});

	it('rejects a token the sandbox did not sign with 403', async () => {
		const token = await tokenFor(sandbox);
		const tampered = `${token.slice(0, -2)}xx`;
		const result = await call(sandbox, 'GET', '/case/list', { token: tampered });
		expect(result.status).toBe(403);
		expect(result.body.message).toMatch(/Invalid bearer token/);
	});

	it('answers 401 on the search cancel, the one served operation that declares it', async () => {
		const result = await call(sandbox, 'POST', '/case/data/id/any/search/id/any/cancel', {
			token: 'not-a-token',
		});
		expect(result.status).toBe(401);
		expect(result.body).toMatchObject({ error: 'Unauthorized', statusCode: 401 });
	});
});

describe('group isolation', () => {
	it("answers another group's case with 403 and lists only the caller's cases", async () => {
		const east = await tokenFor(sandbox, 0);
		const west = await tokenFor(sandbox, 1);
		const eastCase = await createCase(sandbox, east);

		const result = await call(sandbox, 'GET', `/case/id/${eastCase.id}`, { token: west });
		expect(result.status).toBe(403);
		expect(result.body).toEqual({
			message: `Case ${eastCase.id} is not accessible with this token`,
			error: 'Forbidden',
			statusCode: 403,
		});
		for (const path of [
			`/case/id/${eastCase.id}/services`,
			`/case/id/${eastCase.id}/data/${SERVICE_TYPES[0].id}`,
			`/service/cplc/case/id/${eastCase.id}`,
			`/testimony/case/${eastCase.id}`,
			`/document/secure/list/case/id/${eastCase.id}`,
		]) {
			expect((await call(sandbox, 'GET', path, { token: west })).status).toBe(403);
		}
		const added = await call(sandbox, 'POST', `/case/id/${eastCase.id}/add/services`, {
			token: west,
			body: { services: [{ id: 'service-bankruptcy' }] },
		});
		expect(added.status).toBe(403);
		for (const path of ['/case/list', '/case/list/all'])
			expect((await call(sandbox, 'GET', path, { token: west })).body.cases).toEqual([]);
		expect((await call(sandbox, 'GET', '/case/list', { token: east })).body.cases).toHaveLength(1);
	});

	it('answers an unknown case with 403, or 404 where the operation declares one', async () => {
		const token = await tokenFor(sandbox);
		const unknown = '00000000-0000-0000-0000-000000000000';
		const result = await call(sandbox, 'GET', `/case/id/${unknown}`, { token });
		expect(result.status).toBe(403);
		expect(result.body).toMatchObject({ error: 'Forbidden', statusCode: 403 });
		const services = await call(sandbox, 'GET', `/case/id/${unknown}/services`, { token });
		expect(services.status).toBe(404);
		expect(services.body).toMatchObject({ error: 'Not Found', statusCode: 404 });
	});
});

describe('revocation', () => {
	it('turns the token into a 403 and lets the pair obtain a new token', async () => {
		const token = await tokenFor(sandbox, 0);
		const otherGroup = await tokenFor(sandbox, 1);

		expect(sandbox.admin.revokeToken({ token })).toEqual({ revoked: 1 });

		const result = await call(sandbox, 'GET', '/case/list', { token });
		expect(result.status).toBe(403);
		expect(result.body.message).toMatch(/revoked/);
		expect((await call(sandbox, 'GET', '/case/list', { token: otherGroup })).status).toBe(200);

		const renewed = await tokenFor(sandbox, 0);
		expect(renewed).not.toBe(token);
		expect((await call(sandbox, 'GET', '/case/list', { token: renewed })).status).toBe(200);
	});

	it('works over the admin HTTP interface by group', async () => {
		const token = await tokenFor(sandbox, 1);
		const response = await adminCall(sandbox, 'POST', '/tokens/revoke', {
			groupProfileId: sandbox.demoCredentials[1].groupProfileId,
		});
		expect(response.body).toEqual({ revoked: 1 });
		expect((await call(sandbox, 'GET', '/case/list', { token })).status).toBe(403);
	});
});

describe('request log', () => {
	it('records calls with the Authorization header and credential values redacted', async () => {
		const token = await tokenFor(sandbox);
		await call(sandbox, 'GET', '/case/list', { token });

		const log = sandbox.admin.requestLog();
		expect(log.map((entry) => [entry.method, entry.path, entry.status])).toEqual([
			['POST', '/auth/api', 200],
			['GET', '/case/list', 200],
		]);
		expect(log[0].body).toEqual({ apiKey: '[redacted]', clientAccessToken: '[redacted]' });
		expect(log[1].headers.authorization).toBe('Bearer [redacted]');
		expect(log[1].groupProfileId).toBe('4e0c2a8e-5b1f-4d3c-9a7e-2f6b1c8d3e01');
		const serialized = JSON.stringify(log);
		expect(serialized).not.toContain(token);
		expect(serialized).not.toContain(sandbox.demoCredentials[0].clientAccessToken);
	});
});
