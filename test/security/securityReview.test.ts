/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- repository tooling: runs in Node.js, never inside n8n */
/**
 * What a security review of the built package found, one describe per finding. Every test here
 * failed on the code before the fix except those named "(held before)", neighbours kept as controls
 * (docs/security.md lists the findings and what holds now). They use only functions that existed then, so
 * that they failed on its behaviour rather than on a missing name.
 */
import type {
	ICredentialDataDecryptedObject,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INode,
} from 'n8n-workflow';

import { BackgroundCheckApi } from '../../credentials/BackgroundCheckApi.credentials';
import { describeApiError, redact } from '../../nodes/shared/transport';
import { checkBody } from '../../nodes/BackgroundCheck/helpers/inputChecks';
import {
	verifyDelivery,
	type VerificationConfig,
} from '../../nodes/BackgroundCheckTrigger/verification';
import { resolveBaseUrl } from '../../credentials/shared/apiEnvironment';
import { findInvalidNameCharacters } from '../../nodes/shared/bodyRules';
import {
	generateWebhookSecret,
	signStandardWebhook,
	verifyLegacyWebhook,
	verifyStandardWebhook,
} from '../../nodes/shared/webhookSignature';
import { KiB, LINEAR_RATIO_BOUND, linearCostRatio, repeatTo } from '../helpers/linearTime';
import { rejectionOf } from '../helpers/rejection';

const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJncm91cCI6ImVhc3QifQ.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg';
const stored: ICredentialDataDecryptedObject = {
	environment: 'production',
	productionBaseUrl: 'https://api.example.com',
	apiKey: 'partner-key-123',
	clientAccessToken: 'group-token-456',
	token: TOKEN,
};
const credential = new BackgroundCheckApi();

const refusal = (promise: Promise<unknown>) => rejectionOf(promise);

function helperFailingWith(error: Error) {
	const calls: IHttpRequestOptions[] = [];
	const helper = {
		helpers: {
			httpRequest: async (options: IHttpRequestOptions) => {
				calls.push(options);
				throw error;
			},
		},
	} as unknown as IHttpRequestHelper;
	return { helper, calls };
}

describe("finding 1: the bearer token goes only to the origin of the credential's base URL", () => {
	it.each<[string, Record<string, unknown>]>([
		[
			'another HTTPS host (the HTTP Request node pointed at a collector)',
			{ url: 'https://collector.other.example/collect' },
		],
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
		['plain HTTP to the same host (held before)', { url: 'http://api.example.com/case/list' }],
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
	])('refuses %s, saying why and without the token', async (_case, options) => {
		const error = await refusal(
			credential.authenticate(stored, options as unknown as IHttpRequestOptions),
		);
		expect(error.message).toMatch(/^Refusing to send/);
		expect(error.message).not.toContain(TOKEN);
		expect(error.message).not.toContain(TOKEN.slice(0, 20));
	});

	it.each<[string, Record<string, unknown>]>([
		['the base URL itself', { url: 'https://api.example.com/case/list' }],
		[
			'the default port written out and the host in capitals',
			{ url: 'https://API.EXAMPLE.com:443/case/list' },
		],
		['a relative url against the base', { baseURL: 'https://api.example.com/', url: '/case/list' }],
		[
			'a url without a leading slash against the base',
			{ baseURL: 'https://api.example.com', url: 'case/list' },
		],
		["the request library's uri", { uri: 'https://api.example.com/case/list' }],
	])('attaches the token to %s (held before)', async (_case, options) => {
		const signed = await credential.authenticate(stored, options as unknown as IHttpRequestOptions);
		expect(signed.headers).toMatchObject({ Authorization: `Bearer ${TOKEN}` });
	});

	it('follows no redirect with the token (a redirect may point anywhere)', async () => {
		const signed = (await credential.authenticate(stored, {
			url: 'https://api.example.com/case/list',
		})) as IHttpRequestOptions & {
			followRedirect?: boolean;
			followAllRedirects?: boolean;
		};
		expect(signed).toMatchObject({
			disableFollowRedirect: true,
			followRedirect: false,
			followAllRedirects: false,
		});
	});
});

