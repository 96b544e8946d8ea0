/** Spec 2.1, 4.1 and 5: the token exchange, bearer checks, group isolation and revocation. */
import type { Sandbox } from '../../sandbox';
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
		['no values', {}],
	])('answers 403 for %s', async (_case, body) => {
		const result = await call(sandbox, 'POST', '/auth/api', { body });
		expect(result.status).toBe(403);
	});
});

describe('bearer header', () => {
	it('is required on every other route', async () => {
		for (const [method, path] of [
			['GET', '/case/list'],
			['POST', '/case/create'],
			['GET', '/shipment/mask/list'],
			['POST', '/vbook/search'],
		]) {
			const result = await call(sandbox, method, path, {
				body: method === 'POST' ? {} : undefined,
			});
			expect(result.status).toBe(401);
			expect(result.body).toMatchObject({ error: 'Unauthorized', statusCode: 401 });
		}
	});

	it('rejects a token the sandbox did not sign', async () => {
		const token = await tokenFor(sandbox);
		const tampered = `${token.slice(0, -2)}xx`;
		expect((await call(sandbox, 'GET', '/case/list', { token: tampered })).status).toBe(401);
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
			message: expect.stringMatching(/belongs to another group or is not accessible/),
			error: 'Forbidden',
			statusCode: 403,
		});
		for (const path of [
			`/case/id/${eastCase.id}/data/any`,
			`/service/cplc/case/id/${eastCase.id}`,
		]) {
			expect((await call(sandbox, 'GET', path, { token: west })).status).toBe(403);
		}
		expect((await call(sandbox, 'GET', '/case/list', { token: west })).body.caseList).toEqual([]);
		expect((await call(sandbox, 'GET', '/case/list', { token: east })).body.caseList).toHaveLength(
			1,
		);
	});

	it('answers an unknown case with 404 and the bare text "Invalid case"', async () => {
		const result = await call(sandbox, 'GET', '/case/id/00000000-0000-0000-0000-000000000000', {
			token: await tokenFor(sandbox),
		});
		expect(result.status).toBe(404);
		expect(result.contentType).toMatch(/^text\/plain/);
		expect(result.body).toBe('Invalid case');
	});
});

describe('revocation', () => {
	it('turns the token into a 401 and lets the pair obtain a new token', async () => {
		const token = await tokenFor(sandbox, 0);
		const otherGroup = await tokenFor(sandbox, 1);

		expect(sandbox.admin.revokeToken({ token })).toEqual({ revoked: 1 });

		const result = await call(sandbox, 'GET', '/case/list', { token });
		expect(result.status).toBe(401);
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
		expect((await call(sandbox, 'GET', '/case/list', { token })).status).toBe(401);
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
		expect(log[1].groupProfileId).toBe('group-profile-east');
		const serialized = JSON.stringify(log);
		expect(serialized).not.toContain(token);
		expect(serialized).not.toContain(sandbox.demoCredentials[0].clientAccessToken);
	});
});
