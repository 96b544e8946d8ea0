/* eslint-disable @n8n/community-nodes/no-dangerous-functions -- a test: evaluates the credential's own expression as n8n would, never inside n8n */
import type { IHttpRequestHelper, IHttpRequestOptions } from 'n8n-workflow';

import { BackgroundCheckApi } from '../../credentials/BackgroundCheckApi.credentials';
import {
	API_ENVIRONMENTS,
	BASE_URL_EXPRESSION,
	insecureUrlReason,
	resolveBaseUrl,
} from '../../credentials/shared/apiEnvironment';

function helperAnswering(answer: (options: IHttpRequestOptions) => unknown) {
	const calls: IHttpRequestOptions[] = [];
	const helper = {
		helpers: {
			httpRequest: async (options: IHttpRequestOptions) => {
				calls.push(options);
				return answer(options);
			},
		},
	} as unknown as IHttpRequestHelper;
	return { helper, calls };
}

const sandboxCredentials = {
	environment: 'custom',
	customBaseUrl: 'http://127.0.0.1:7450/',
	apiKey: 'demo-api-key',
	clientAccessToken: 'demo-client-token',
	token: '',
};

describe('Background Check API credential', () => {
	const credential = new BackgroundCheckApi();

	it('exchanges apiKey + clientAccessToken for the token with one POST /auth/api', async () => {
		const { helper, calls } = helperAnswering(() => ({
			id: 'c1',
			username: 'api-x',
			token: 'jwt-token',
			groupProfileId: 'g1',
		}));
		const result = await credential.preAuthentication.call(helper, sandboxCredentials);
		expect(result).toEqual({ token: 'jwt-token' });
		expect(calls).toHaveLength(1);
		expect(calls[0]).toMatchObject({
			method: 'POST',
			url: 'http://127.0.0.1:7450/auth/api',
			body: { apiKey: 'demo-api-key', clientAccessToken: 'demo-client-token' },
		});
	});

	it('reads a 403 from /auth/api as credentials that were not accepted, without echoing them', async () => {
		const { helper } = helperAnswering(() => {
			throw Object.assign(new Error('Request failed with status code 403'), {
				response: { status: 403 },
			});
		});
		const failure = credential.preAuthentication.call(helper, sandboxCredentials);
		await expect(failure).rejects.toThrow('the API key or client access token was not accepted');
		await failure.catch((error: Error) => {
			expect(error.message).not.toContain('demo-api-key');
			expect(error.message).not.toContain('demo-client-token');
		});
	});

	it('refuses an answer without a token', async () => {
		const { helper } = helperAnswering(() => ({ id: 'c1' }));
		await expect(credential.preAuthentication.call(helper, sandboxCredentials)).rejects.toThrow(
			'without a token',
		);
	});

	it('refuses to exchange over plain HTTP to a remote host', async () => {
		const { helper, calls } = helperAnswering(() => ({ token: 't' }));
		await expect(
			credential.preAuthentication.call(helper, {
				...sandboxCredentials,
				customBaseUrl: 'http://api.example.com',
			}),
		).rejects.toThrow(/HTTPS/);
		expect(calls).toHaveLength(0);
	});

	it('sends the token as a bearer header, never in the query string', async () => {
		const signed = await credential.authenticate(
			{ ...sandboxCredentials, token: 'jwt-token' },
			{
				url: 'http://127.0.0.1:7450/case/list',
				qs: { limit: 1 },
				headers: { Accept: 'application/json' },
			},
		);
		expect(signed.headers).toEqual({
			Accept: 'application/json',
			Authorization: 'Bearer jwt-token',
		});
		expect(JSON.stringify(signed.qs)).not.toContain('jwt-token');
		expect(signed.url).not.toContain('jwt-token');
	});

	it('will not attach the token to a plain-HTTP request for a remote host (HTTP Request node too)', async () => {
		await expect(
			credential.authenticate({ token: 'jwt-token' }, { url: 'http://api.example.com/case/list' }),
		).rejects.toThrow(/HTTPS/);
	});

	it('will not attach the token to a plain-HTTP request for a remote host given as `uri` (HTTP Request node)', async () => {
		// The HTTP Request node (v4) calls requestWithAuthentication with request-library options: the
		// address is in `uri`, and neither `url` nor `baseURL` is set.
		const legacyOptions = {
			uri: 'http://0.0.0.0:7450/shipment/mask/list',
			method: 'GET',
		} as unknown as IHttpRequestOptions;
		await expect(
			credential.authenticate({ ...sandboxCredentials, token: 'jwt-token' }, legacyOptions),
		).rejects.toThrow(/HTTPS/);
		const loopback = {
			uri: 'http://127.0.0.1:7450/shipment/mask/list',
			method: 'GET',
		} as unknown as IHttpRequestOptions;
		expect(
			(await credential.authenticate({ ...sandboxCredentials, token: 'jwt-token' }, loopback))
				.headers,
		).toEqual({ Authorization: 'Bearer jwt-token' });
	});

	it('attaches the token only for the origin of its own base URL (origin rules: security.test.ts)', async () => {
		const production = {
			environment: 'production',
			productionBaseUrl: 'https://api.example.com/v1',
			token: 'jwt-token',
		};
		await expect(
			credential.authenticate(production, { url: 'https://api.example.com/v1/case/list' }),
		).resolves.toMatchObject({
			headers: { Authorization: 'Bearer jwt-token' },
		});
		await expect(
			credential.authenticate(production, { url: 'https://other.example.com/case/list' }),
		).rejects.toThrow(
			"Refusing to send the Background Check API token to https://other.example.com: it is sent only to https://api.example.com, the credential's base URL",
		);
	});

	it('exchanges the key pair without following redirects (a 307 would resend the pair elsewhere)', async () => {
		const { helper, calls } = helperAnswering(() => ({ token: 't' }));
		await credential.preAuthentication.call(helper, sandboxCredentials);
		expect(calls[0]).toMatchObject({ disableFollowRedirect: true });
	});

	it('keeps the token hidden and expirable so n8n caches it and refreshes it only after a 401', () => {
		const token = credential.properties.find((property) => property.name === 'token');
		expect(token).toMatchObject({ type: 'hidden', typeOptions: { expirable: true } });
		for (const secret of ['apiKey', 'clientAccessToken']) {
			expect(credential.properties.find((p) => p.name === secret)?.typeOptions?.password).toBe(
				true,
			);
		}
	});

	it('tests the pair with POST /auth/api and names a 403 plainly', () => {
		expect(credential.test.request).toMatchObject({ method: 'POST', url: '/auth/api' });
		expect(credential.test.rules).toContainEqual({
			type: 'responseCode',
			properties: { value: 403, message: 'The API key or client access token was not accepted' },
		});
	});
});