describe('finding 2: a base URL with user info, a query or a fragment', () => {
	const custom = (customBaseUrl: string) => ({
		...stored,
		environment: 'custom',
		customBaseUrl,
		token: '',
	});

	it('is refused before the token exchange, and no message holds the password', async () => {
		const { helper, calls } = helperFailingWith(
			Object.assign(new Error('getaddrinfo ENOTFOUND api.example.com'), { code: 'ENOTFOUND' }),
		);
		const error = await refusal(
			credential.preAuthentication.call(helper, custom('https://user:s3cr3t@api.example.com')),
		);
		expect(error.message).toMatch(/user name or password/);
		expect(error.message).not.toContain('s3cr3t');
		expect(calls).toEqual([]);
		const authenticate = await refusal(
			credential.authenticate(custom('https://user:s3cr3t@api.example.com'), {
				url: 'https://api.example.com/x',
			}),
		);
		expect(authenticate.message).not.toContain('s3cr3t');
	});

	it('does not repeat a value that does not parse (it may hold a password)', () => {
		expect(() => resolveBaseUrl(custom('https://user:s3cr3t@'))).toThrow('not a valid URL');
		try {
			resolveBaseUrl(custom('https://user:s3cr3t@'));
		} catch (error) {
			expect((error as Error).message).not.toContain('s3cr3t');
		}
	});

	it.each([
		[
			'a query, which would receive the endpoint paths',
			'https://api.example.com/?tenant=1',
			/query/,
		],
		['an empty query', 'https://api.example.com/?', /query/],
		['a fragment', 'https://api.example.com/#v1', /fragment/],
	])('refuses %s', async (_case, baseUrl, reason) => {
		expect(() => resolveBaseUrl(custom(baseUrl))).toThrow(reason);
		const { helper, calls } = helperFailingWith(new Error('unreachable'));
		await expect(credential.preAuthentication.call(helper, custom(baseUrl))).rejects.toThrow(
			reason,
		);
		expect(calls).toEqual([]);
	});
});

describe('finding 3: signature headers are read in linear time', () => {
	const nowMs = 1_700_000_000_000;
	const legacy = (header: string) =>
		verifyLegacyWebhook({ rawBody: '{}', header, secret: 'legacy-secret', nowMs });

	it('the legacy header t=<now>,a=,a=,... costs linear time up to 64 KiB', () => {
		const header = (length: number) => repeatTo(`t=${nowMs},` + 'a=,'.repeat(length), length);
		const { ratio } = linearCostRatio(legacy, header(16 * KiB), header(64 * KiB));
		expect(ratio).toBeLessThan(LINEAR_RATIO_BOUND);
	}, 60_000);

	it('the legacy header t=<now>,v1=,v1=,... costs linear time up to 64 KiB', () => {
		const header = (length: number) => repeatTo(`t=${nowMs},` + 'v1=,'.repeat(length), length);
		const { ratio } = linearCostRatio(legacy, header(16 * KiB), header(64 * KiB));
		expect(ratio).toBeLessThan(LINEAR_RATIO_BOUND);
	}, 60_000);

	it('a webhook-signature of many entries costs linear time up to 64 KiB (held before)', () => {
		const secret = generateWebhookSecret();
		const standard = (webhookSignature: string) =>
			verifyStandardWebhook({
				rawBody: '{}',
				webhookId: 'msg_1',
				webhookTimestamp: '1700000000',
				webhookSignature,
				secrets: [secret],
				nowSeconds: 1_700_000_000,
			});
		const header = (length: number) => repeatTo('v1,AAAA, v1,', length);
		const { ratio } = linearCostRatio(standard, header(16 * KiB), header(64 * KiB));
		expect(ratio).toBeLessThan(LINEAR_RATIO_BOUND);
	}, 60_000);
});

describe('finding 4: redaction of API error text', () => {
	it('costs linear time on "eyJ" repeated up to 64 KiB', () => {
		const { ratio } = linearCostRatio(
			(text: string) => redact(text, ['partner-key-123']),
			repeatTo('eyJ', 16 * KiB),
			repeatTo('eyJ', 64 * KiB),
		);
		expect(ratio).toBeLessThan(LINEAR_RATIO_BOUND);
	}, 60_000);

	it('costs linear time on "eyJa." repeated, JWT-like segments without a token (held before)', () => {
		const { ratio } = linearCostRatio(
			(text: string) => redact(text),
			repeatTo('eyJa.', 16 * KiB),
			repeatTo('eyJa.', 64 * KiB),
		);
		expect(ratio).toBeLessThan(LINEAR_RATIO_BOUND);
	}, 60_000);

	it('shows a bounded excerpt of a long API message, not the whole body', () => {
		const described = describeApiError('POST', '/case/create', 400, {
			message: 'lastName is invalid. ' + 'x'.repeat(120 * KiB),
		});
		expect(described.message.startsWith('lastName is invalid. xxx')).toBe(true);
		expect(described.message.length).toBeLessThan(1000);
		const text = describeApiError('GET', '/case/id/x', 404, 'y'.repeat(120 * KiB));
		expect(text.message.length).toBeLessThan(1000);
		const server = describeApiError('GET', '/case/list', 502, '<html>' + 'z'.repeat(120 * KiB));
		expect(server.message.length).toBeLessThan(1000);
	});
});

