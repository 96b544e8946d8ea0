import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IDataObject,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INodeProperties,
	Icon,
} from 'n8n-workflow';

import {
	API_ENVIRONMENTS,
	BASE_URL_EXPRESSION,
	foreignOriginReason,
	resolveBaseUrl,
	type RequestTarget,
} from './shared/apiEnvironment';

export const BACKGROUND_CHECK_API_CREDENTIAL = 'backgroundCheckApi';

/** Starts every message of a failed token exchange, so the nodes can pass it on as it is. */
export const CREDENTIAL_ERROR_PREFIX = 'Background Check API credential: ';

interface HttpErrorLike {
	httpCode?: string;
	response?: { status?: number };
	cause?: { response?: { status?: number } };
}

/**
 * Options that stop n8n's request helpers from following a redirect: `disableFollowRedirect` for n8n's own
 * request options, `followRedirect` / `followAllRedirects` for the request library's (HTTP Request node).
 */
const NO_REDIRECTS: Pick<IHttpRequestOptions, 'disableFollowRedirect'> & {
	followRedirect: false;
	followAllRedirects: false;
} = {
	disableFollowRedirect: true,
	followRedirect: false,
	followAllRedirects: false,
};

function statusOf(error: unknown): number | undefined {
	const candidate = error as HttpErrorLike;
	return (
		candidate?.response?.status ??
		candidate?.cause?.response?.status ??
		(Number(candidate?.httpCode) || undefined)
	);
}

export class BackgroundCheckApi implements ICredentialType {
	name = BACKGROUND_CHECK_API_CREDENTIAL;

	displayName = 'Background Check API';

	icon: Icon = { light: 'file:backgroundCheck.svg', dark: 'file:backgroundCheck.dark.svg' };

	documentationUrl =
		'https://github.com/n8n-nodes-background-check/n8n-nodes-background-check#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Environment',
			name: 'environment',
			type: 'options',
			options: API_ENVIRONMENTS.map(({ name, label, choiceDescription }) => ({
				name: label,
				value: name,
				description: choiceDescription,
			})),
			default: API_ENVIRONMENTS[0].name,
		},
		...API_ENVIRONMENTS.map(
			(environment): INodeProperties => ({
				displayName: `${environment.label} Base URL`,
				name: environment.field,
				type: 'string',
				default: environment.defaultBaseUrl,
				required: environment.name === 'custom',
				placeholder: environment.placeholder,
				description: environment.fieldDescription,
				displayOptions: { show: { environment: [environment.name] } },
			}),
		),
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'The partner API key the service operator issued to you (one per partner)',
		},
		{
			displayName: 'Client Access Token',
			name: 'clientAccessToken',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				"The client access token of one company group. The bearer token it unlocks sees only that group's cases.",
		},
		{
			displayName: 'Token',
			name: 'token',
			type: 'hidden',
			typeOptions: { expirable: true, password: true },
			default: '',
		},
	];

	/**
	 * Exchanges the key pair for the group's bearer token. n8n stores the result in the hidden `token`
	 * field and calls this again only when it is empty or a request answered 401 (a revoked token);
	 * the token itself never expires (spec section 5).
	 */
	async preAuthentication(this: IHttpRequestHelper, credentials: ICredentialDataDecryptedObject) {
		const baseUrl = resolveBaseUrl(credentials);
		let client: IDataObject;
		try {
			client = (await this.helpers.httpRequest({
				method: 'POST',
				url: `${baseUrl}/auth/api`,
				// The key pair goes to the base URL only: a 307/308 would resend it to wherever it points.
				...NO_REDIRECTS,
				body: { apiKey: credentials.apiKey, clientAccessToken: credentials.clientAccessToken },
				json: true,
			})) as IDataObject;
		} catch (error) {
			const status = statusOf(error);
			if (status === 403) {
				throw new Error(
					`${CREDENTIAL_ERROR_PREFIX}the API key or client access token was not accepted (POST /auth/api answered 403). Check both values and the environment.`,
				);
			}
			throw new Error(
				`${CREDENTIAL_ERROR_PREFIX}could not obtain an access token from ${baseUrl}/auth/api${status ? ` (HTTP ${status})` : ''}: check the base URL and that the service is reachable.`,
			);
		}
		if (typeof client?.token !== 'string' || client.token === '') {
			throw new Error(`${CREDENTIAL_ERROR_PREFIX}POST /auth/api answered without a token`);
		}
		return { token: client.token };
	}

	/**
	 * Runs for every request made with this credential, the HTTP Request node's included: the token goes
	 * only to the origin of the credential's base URL (which is HTTPS, or HTTP on a loopback host), and no
	 * redirect is followed with it, since a redirect may lead to any origin (n8n 2.8 keeps the header on a
	 * redirect to a subdomain whatever it is told). Anything else is refused with the reason, never the token.
	 */
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		const reason = foreignOriginReason(
			resolveBaseUrl(credentials),
			requestOptions as RequestTarget,
		);
		if (reason) throw new Error(reason);
		return {
			...requestOptions,
			...NO_REDIRECTS,
			headers: { ...requestOptions.headers, Authorization: `Bearer ${credentials.token}` },
		};
	}

	test: ICredentialTestRequest = {
		request: {
			baseURL: BASE_URL_EXPRESSION,
			url: '/auth/api',
			method: 'POST',
			body: {
				apiKey: '={{$credentials.apiKey}}',
				clientAccessToken: '={{$credentials.clientAccessToken}}',
			},
		},
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 403,
					message: 'The API key or client access token was not accepted',
				},
			},
		],
	};
}
