/**
 * Where the API lives. The spec names a stage and a production environment but not their addresses, so
 * both are editable defaults in the credential; "custom" covers anything else, such as the local sandbox.
 */
export const API_ENVIRONMENTS = [
	{
		name: 'stage',
		label: 'Stage',
		field: 'stageBaseUrl',
		defaultBaseUrl: 'https://stage-api.background-check.invalid',
		placeholder: 'https://stage-api.your-screening-provider.com',
		description:
			'The stage base address your service operator gave you. The API specification does not publish it, so replace the default.',
	},
	{
		name: 'production',
		label: 'Production',
		field: 'productionBaseUrl',
		defaultBaseUrl: 'https://api.background-check.invalid',
		placeholder: 'https://api.your-screening-provider.com',
		description:
			'The production base address your service operator gave you. The API specification does not publish it, so replace the default.',
	},
	{
		name: 'custom',
		label: 'Custom',
		field: 'customBaseUrl',
		defaultBaseUrl: '',
		placeholder: 'http://127.0.0.1:7450',
		description: 'HTTPS address of the API. Plain HTTP is accepted only for a loopback host such as the local sandbox.',
	},
] as const;

export type ApiEnvironmentName = (typeof API_ENVIRONMENTS)[number]['name'];

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

/** The base URL a credential points at, without a trailing slash; throws when it is missing or unsafe. */
export function resolveBaseUrl(credentials: Record<string, unknown>): string {
	const environment =
		API_ENVIRONMENTS.find((candidate) => candidate.name === credentials.environment) ?? API_ENVIRONMENTS[0];
	const configured = String(credentials[environment.field] ?? environment.defaultBaseUrl).trim();
	if (!configured) throw new Error(`The ${environment.label} base URL is empty in the Background Check API credential`);
	const parsed = tryParseUrl(configured);
	if (!parsed) throw new Error(`The ${environment.label} base URL "${configured}" is not a valid URL`);
	const reason = insecureUrlReason(parsed.href);
	if (reason) throw new Error(reason);
	return parsed.href.replace(/\/+$/, '');
}