describe('finding 5: several webhook-signature header lines', () => {
	const secret = generateWebhookSecret();
	const nowSeconds = 1_700_000_000;
	const body = Buffer.from('{"event":"case.statuschange"}');
	const good = signStandardWebhook(secret, 'msg_1', nowSeconds, body);
	const other = signStandardWebhook(generateWebhookSecret(), 'msg_1', nowSeconds, body);
	const config: VerificationConfig = {
		scheme: 'standard',
		signingSecrets: [secret],
		legacySecret: '',
		legacyHeaderName: '',
		toleranceSeconds: 300,
	};
	const deliver = (signature: string | string[]) =>
		verifyDelivery(
			{
				'webhook-id': 'msg_1',
				'webhook-timestamp': String(nowSeconds),
				'webhook-signature': signature,
			},
			body,
			config,
			nowSeconds * 1000,
		);

	it.each([
		['the good one in the first of two lines joined by n8n (", ")', `${good}, ${other}`],
		['the good one in the last of two lines joined by n8n (held before)', `${other}, ${good}`],
		['lines joined with "," alone', `${good},${other}`],
		['a first line of two entries (held before)', `${good} ${other}, ${other}`],
	])('accepts %s', (_case, header) => {
		expect(deliver(header)).toMatchObject({ valid: true, scheme: 'standard' });
	});

	it('accepts the lines as an array as well, and still refuses when none matches (held before)', () => {
		expect(deliver([other, good])).toMatchObject({ valid: true });
		expect(deliver(`${other}, ${other}`)).toMatchObject({
			valid: false,
			reason: 'signature mismatch',
		});
	});
});

describe('finding 6: the name rule of spec 7', () => {
	const node = { name: 'Background Check' } as INode;

	it('reads names in NFC: an accent typed as a combining mark is a letter', () => {
		expect(findInvalidNameCharacters('Jose\u0301')).toEqual([]);
		expect(findInvalidNameCharacters('Zoe\u0308-Anne')).toEqual([]);
	});

	it('counts decimal digits as digits, not other number signs', () => {
		expect(findInvalidNameCharacters('Ann 2nd'.replace(' ', ''))).toEqual([]);
		expect(findInvalidNameCharacters('Louis\u0663')).toEqual([]); // ARABIC-INDIC DIGIT THREE is a decimal digit
		expect(findInvalidNameCharacters('Ann½')).toEqual(['½']);
		expect(findInvalidNameCharacters('HenryⅫ')).toEqual(['Ⅻ']);
		expect(findInvalidNameCharacters('x²')).toEqual(['²']);
	});

	it('still refuses a combining mark that composes to no letter, and what spec 7 refuses (held before)', () => {
		expect(findInvalidNameCharacters('q\u0301')).toEqual(['\u0301']);
		expect(findInvalidNameCharacters('Ann Marie!')).toEqual([' ', '!']);
	});

	it('applies to case creation only, not to every body the node sends', () => {
		expect(() => checkBody(node, { orderData: [{ firstName: 'Ann Marie' }] }, 0)).not.toThrow();
		expect(() => checkBody(node, { criteria: { lastName: 'Van Dyke' } }, 1)).not.toThrow();
		// What stays for every body: staffingAgency's length.
		expect(() => checkBody(node, { staffingAgency: 'S'.repeat(101) }, 0)).toThrow('staffingAgency');
	});
});

describe("found by the fuzz suite: redaction left a token's signature behind", () => {
	const signature = 'c2lnbmF0dXJlLW9mLXRoZS10b2tlbg';

	it("when a credential value sat inside the JWT (removing it first broke the JWT's match)", () => {
		const text = `rejected eyJhbGciOiJIUzI1NiJ9partner-key-123.eyJncm91cCI6ImVhc3QifQ.${signature} for this key`;
		expect(redact(text, ['partner-key-123'])).not.toContain(signature);
	});

	it('when JWT-like text was glued before the token ("eyJab." + token)', () => {
		expect(redact(`token=eyJab.${TOKEN}`)).not.toContain(signature);
		expect(redact(`eyJa.b${TOKEN}`)).not.toContain(signature);
	});
});
