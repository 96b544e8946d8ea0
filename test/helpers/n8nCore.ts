/**
 * The one imitation of n8n-core's request functions the unit and integration tests use, for the action node
 * (executeContext.ts) and the trigger (n8nModel.ts) alike: the stored credential, httpRequest (axios,
 * as n8n-core sends) and httpRequestWithAuthentication for a credential with `preAuthentication`: exchange
 * when the expirable `token` is empty, `authenticate`, send, and after a 401 exchange once more and retry
 * once; an exchange writes the token into the credential object in use and into the store; failures reach
 * the node wrapped in a NodeApiError.
 */
import axios, { type AxiosRequestConfig } from 'axios';
import type {
	IAdditionalCredentialOptions,
	ICredentialDataDecryptedObject,
	IHttpRequestOptions,
	INode,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { BackgroundCheckApi } from '../../credentials/BackgroundCheckApi.credentials';

/** The stored credential: what the user typed plus the `token` n8n saves after preAuthentication. */
export class CredentialStore {
	exchanges = 0;

	/** How many times the credential was read from the store (n8n: a database query and a decryption). */
	loads = 0;

	constructor(public data: ICredentialDataDecryptedObject) {}

	static forSandbox(
		baseUrl: string,
		pair: { apiKey: string; clientAccessToken: string },
	): CredentialStore {
		return new CredentialStore({
			environment: 'custom',
			customBaseUrl: baseUrl,
			token: '',
			apiKey: pair.apiKey,
			clientAccessToken: pair.clientAccessToken,
		});
	}

	/** A decrypted copy of the stored credential, as n8n's getCredentials returns it. */
	load(): ICredentialDataDecryptedObject {
		this.loads++;
		return { ...this.data };
	}
}

// ---------------------------------------------------------------------------------------------------------
// HTTP, as n8n-core's httpRequest / httpRequestWithAuthentication

function toAxiosConfig(options: IHttpRequestOptions): AxiosRequestConfig {
	const headers: Record<string, string> = { ...(options.headers as Record<string, string>) };
	if (options.json) headers.Accept ??= 'application/json';
	// n8n-core's removeEmptyBody: GET, HEAD and OPTIONS carry no body.
	const hasBody =
		options.body !== undefined && !['GET', 'HEAD', 'OPTIONS'].includes(options.method ?? 'GET');
	if (hasBody && typeof options.body === 'object') headers['Content-Type'] ??= 'application/json';
	return {
		method: options.method ?? 'GET',
		url: options.url,
		baseURL: options.baseURL,
		params: options.qs,
		data: hasBody ? options.body : undefined,
		headers,
		timeout: options.timeout,
		responseType: options.encoding === 'arraybuffer' ? 'arraybuffer' : 'json',
		validateStatus: options.ignoreHttpStatusErrors
			? () => true
			: (status) => status >= 200 && status < 300,
		maxRedirects: 0,
	};
}

/**
 * n8n-core's httpRequest: axios; the body of the answer (or `{ body, headers, statusCode, statusMessage }`
 * with returnFullResponse); axios's own error on a failure status unless ignoreHttpStatusErrors.
 */
export async function httpRequest(options: IHttpRequestOptions): Promise<unknown> {
	const response = await axios.request(toAxiosConfig(options));
	return options.returnFullResponse
		? {
				body: response.data,
				headers: response.headers,
				statusCode: response.status,
				statusMessage: response.statusText,
			}
		: response.data;
}

const credentialType = new BackgroundCheckApi();

/** n8n's CredentialsHelper.preAuthentication: exchange, then assign the token to the object in use and store it. */
async function preAuthenticate(
	store: CredentialStore,
	data: ICredentialDataDecryptedObject,
): Promise<void> {
	store.exchanges++;
	const result = await credentialType.preAuthentication.call(
		{ helpers: { httpRequest } } as never,
		data,
	);
	Object.assign(data, result);
	// Into the stored object itself: every context built over it later sees the token, as n8n's database does.
	Object.assign(store.data, result);
}

function isUnauthorized(error: unknown): boolean {
	return (error as { response?: { status?: number } })?.response?.status === 401;
}

export function authenticatedRequester(node: INode, credentials: Record<string, CredentialStore>) {
	return async (
		type: string,
		options: IHttpRequestOptions,
		additional?: IAdditionalCredentialOptions,
	): Promise<unknown> => {
		const store = credentials[type];
		if (!store)
			throw new NodeOperationError(
				node,
				`Node "${node.name}" does not have any credentials of type "${type}" set`,
			);
		const data = additional?.credentialsDecrypted?.data ?? store.load();
		try {
			if (!data.token) await preAuthenticate(store, data);
			return await httpRequest(await credentialType.authenticate(data, options));
		} catch (error) {
			if (isUnauthorized(error)) {
				try {
					await preAuthenticate(store, data);
					return await httpRequest(await credentialType.authenticate(data, options));
				} catch (retryError) {
					throw new NodeApiError(node, retryError as never);
				}
			}
			throw new NodeApiError(node, error as never);
		}
	};
}
