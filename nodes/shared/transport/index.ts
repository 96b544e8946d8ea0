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

export { describeApiError, type DescribedApiError } from './apiErrors';
export { apiPath, encodePathSegment, InvalidPathSegmentError, type ApiPath } from './paths';
export { API_TEXT_EXCERPT_LENGTH, API_TEXT_READ_LIMIT, apiTextExcerpt, redact } from './redaction';
export type { RequestContext } from './session';

export interface ApiRequestOptions {
	body?: IDataObject | IDataObject[];
	qs?: IDataObject;
	/** Headers an operation defines (e.g. the ordering user of a case); never Authorization. */
	headers?: Record<string, string>;
	itemIndex?: number;
}

/** n8n's own request timeout is unlimited; a stuck API must not hang a workflow. */
export const REQUEST_TIMEOUT_MS = 60_000;

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
	const { itemIndex } = options;
	const session = await credentialSession(this);
	if ('error' in session.baseUrl)
		throw new NodeOperationError(this.getNode(), session.baseUrl.error, { itemIndex });

	const request: IHttpRequestOptions = {
		method,
		url: `${session.baseUrl.url}${path}`,
		json: true,
		timeout: REQUEST_TIMEOUT_MS,
	};
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

	let response: FullResponse;
	const pushedBack = { waitedMs: 0, retries: 0, gaveUp: undefined as string | undefined };
	try {
		for (;;) {
			pushedBack.waitedMs += await session.pushBack.waitOut(
				MAX_TOTAL_WAIT_MS - pushedBack.waitedMs,
			);
			const tokenSent = session.data.token;
			const sentAt = Date.now();
			response = (await send({
				...request,
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
			})) as FullResponse;
			if (response.statusCode === 401)
				return await retryAfterUnauthorized(session, tokenSent, async () => await send(request));
			if (response.statusCode === 403) {
				const retried = await retryAfterForbidden(
					session,
					tokenSent,
					async () =>
						(await send({
							...request,
							returnFullResponse: true,
							ignoreHttpStatusErrors: true,
						})) as FullResponse,
				);
				if (retried !== undefined) response = retried;
			}
			if (!retryPushedBack(session.pushBack, response, sentAt, pushedBack)) break;
		}
	} catch (error) {
		return fail(
			describeTransportFailure(method, path, error as TransportFailure, credentialSecrets()),
		);
	}
	if (response.statusCode >= 200 && response.statusCode < 300) return response.body;
	const described = describeApiError(
		method,
		path,
		response.statusCode,
		response.body,
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
