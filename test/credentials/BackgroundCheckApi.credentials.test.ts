/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-hardcoded-secrets -- a test: evaluates the credential's own expression as n8n would, never inside n8n */
/** The credential: the token exchange, where the token goes (generated requests: the fuzz file), the base URL. */
import type {
	ICredentialDataDecryptedObject,
	IHttpRequestHelper,
	IHttpRequestOptions,
} from 'n8n-workflow';

import { BackgroundCheckApi } from '../../credentials/BackgroundCheckApi.credentials';
import {
	API_ENVIRONMENTS,
	BASE_URL_EXPRESSION,
	insecureUrlReason,
	resolveBaseUrl,
} from '../../credentials/shared/apiEnvironment';
import { rejectionOf } from '../helpers/rejection';

const credential = new BackgroundCheckApi();

const sandboxCredentials = {
	environment: 'custom',
	customBaseUrl: 'http://127.0.0.1:7450/',
	apiKey: 'demo-api-key',
	clientAccessToken: 'demo-client-token',
	token: '',
};
const signedIn = { ...sandboxCredentials, token: 'jwt-token' };

/** The token exchange of `credentials` against an httpRequest answering `answer`, and its `calls`. */
function exchange(
	answer: (options: IHttpRequestOptions) => unknown,
	credentials: ICredentialDataDecryptedObject = sandboxCredentials,
) {
	const calls: IHttpRequestOptions[] = [];
	const httpRequest = async (options: IHttpRequestOptions) => {
		calls.push(options);
		return answer(options);
	};
	const helper = { helpers: { httpRequest } } as unknown as IHttpRequestHelper;
	return { result: credential.preAuthentication.call(helper, credentials), calls };
}
const failingExchange = (error: Error, credentials?: ICredentialDataDecryptedObject) =>
	exchange(() => {
		throw error;
	}, credentials);

const property = (name: string) => credential.properties.find((p) => p.name === name);

