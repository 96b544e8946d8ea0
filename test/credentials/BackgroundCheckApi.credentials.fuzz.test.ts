/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- repository tooling: runs in Node.js, never inside n8n */
/**
 * Fuzz: where the Background Check API credential lets its bearer token go. For generated request options
 * (n8n's `url` / `baseURL`, the request library's `uri`, as nodes and the HTTP Request node pass them), the
 * token is attached exactly when the URL the request would really go to has the origin of the credential's
 * base URL. "Really go to" is computed by an independent oracle: axios's own getUri (the axios that
 * n8n 2.8.4 sends with, 1.12.0) joins base and address, and the WHATWG URL parser reads the result, as
 * axios's HTTP adapter does. A refusal never contains the token.
 */
import axios from 'axios';
import * as fc from 'fast-check';
import type { IHttpRequestOptions } from 'n8n-workflow';

import { BackgroundCheckApi } from '../../credentials/BackgroundCheckApi.credentials';
import { RUNS, runs } from '../helpers/fuzzSettings';

const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJncm91cCI6ImZ1enoifQ.ZnV6ei10b2tlbi1zaWduYXR1cmU';
const credential = new BackgroundCheckApi();

/** Where the oracle says a request goes, or undefined when axios could not send it (no absolute URL). */
function destination(address: unknown, baseURL: unknown): URL | undefined {
	try {
		return new URL(
			axios.getUri({ url: address as string | undefined, baseURL: baseURL as string | undefined }),
		);
	} catch {
		return undefined;
	}
}

const BASES = [
	'https://api.example.com',
	'https://api.example.com/v1/',
	'https://api.example.com:8443/base',
	'http://127.0.0.1:7450',
	'http://[::1]:7450/',
];
const HOSTS = [
	'api.example.com',
	'API.Example.COM',
	'api.example.com.',
	'evil.example',
	'api.example.com.evil.example',
	'evil.api.example.com',
	'127.0.0.1',
	'127.0.0.2',
	'localhost',
	'[::1]',
	'0.0.0.0',
	'xn--pi-7ka.example',
];
const SCHEMES = ['https:', 'http:', 'HTTPS:', 'ftp:', 'ws:', 'javascript:', 'file:'];
const PORTS = ['', ':443', ':80', ':8443', ':7450', ':0443', ':65536', ':'];
const PATHS = [
	'',
	'/',
	'/case/list',
	'/v1/case/list',
	'/../x',
	'/%2e%2e/x',
	'?q=1',
	'#f',
	'/a?b#c',
];

const absolute = fc
	.tuple(
		fc.constantFrom(...SCHEMES),
		fc.constantFrom('//', '/', '', '///', '\\\\', '/\\'),
		fc.constantFrom('', 'user@', 'user:pass@', 'api.example.com@'),
		fc.constantFrom(...HOSTS),
		fc.constantFrom(...PORTS),
		fc.constantFrom(...PATHS),
	)
	.map((parts) => parts.join(''));
const relative = fc
	.tuple(
		fc.constantFrom('', '/', '//', '///', '\\', '\\\\', './', '../', ' ', '\t', '\n'),
		fc.constantFrom(...HOSTS, 'case', 'case/list'),
		fc.constantFrom(...PATHS),
	)
	.map((parts) => parts.join(''));
const padded = (address: fc.Arbitrary<string>) =>
	fc
		.tuple(fc.constantFrom('', ' ', '\t', '\n', '\u0000'), address)
		.map(([pad, value]) => pad + value);
const address = fc.oneof(padded(absolute), padded(relative), fc.string({ maxLength: 30 }));
const maybe = <T>(value: fc.Arbitrary<T>) => fc.option(value, { nil: undefined });

/** Addresses on the origin of `base`, written in the ways a node or a user may write them. */
function sameOrigin(base: string): fc.Arbitrary<string> {
	const { protocol, hostname, port } = new URL(base);
	const defaultPort = protocol === 'https:' ? ':443' : ':80';
	return fc
		.tuple(
			fc.constantFrom(protocol, protocol.toUpperCase()),
			fc.constantFrom(hostname, hostname.toUpperCase()),
			fc.constantFrom(port ? `:${port}` : '', port ? `:${port}` : defaultPort),
			fc.constantFrom(...PATHS),
		)
		.map(([scheme, host, hostPort, path]) => `${scheme}//${host}${hostPort}${path}`);
}

describe('the credential attaches its token exactly for its own origin', () => {
	it('for any url, uri and baseURL, against axios as the oracle', async () => {
		const outcomes = { attached: 0, refused: 0 };
		const request = fc.constantFrom(...BASES).chain((base) => {
			const near = fc.oneof(
				address,
				sameOrigin(base),
				fc.constantFrom(...PATHS, 'case/list', '/case/list'),
			);
			return fc.tuple(
				fc.constant(base),
				maybe(near),
				maybe(near),
				maybe(fc.oneof(fc.constantFrom(...BASES), sameOrigin(base), padded(absolute))),
			);
		});
		await fc.assert(
			fc.asyncProperty(request, async ([base, url, uri, baseURL]) => {
				const options: Record<string, unknown> = {};
				if (url !== undefined) options.url = url;
				if (uri !== undefined) options.uri = uri;
				if (baseURL !== undefined) options.baseURL = baseURL;
				const own = new URL(base).origin;
				// n8n 2.8 sends `url` when set, else `uri`; n8n 2.41 `url ?? uri`: either may be used
				const targets = (
					url !== undefined || uri !== undefined
						? [url, uri].filter((value) => value !== undefined)
						: [undefined]
				).map((target) => destination(target, baseURL));
				const mayAttach = targets.every((target) => target !== undefined && target.origin === own);
				let attached = false;
				try {
					const signed = await credential.authenticate(
						{ environment: 'custom', customBaseUrl: base, token: TOKEN },
						options as unknown as IHttpRequestOptions,
					);
					attached = signed.headers?.Authorization === `Bearer ${TOKEN}`;
					expect(attached).toBe(true);
				} catch (error) {
					expect((error as Error).message).toMatch(/^Refusing to send/);
					expect((error as Error).message).not.toContain(TOKEN.slice(0, 24));
				}
				expect(attached).toBe(mayAttach);
				outcomes[attached ? 'attached' : 'refused']++;
			}),
			runs(RUNS.many),
		);
		// both answers were really exercised
		expect(Math.min(outcomes.attached, outcomes.refused)).toBeGreaterThan(RUNS.many / 10);
	});
});