describe('base URL rules', () => {
	it("the credential test's expression picks the base URL the code picks, for every environment and an unknown one", () => {
		const credential = new BackgroundCheckApi();
		expect(credential.test.request.baseURL).toBe(BASE_URL_EXPRESSION);
		// The expression's body, evaluated as n8n's expression engine would with $credentials in scope.
		const evaluate = new Function(
			'$credentials',
			`return ${BASE_URL_EXPRESSION.slice('={{'.length, -'}}'.length)}`,
		) as (credentials: Record<string, unknown>) => unknown;
		for (const environment of [...API_ENVIRONMENTS.map(({ name }) => name), 'unknown']) {
			const credentials: Record<string, unknown> = { environment };
			for (const [index, { field }] of API_ENVIRONMENTS.entries())
				credentials[field] = `https://api-${index}.example.com`;
			expect(evaluate(credentials)).toBe(resolveBaseUrl(credentials));
		}
	});

	it('offers the environments the code knows, and defaults to the one the code falls back to', () => {
		const environment = new BackgroundCheckApi().properties.find(
			({ name }) => name === 'environment',
		);
		expect(
			environment?.options?.map((option) => ('value' in option ? option.value : undefined)),
		).toEqual(API_ENVIRONMENTS.map(({ name }) => name));
		const credentials = Object.fromEntries(
			API_ENVIRONMENTS.map(({ field }, index) => [field, `https://api-${index}.example.com`]),
		);
		expect(resolveBaseUrl({ ...credentials, environment: environment?.default })).toBe(
			resolveBaseUrl(credentials),
		);
	});

	it.each([
		['https://api.example.com', undefined],
		['http://127.0.0.1:7450', undefined],
		['http://localhost:7450', undefined],
		['http://[::1]:7450', undefined],
		['http://api.example.com', /HTTPS/],
		['http://127.0.0.1.evil.example.com', /HTTPS/],
		['ftp://127.0.0.1', /HTTPS/],
	])('%s', (url, expected) => {
		const reason = insecureUrlReason(url);
		if (expected) expect(reason).toMatch(expected);
		else expect(reason).toBeUndefined();
	});

	it('uses the environment the credential selects and trims trailing slashes', () => {
		expect(
			resolveBaseUrl({
				environment: 'production',
				productionBaseUrl: 'https://api.example.com/v1/',
			}),
		).toBe('https://api.example.com/v1');
		expect(() => resolveBaseUrl({ environment: 'custom', customBaseUrl: '' })).toThrow('empty');
		expect(() => resolveBaseUrl({ environment: 'custom', customBaseUrl: 'not a url' })).toThrow(
			'not a valid URL',
		);
	});

	it('trims any number of trailing slashes and keeps the path', () => {
		expect(
			resolveBaseUrl({
				environment: 'custom',
				customBaseUrl: `https://api.example.com/v1${'/'.repeat(50)}`,
			}),
		).toBe('https://api.example.com/v1');
	});
});