describe('Background Check API credential', () => {
	it('exchanges apiKey + clientAccessToken for the token with one POST /auth/api', async () => {
		const { result, calls } = exchange(() => ({
			id: 'c1',
			username: 'api-x',
			token: 'jwt-token',
			groupProfileId: 'g1',
		}));
		expect(await result).toEqual({ token: 'jwt-token' });
		expect(calls).toHaveLength(1);
		expect(calls[0]).toMatchObject({
			method: 'POST',
			url: 'http://127.0.0.1:7450/auth/api',
			body: { apiKey: 'demo-api-key', clientAccessToken: 'demo-client-token' },
		});
	});

	it('reads a 403 from /auth/api as credentials that were not accepted, without echoing them', async () => {
		const { result } = failingExchange(
			Object.assign(new Error('Request failed with status code 403'), {
				response: { status: 403 },
			}),
		);
		const error = await rejectionOf(result);
		expect(error.message).toContain('the API key or client access token was not accepted');
		expect(error.message).not.toContain('demo-api-key');
		expect(error.message).not.toContain('demo-client-token');
	});

	it('refuses an answer without a token', async () => {
		await expect(exchange(() => ({ id: 'c1' })).result).rejects.toThrow('without a token');
		for (const token of ['', 42, null])
			await expect(exchange(() => ({ id: 'c1', token })).result).rejects.toThrow('without a token');
	});

	it('refuses to exchange over plain HTTP to a remote host', async () => {
		const { result, calls } = exchange(() => ({ token: 't' }), {
			...sandboxCredentials,
			customBaseUrl: 'http://api.example.com',
		});
		await expect(result).rejects.toThrow(/HTTPS/);
		expect(calls).toHaveLength(0);
	});

	it('sends the token as a bearer header, never in the query string', async () => {
		const signed = await credential.authenticate(signedIn, {
			url: 'http://127.0.0.1:7450/case/list',
			qs: { limit: 1 },
			headers: { Accept: 'application/json' },
		});
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
		const legacy = (uri: string) =>
			credential.authenticate(signedIn, { uri, method: 'GET' } as unknown as IHttpRequestOptions);
		await expect(legacy('http://0.0.0.0:7450/shipment/mask/list')).rejects.toThrow(/HTTPS/);
		expect((await legacy('http://127.0.0.1:7450/shipment/mask/list')).headers).toEqual({
			Authorization: 'Bearer jwt-token',
		});
	});

	it('attaches the token only for the origin of its own base URL', async () => {
		const production = {
			environment: 'production',
			productionBaseUrl: 'https://api.example.com/v1',
			token: 'jwt-token',
		};
		await expect(
			credential.authenticate(production, { url: 'https://api.example.com/v1/case/list' }),
		).resolves.toMatchObject({ headers: { Authorization: 'Bearer jwt-token' } });
		await expect(
			credential.authenticate(production, { url: 'https://other.example.com/case/list' }),
		).rejects.toThrow(
			"Refusing to send the Background Check API token to https://other.example.com: it is sent only to https://api.example.com, the credential's base URL",
		);
	});

	describe('for a production base URL', () => {
		const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJncm91cCI6ImVhc3QifQ.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg';
		const stored: ICredentialDataDecryptedObject = {
			environment: 'production',
			productionBaseUrl: 'https://api.example.com',
			token: TOKEN,
		};
		const authenticate = (options: Record<string, unknown>) =>
			credential.authenticate(stored, options as unknown as IHttpRequestOptions);

		it.each<[string, Record<string, unknown>]>([
			['a scheme-relative URL, which does not parse on its own', { url: '//evil.example/x' }],
			[
				'an absolute url next to a good baseURL (axios ignores the base)',
				{ baseURL: 'https://api.example.com', url: 'http://evil.example/x' },
			],
			[
				'an absolute HTTPS url next to a good baseURL',
				{ baseURL: 'https://api.example.com', url: 'https://evil.example/x' },
			],
			[
				'a baseURL of another host with a relative url',
				{ baseURL: 'https://evil.example', url: '/case/list' },
			],
			["the request library's uri (HTTP Request node)", { uri: 'https://evil.example/case/list' }],
			[
				'url and uri that disagree',
				{ url: 'https://api.example.com/case/list', uri: 'https://evil.example/x' },
			],
			['another port of the same host', { url: 'https://api.example.com:8443/case/list' }],
			['plain HTTP to the same host', { url: 'http://api.example.com/case/list' }],
			[
				'the base host as user info of another host',
				{ url: 'https://api.example.com@evil.example/x' },
			],
			[
				'a host that only starts with the base host',
				{ url: 'https://api.example.com.evil.example/x' },
			],
			['leading whitespace before another host', { url: ' https://evil.example/x' }],
			['a relative URL with no base to resolve it against', { url: '/case/list' }],
		])(
			'refuses to attach the token to %s, saying why and without the token',
			async (_case, options) => {
				const error = await rejectionOf(authenticate(options));
				expect(error.message).toMatch(/^Refusing to send/);
				expect(error.message).not.toContain(TOKEN.slice(0, 20));
			},
		);

		it.each<[string, Record<string, unknown>]>([
			[
				'the default port written out and the host in capitals',
				{ url: 'https://API.EXAMPLE.com:443/case/list' },
			],
			[
				'a relative url against the base',
				{ baseURL: 'https://api.example.com/', url: '/case/list' },
			],
			[
				'a url without a leading slash against the base',
				{ baseURL: 'https://api.example.com', url: 'case/list' },
			],
		])('attaches the token to %s', async (_case, options) => {
			expect((await authenticate(options)).headers).toMatchObject({
				Authorization: `Bearer ${TOKEN}`,
			});
		});

		it('follows no redirect with the token (a redirect may point anywhere)', async () => {
			expect(await authenticate({ url: 'https://api.example.com/case/list' })).toMatchObject({
				disableFollowRedirect: true,
				followRedirect: false,
				followAllRedirects: false,
			});
		});
	});

	it('exchanges the key pair without following redirects (a 307 would resend the pair elsewhere)', async () => {
		const { result, calls } = exchange(() => ({ token: 't' }));
		await result;
		expect(calls[0]).toMatchObject({ disableFollowRedirect: true });
	});

	it('keeps the token hidden and expirable so n8n caches it and refreshes it only after a 401', () => {
		expect(property('token')).toMatchObject({ type: 'hidden', typeOptions: { expirable: true } });
		for (const secret of ['apiKey', 'clientAccessToken'])
			expect(property(secret)?.typeOptions?.password).toBe(true);
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
	/** One URL per environment, in the field that environment reads. */
	const urlPerEnvironment = () =>
		Object.fromEntries(
			API_ENVIRONMENTS.map(({ field }, index) => [field, `https://api-${index}.example.com`]),
		);
	const customUrl = (customBaseUrl: string) =>
		resolveBaseUrl({ environment: 'custom', customBaseUrl });

	it("the credential test's expression picks the base URL the code picks, for every environment and an unknown one", () => {
		expect(credential.test.request.baseURL).toBe(BASE_URL_EXPRESSION);
		// The expression's body, evaluated as n8n's expression engine would with $credentials in scope.
		const evaluate = new Function(
			'$credentials',
			`return ${BASE_URL_EXPRESSION.slice('={{'.length, -'}}'.length)}`,
		) as (credentials: Record<string, unknown>) => unknown;
		for (const environment of [...API_ENVIRONMENTS.map(({ name }) => name), 'unknown']) {
			const credentials = { ...urlPerEnvironment(), environment };
			expect(evaluate(credentials)).toBe(resolveBaseUrl(credentials));
		}
	});

	it('offers the environments the code knows, and defaults to the one the code falls back to', () => {
		const environment = property('environment');
		expect(
			environment?.options?.map((option) => ('value' in option ? option.value : undefined)),
		).toEqual(API_ENVIRONMENTS.map(({ name }) => name));
		const credentials = urlPerEnvironment();
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
		expect(() => customUrl('')).toThrow('empty');
		expect(() => customUrl('not a url')).toThrow('not a valid URL');
	});

	it('trims any number of trailing slashes and keeps the path', () => {
		expect(customUrl(`https://api.example.com/v1${'/'.repeat(50)}`)).toBe(
			'https://api.example.com/v1',
		);
	});

	describe('a custom base URL with user info, a query or a fragment', () => {
		const custom = (customBaseUrl: string) => ({ ...sandboxCredentials, customBaseUrl });

		it('is refused before the token exchange, and no message holds the password', async () => {
			const withPassword = custom('https://user:s3cr3t@api.example.com');
			const { result, calls } = failingExchange(
				Object.assign(new Error('getaddrinfo ENOTFOUND api.example.com'), { code: 'ENOTFOUND' }),
				withPassword,
			);
			const error = await rejectionOf(result);
			expect(error.message).toMatch(/user name or password/);
			expect(error.message).not.toContain('s3cr3t');
			expect(calls).toEqual([]);
			const authenticate = await rejectionOf(
				credential.authenticate(withPassword, { url: 'https://api.example.com/x' }),
			);
			expect(authenticate.message).not.toContain('s3cr3t');
		});

		it('is not repeated when it does not parse (it may hold a password)', () => {
			expect(() => resolveBaseUrl(custom('https://user:s3cr3t@'))).toThrow('not a valid URL');
			expect(() => resolveBaseUrl(custom('https://user:s3cr3t@'))).not.toThrow('s3cr3t');
		});

		it.each([
			[
				'a query, which would receive the endpoint paths',
				'https://api.example.com/?tenant=1',
				/query/,
			],
			['an empty query', 'https://api.example.com/?', /query/],
			['a fragment', 'https://api.example.com/#v1', /fragment/],
			['an empty fragment', 'https://api.example.com/#', /fragment/],
		])('is refused with %s, before the token exchange', async (_case, baseUrl, reason) => {
			expect(() => resolveBaseUrl(custom(baseUrl))).toThrow(reason);
			const { result, calls } = failingExchange(new Error('unreachable'), custom(baseUrl));
			await expect(result).rejects.toThrow(reason);
			expect(calls).toEqual([]);
		});
	});
});
