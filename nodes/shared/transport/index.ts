/**
 * The one request module of both nodes: apiRequest and what it is made of, one job a
 * file (paths, redaction, the wording of failures, the credential of a run, pushed-back reads).
 */
import type {
	IDataObject,
	IHttpRequestMethods,
	IHttpRequestOptions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import {
	BACKGROUND_CHECK_API_CREDENTIAL,
	CREDENTIAL_ERROR_PREFIX,
} from '../../../credentials/BackgroundCheckApi.credentials';
import { describeApiError, isWrite, type DescribedApiError } from './apiErrors';
import type { ApiPath } from './paths';
import { fileHeaders, presignedUrlOf, type ApiFile } from './files';
import { apiTextExcerpt, redact } from './redaction';
import {
	askedWaitMs,
	MAX_RETRY_WAIT_MS,
	MAX_TOTAL_WAIT_MS,
	type PushBack,
	pushBackNote,
	refuseRetry,
} from './retryAfter';
import {
	credentialSession,
	retryAfterForbidden,
	retryAfterUnauthorized,
	type RequestContext,
} from './session';
import { REQUEST_TIMEOUT_MS } from './timeout';

export { describeApiError, type DescribedApiError } from './apiErrors';
export { apiPath, encodePathSegment, InvalidPathSegmentError, type ApiPath } from './paths';
export { API_TEXT_EXCERPT_LENGTH, API_TEXT_READ_LIMIT, apiTextExcerpt, redact } from './redaction';
export type { RequestContext } from './session';
export { fileHeaders, type ApiFile } from './files';
export { REQUEST_TIMEOUT_MS } from './timeout';

export interface ApiRequestOptions {
	body?: IDataObject | IDataObject[];
	qs?: IDataObject;
	/** Headers an operation defines (e.g. the ordering user of a case); never Authorization. */
	headers?: Record<string, string>;
	itemIndex?: number;
}

interface FullResponse {
	statusCode: number;
	body: unknown;
	headers?: Record<string, unknown>;
}

/** What n8n's NodeApiError keeps of a failure that happened before any HTTP status came back. */
interface TransportFailure {
	message?: string;
	/** The original messages n8n replaced with its own wording (e.g. axios's "timeout of 60000ms exceeded"). */
	messages?: string[];
	httpCode?: string | null;
	description?: string | null;
	context?: { data?: unknown };
}

/**
 * The one way the nodes call the API: base URL from the credential, the bearer token through
 * httpRequestWithAuthentication, JSON in and out, and every failure turned into a NodeApiError that carries
 * the API's own message and no secret. The credential is loaded once per node run (session.ts).
 *
 * Responses are read whole (status and raw body) because n8n's own error drops text bodies such as the
 * 404 "Invalid case". A 401 is handed back to n8n's throwing path, which exchanges the key pair for a
 * new token (the old one was revoked) and retries once; a 403 (what the API answers for a revoked token) is
 * retried once after a new exchange too (session.ts). Either refusal means nothing was carried out, so
 * repeating even a write is safe.
 */
export async function apiRequest(
	this: RequestContext,
	method: IHttpRequestMethods,
	path: ApiPath,
	options: ApiRequestOptions = {},
): Promise<unknown> {
	return (await sendToApi.call(this, method, path, options, 'json')).body;
}

/**
 * apiRequest for an endpoint that answers a file (a PDF) instead of JSON: the same credential, retries and
 * failures, the body kept as bytes. An error answer's JSON is read as JSON, so its message is the API's.
 */
export async function apiDownload(
	this: RequestContext,
	method: IHttpRequestMethods,
	path: ApiPath,
	options: ApiRequestOptions = {},
): Promise<ApiFile> {
	const response = await sendToApi.call(this, method, path, options, 'binary');
	return { content: asBuffer(response.body), ...fileHeaders(response.headers) };
}

/**
 * Asks the API for a download address: the reference answers it as the whole body, as `text/html` (JSON only
 * for errors, so both are accepted); an absolute http(s) URL, or an error naming `what`.
 */
export async function requestDownloadUrl(
	this: RequestContext,
	method: IHttpRequestMethods,
	path: ApiPath,
	what: string,
	options: ApiRequestOptions & { itemIndex: number },
): Promise<string> {
	const answer = await apiRequest.call(this, method, path, {
		...options,
		headers: { Accept: 'text/html, text/plain, application/json' },
	});
	return presignedUrlOf(this.getNode(), answer, what, options.itemIndex);
}

function asBuffer(body: unknown): Buffer {
	if (Buffer.isBuffer(body)) return body;
	if (body instanceof ArrayBuffer) return Buffer.from(body);
	if (typeof body === 'string') return Buffer.from(body, 'utf8');
	return Buffer.alloc(0);
}

/** An error answer received as bytes: its JSON when it is JSON (the API's message is in it), else its text. */
function errorBodyOf(response: FullResponse): unknown {
	if (!Buffer.isBuffer(response.body) && !(response.body instanceof ArrayBuffer))
		return response.body;
	const text = asBuffer(response.body).toString('utf8');
	try {
		return JSON.parse(text) as unknown;
	} catch {
		return text;
	}
}

async function sendToApi(
	this: RequestContext,
	method: IHttpRequestMethods,
	path: ApiPath,
	options: ApiRequestOptions,
	answer: 'json' | 'binary',
): Promise<FullResponse> {
	const { itemIndex } = options;
	const session = await credentialSession(this);
	if ('error' in session.baseUrl)
		throw new NodeOperationError(this.getNode(), session.baseUrl.error, { itemIndex });

	const request: IHttpRequestOptions = {
		method,
		url: `${session.baseUrl.url}${path}`,
		json: answer === 'json',
		timeout: REQUEST_TIMEOUT_MS,
		// n8n sends the Authorization header along a redirect to another host unless told not to (the API's
		// files live on a storage host): the token goes to its API only.
		sendCredentialsOnCrossOriginRedirect: false,
	};
	if (answer === 'binary') request.encoding = 'arraybuffer';
	if (options.body !== undefined) request.body = options.body;
	if (options.qs !== undefined && Object.keys(options.qs).length > 0) request.qs = options.qs;
	if (options.headers !== undefined && Object.keys(options.headers).length > 0)
		request.headers = { ...options.headers };

	const credentialSecrets = () => [
		session.data.apiKey,
		session.data.clientAccessToken,
		session.data.token,
	];
	const fail = (described: DescribedApiError): never => {
		const secrets = credentialSecrets();
		const message = redact(described.message, secrets);
		const description = described.description ? redact(described.description, secrets) : undefined;
		throw new NodeApiError(
			this.getNode(),
			{ message, description: description ?? null } as JsonObject,
			{
				message,
				description,
				httpCode: described.status ? String(described.status) : undefined,
				itemIndex,
			},
		);
	};
	const send = async (sent: IHttpRequestOptions): Promise<unknown> =>
		await this.helpers.httpRequestWithAuthentication.call(
			this,
			BACKGROUND_CHECK_API_CREDENTIAL,
			sent,
			session.options,
		);
	const sendForFullResponse = async () =>
		(await send({
			...request,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
		})) as FullResponse;

	let response: FullResponse;
	const pushedBack = { waitedMs: 0, retries: 0, gaveUp: undefined as string | undefined };
	try {
		for (;;) {
			pushedBack.waitedMs += await session.pushBack.waitOut(
				MAX_TOTAL_WAIT_MS - pushedBack.waitedMs,
			);
			const tokenSent = session.data.token;
			const sentAt = Date.now();
			response = await sendForFullResponse();
			if (response.statusCode === 401)
				return (await retryAfterUnauthorized(
					session,
					tokenSent,
					async () => await send({ ...request, returnFullResponse: true }),
				)) as FullResponse;
			if (response.statusCode === 403) {
				const retried = await retryAfterForbidden(session, tokenSent, sendForFullResponse);
				if (retried !== undefined) response = retried;
			}
			if (!retryPushedBack(session.pushBack, response, sentAt, pushedBack)) break;
		}
	} catch (error) {
		return fail(
			describeTransportFailure(method, path, error as TransportFailure, credentialSecrets()),
		);
	}
	if (response.statusCode >= 200 && response.statusCode < 300) return response;
	const described = describeApiError(
		method,
		path,
		response.statusCode,
		answer === 'binary' ? errorBodyOf(response) : response.body,
		credentialSecrets(),
	);
	if (pushedBack.gaveUp === undefined) return fail(described);
	return fail({
		...described,
		message: `${described.message}. ${pushBackNote(pushedBack.gaveUp)}`,
		// A pushed-back write was not carried out: the "may or may not" of a 5xx does not apply.
		description: isWrite(method)
			? `HTTP ${response.statusCode} on ${method} ${path}: the API asked to be called again later, so it did not carry the request out; this item can be run again.`
			: described.description,
	});
}

/**
 * Whether a request the API pushed back on (429, or 503 with Retry-After) is to be sent again. Every request
 * of the run then pauses as asked and slows down (PushBack). The request is sent again after the wait, a write
 * too: such an answer says the API did not carry the request out, the one failure after which sending a
 * write again cannot make a second order. Not when the wait is past the bounds (`state.gaveUp` says why).
 */
function retryPushedBack(
	pushBack: PushBack,
	response: FullResponse,
	sentAt: number,
	state: { waitedMs: number; retries: number; gaveUp: string | undefined },
): boolean {
	const asked = askedWaitMs(response.statusCode, response.headers, Date.now());
	if (asked === undefined) {
		pushBack.accepted(sentAt);
		return false;
	}
	state.gaveUp = refuseRetry(asked, state.waitedMs, state.retries);
	if (asked <= MAX_RETRY_WAIT_MS) pushBack.push(asked, sentAt);
	if (state.gaveUp !== undefined) return false;
	state.retries++;
	return true;
}

function describeTransportFailure(
	method: IHttpRequestMethods,
	path: string,
	error: TransportFailure,
	secrets: unknown[],
): DescribedApiError {
	const status = Number(error.httpCode) || undefined;
	if (status)
		return describeApiError(
			method,
			path,
			status,
			error.context?.data ?? error.description,
			secrets,
		);
	if (error.message?.startsWith(CREDENTIAL_ERROR_PREFIX)) return { message: error.message };
	const described = describeApiError(method, path, undefined, undefined);
	// n8n words a timeout as "The connection was aborted, perhaps the server is offline"; say what happened.
	const timedOut = [error.message, ...(error.messages ?? [])].some((text) =>
		/timeout of \d+ ?ms exceeded|ETIMEDOUT/i.test(text ?? ''),
	);
	if (timedOut)
		return {
			...described,
			message: `${described.message} within ${REQUEST_TIMEOUT_MS / 1000} seconds`,
		};
	return {
		...described,
		message: `${described.message}: ${apiTextExcerpt(error.message ?? 'no response', secrets)}`,
	};
}
