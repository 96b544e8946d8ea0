/**
 * Where the API lives. The spec names a stage and a production environment but not their addresses, so
 * both are editable defaults in the credential; "custom" covers anything else, such as the local sandbox.
 * The credential's Environment choices, its base URL fields and the credential test's expression are made
 * from this table, and resolveBaseUrl reads it: one rule for which address an environment means. The first
 * environment is the default.
 */
export const API_ENVIRONMENTS = [
	{
		name: 'stage',
		label: 'Stage',
		choiceDescription: 'Test orders; no real screenings are run',
		field: 'stageBaseUrl',
		defaultBaseUrl: 'https://stage-api.background-check.invalid',
		placeholder: 'https://stage-api.your-screening-provider.com',
		fieldDescription:
			'The stage base address your service operator gave you. The API specification does not publish it, so replace the default.',
	},
	{
		name: 'production',
		label: 'Production',
		choiceDescription: 'Real orders for real candidates',
		field: 'productionBaseUrl',
		defaultBaseUrl: 'https://api.background-check.invalid',
		placeholder: 'https://api.your-screening-provider.com',
		fieldDescription:
			'The production base address your service operator gave you. The API specification does not publish it, so replace the default.',
	},
	{
		name: 'custom',
		label: 'Custom',
		choiceDescription: 'Any other address, such as the local sandbox on 127.0.0.1',
		field: 'customBaseUrl',
		defaultBaseUrl: '',
		placeholder: 'http://127.0.0.1:7450',
		fieldDescription:
			'HTTPS address of the API. Plain HTTP is accepted only for a loopback host such as the local sandbox.',
	},
] as const;

export type ApiEnvironmentName = (typeof API_ENVIRONMENTS)[number]['name'];

/**
 * The same choice as {@link resolveBaseUrl} makes, as an n8n expression (for the credential test, which n8n
 * runs itself): the chosen environment's field, the first environment's when none matches.
 */
export const BASE_URL_EXPRESSION = `={{${API_ENVIRONMENTS.slice(1)
	.reverse()
	.map(({ name, field }) => `$credentials.environment === "${name}" ? $credentials.${field} : `)
	.join('')}$credentials.${API_ENVIRONMENTS[0].field}}}`;

function tryParseUrl(url: string): URL | undefined {
	try {
		return new URL(url);
	} catch {
		return undefined;
	}
}

const LOOPBACK_HOSTS = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** Why a URL may not carry credentials, or undefined when it may (HTTPS, or HTTP to a loopback host). */
export function insecureUrlReason(url: string): string | undefined {
	const parsed = tryParseUrl(url);
	if (!parsed) return undefined; // a relative URL is resolved against a base that was checked already
	if (parsed.protocol === 'https:') return undefined;
	if (parsed.protocol === 'http:' && LOOPBACK_HOSTS.test(parsed.hostname)) return undefined;
	return `Refusing to send credentials to ${parsed.protocol}//${parsed.host}: the API must be reached over HTTPS (plain HTTP is allowed only for 127.0.0.1 / localhost, such as the sandbox)`;
}

/** `url` without its trailing slashes (a loop: a regex anchored at the end would be quadratic on many slashes). */
function withoutTrailingSlashes(url: string): string {
	let end = url.length;
	while (end > 0 && url[end - 1] === '/') end--;
	return url.slice(0, end);
}

/**
 * The base URL a credential points at, without a trailing slash; throws when it is missing or unsafe.
 * User info would put a password into every URL and message built from it, and endpoint paths appended to a
 * query or fragment would not reach the endpoint, so both are refused. No message repeats the value itself.
 */
export function resolveBaseUrl(credentials: Record<string, unknown>): string {
	const environment =
		API_ENVIRONMENTS.find((candidate) => candidate.name === credentials.environment) ??
		API_ENVIRONMENTS[0];
	const configured = String(credentials[environment.field] ?? environment.defaultBaseUrl).trim();
	const field = `The ${environment.label} base URL in the Background Check API credential`;
	if (!configured) throw new Error(`${field} is empty`);
	const parsed = tryParseUrl(configured);
	if (!parsed)
		throw new Error(
			`${field} is not a valid URL: enter an address such as https://api.example.com`,
		);
	if (parsed.username !== '' || parsed.password !== '') {
		throw new Error(
			`${field} contains a user name or password (user:password@): remove it; the API authenticates with the API key and client access token`,
		);
	}
	if (parsed.search !== '' || configured.includes('?'))
		throw new Error(`${field} contains a query (?...): remove it`);
	if (parsed.hash !== '' || configured.includes('#'))
		throw new Error(`${field} contains a fragment (#...): remove it`);
	const reason = insecureUrlReason(parsed.href);
	if (reason) throw new Error(reason);
	return withoutTrailingSlashes(parsed.href);
}

/** Options that say where a request goes: n8n's own (`url`, `baseURL`) and the request library's (`uri`). */
export interface RequestTarget {
	url?: unknown;
	uri?: unknown;
	baseURL?: unknown;
}

/** axios's test for an absolute URL, which n8n's request helpers leave to axios: a scheme and `//`, or `//`. */
const ABSOLUTE_URL = /^([a-z][a-z\d+\-.]*:)?\/\//i;

/**
 * The URL n8n's request helpers send a request to (n8n 2.8 to 2.41): the address (`url`, else `uri`) joined to
 * `baseURL` the way axios joins them (an absolute or scheme-relative address ignores the base; otherwise
 * base and address are concatenated around one `/`), then parsed as WHATWG URL. Undefined when it does not
 * parse, such as a relative address without a base.
 */
export function effectiveRequestUrl(address: unknown, baseURL: unknown): URL | undefined {
	const target = address === undefined || address === null ? '' : String(address);
	const base = baseURL === undefined || baseURL === null ? '' : String(baseURL);
	let full = target;
	if (base !== '' && !ABSOLUTE_URL.test(target)) {
		full = target === '' ? base : `${base.replace(/\/?\/$/, '')}/${target.replace(/^\/+/, '')}`;
	}
	return full === '' ? undefined : tryParseUrl(full);
}

/**
 * Why the credential's token may not go with this request, or undefined when it may: only to the origin
 * (scheme, host, port) of the credential's base URL. Every address the options carry is checked, since n8n
 * versions differ in which of `url` and `uri` wins. No message repeats the address beyond its origin.
 */
export function foreignOriginReason(baseUrl: string, request: RequestTarget): string | undefined {
	const allowed = new URL(baseUrl).origin;
	const given = [request.url, request.uri].filter(
		(address) => address !== undefined && address !== null,
	);
	for (const address of given.length > 0 ? given : [undefined]) {
		const target = effectiveRequestUrl(address, request.baseURL);
		const refusal = 'Refusing to send the Background Check API token';
		if (target === undefined) {
			return `${refusal}: the request has no absolute URL to check (it is sent only to ${allowed}, the credential's base URL)`;
		}
		const insecure = insecureUrlReason(target.href);
		if (insecure) return insecure;
		if (target.origin !== allowed) {
			return `${refusal} to ${target.origin}: it is sent only to ${allowed}, the credential's base URL. Use another credential for other addresses.`;
		}
	}
	return undefined;
}
