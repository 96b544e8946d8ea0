import type {
	IAdditionalCredentialOptions,
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	ITriggerFunctions,
	IWebhookFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import {
	BACKGROUND_CHECK_API_CREDENTIAL,
	CREDENTIAL_ERROR_PREFIX,
} from '../../../credentials/BackgroundCheckApi.credentials';
import { resolveBaseUrl } from '../../../credentials/shared/apiEnvironment';
import {
	askedWaitMs,
	MAX_RETRY_WAIT_MS,
	MAX_TOTAL_WAIT_MS,
	PushBack,
	pushBackNote,
	refuseRetry,
} from './retryAfter';

export type RequestContext =
	| IExecuteFunctions
	| ILoadOptionsFunctions
	| IHookFunctions
	| IWebhookFunctions
	| ITriggerFunctions;

/** A path whose every interpolated segment was checked and URL-encoded by {@link apiPath}. */
export type ApiPath = string & { readonly __apiPath: unique symbol };

export class InvalidPathSegmentError extends Error {}

/** Encodes one path segment; an empty value or a dot segment could change which endpoint is called. */
export function encodePathSegment(value: unknown): string {
	const text = typeof value === 'number' ? String(value) : value;
	if (typeof text !== 'string' || text.trim() === '') throw new InvalidPathSegmentError('is empty');
	if (text.trim() === '.' || text.trim() === '..')
		throw new InvalidPathSegmentError(`"${text}" is not an ID`);
	return encodeURIComponent(text.trim());
}

/** Tagged template for endpoint paths: apiPath`/case/id/${caseId}` encodes each value as one segment. */
export function apiPath(strings: TemplateStringsArray, ...segments: unknown[]): ApiPath {
	return strings.reduce(
		(path, literal, index) =>
			path + literal + (index < segments.length ? encodePathSegment(segments[index]) : ''),
		'',
	) as ApiPath;
}

export interface ApiRequestOptions {
	body?: IDataObject | IDataObject[];
	qs?: IDataObject;
	itemIndex?: number;
}

const BEARER = /Bearer\s+[A-Za-z0-9._~+/=-]+/gi;
const REDACTED = '[redacted]';

/** Characters of a JWT segment (base64url). */
function isJwtCharacter(code: number): boolean {
	return (
		(code >= 0x41 && code <= 0x5a) ||
		(code >= 0x61 && code <= 0x7a) ||
		(code >= 0x30 && code <= 0x39) ||
		code === 0x5f ||
		code === 0x2d
	);
}

/** The index after the run of JWT characters that starts at `from`. */
function jwtRunEnd(text: string, from: number): number {
	let index = from;
	while (index < text.length && isJwtCharacter(text.charCodeAt(index))) index++;
	return index;
}

/** The index after the run of JWT characters and dots that starts at `from`. */
function dottedRunEnd(text: string, from: number): number {
	let index = from;
	while (
		index < text.length &&
		(text.charCodeAt(index) === 0x2e || isJwtCharacter(text.charCodeAt(index)))
	)
		index++;
	return index;
}

/**
 * Calls `found` with the range of every JWT of `text`, in linear time: from an `eyJ` that starts
 * `eyJ<seg>+.<seg>+.` (what the regex `/eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\./` finds) to the end of its run
 * of segment characters and dots, so that text glued before the token ("eyJab.<token>") cannot leave the
 * token's signature behind. That regex retried from every `eyJ` inside a long run and was quadratic on
 * "eyJeyJeyJ...". Every `eyJ` of one run shares the run's end and what follows it, so a run that starts no
 * token is skipped whole; each character is read at most three times.
 */
function findJwts(text: string, found: (start: number, end: number) => void): void {
	let start = text.indexOf('eyJ');
	while (start !== -1) {
		const header = jwtRunEnd(text, start + 3);
		if (header > start + 3 && text[header] === '.') {
			const payload = jwtRunEnd(text, header + 1);
			if (payload > header + 1 && text[payload] === '.') {
				const end = dottedRunEnd(text, payload + 1);
				found(start, end);
				start = text.indexOf('eyJ', end);
				continue;
			}
		}
		start = text.indexOf('eyJ', header);
	}
}

/**
 * Removes credential values and anything shaped like a bearer token or JWT from a text, in linear time.
 * Every match is found in the original text and the union of their ranges is replaced, so that removing one
 * kind cannot break another's match (a credential value inside a JWT would otherwise leave its signature).
 */
export function redact(text: string, secrets: unknown[] = []): string {
	// +1 where a range starts, -1 where it ends; positions with a positive running sum are redacted
	const marks = new Int32Array(text.length + 1);
	let found = false;
	const mark = (start: number, end: number) => {
		marks[start]++;
		marks[end]--;
		found = true;
	};
	for (const secret of secrets) {
		if (typeof secret !== 'string' || secret.length < 4) continue;
		for (let at = text.indexOf(secret); at !== -1; at = text.indexOf(secret, at + secret.length))
			mark(at, at + secret.length);
	}
	for (const match of text.matchAll(BEARER)) mark(match.index!, match.index! + match[0].length);
	findJwts(text, mark);
	if (!found) return text;
	let result = '';
	let copied = 0;
	let depth = 0;
	for (let index = 0; index <= text.length; index++) {
		const before = depth;
		depth += marks[index];
		if (before === 0 && depth > 0) result += text.slice(copied, index) + REDACTED;
		else if (before > 0 && depth === 0) copied = index;
	}
	return result + text.slice(copied);
}

/** How much of an API's error text is read (redacted), and how much of it an error message shows. */
export const API_TEXT_READ_LIMIT = 64 * 1024;
export const API_TEXT_EXCERPT_LENGTH = 500;

/**
 * A bounded, redacted excerpt of text from the API or about its answer: the first 64 KiB are redacted
 * before the cut, so the cut never leaves part of a secret behind, and at most 500 characters are shown.
 */
export function apiTextExcerpt(text: string, secrets: unknown[] = []): string {
	const clean = redact(text.slice(0, API_TEXT_READ_LIMIT), secrets);
	if (clean.length <= API_TEXT_EXCERPT_LENGTH && text.length <= API_TEXT_READ_LIMIT) return clean;
	let cut = Math.min(API_TEXT_EXCERPT_LENGTH, clean.length);
	const last = clean.charCodeAt(cut - 1);
	if (last >= 0xd800 && last <= 0xdbff) cut--; // do not split a surrogate pair
	return `${clean.slice(0, cut)}… (cut at ${cut} of ${text.length} characters)`;
}

export interface DescribedApiError {
	status?: number;
	message: string;
	description?: string;
}

function apiText(body: unknown): string | undefined {
	if (typeof body === 'string') return body.trim() || undefined;
	if (Buffer.isBuffer(body))
		return (
			body
				.subarray(0, API_TEXT_READ_LIMIT * 4)
				.toString('utf8')
				.trim() || undefined
		);
	if (body && typeof body === 'object') {
		const { message, error } = body as { message?: unknown; error?: unknown };
		if (Array.isArray(message)) return message.map(String).join('; ');
		if (typeof message === 'string' && message) return message;
		if (typeof error === 'string' && error) return error;
	}
	return undefined;
}

/** The API's own message of an error answer, as a bounded and redacted excerpt. */
function apiMessage(body: unknown, secrets: unknown[]): string | undefined {
	const text = apiText(body);
	return text === undefined ? undefined : apiTextExcerpt(text, secrets);
}

function conflictingCaseIds(body: unknown): string[] {
	const cases = (body as { cases?: unknown })?.cases;
	if (!Array.isArray(cases)) return [];
	return cases
		.map((entry) => (typeof entry === 'string' ? entry : (entry as { id?: unknown })?.id))
		.filter((id): id is string => typeof id === 'string');
}

const isWrite = (method: IHttpRequestMethods) => method !== 'GET' && method !== 'HEAD';

const MAY_OR_MAY_NOT_EXIST =
	"The request may or may not have been carried out. Case creation has no idempotency key, so the node does not retry it: look the candidate up with Case > Get Many (or in the provider's portal) before running it again.";

/**
 * Turns an HTTP failure into the message a user needs; pure, so every shape is unit-tested. Text from the
 * API is shown as a bounded excerpt with `secrets` and token-like values redacted.
 */
export function describeApiError(
	method: IHttpRequestMethods,
	path: string,
	status: number | undefined,
	body: unknown,
	secrets: unknown[] = [],
): DescribedApiError {
	const fromApi = apiMessage(body, secrets);
	const endpoint = `${method} ${path}`;
	if (status === undefined) {
		return {
			message: `The request ${endpoint} got no answer`,
			description: isWrite(method)
				? MAY_OR_MAY_NOT_EXIST
				: 'Check that the API is reachable and try again.',
		};
	}
	if (status === 409 && (body as { cases?: unknown })?.cases !== undefined) {
		const ids = conflictingCaseIds(body);
		return {
			status,
			message: 'The candidate already has a case in this group',
			description: ids.length
				? `Existing case ID(s): ${apiTextExcerpt(ids.join(', '), secrets)}. Use Case > Get or Add Services instead of creating another case.`
				: 'Use Case > Get Many to find the existing case instead of creating another one.',
		};
	}
	if (status === 403 && path.includes('/case')) {
		return {
			status,
			message: 'Access to this case was refused (403)',
			description: `${fromApi ? `The API said: ${fromApi}. ` : ''}The case usually belongs to another company group: the client access token in this credential only sees its own group's cases.`,
		};
	}
	if (status === 401) {
		return {
			status,
			message: 'The API refused the access token (401)',
			description: `${fromApi ? `The API said: ${fromApi}. ` : ''}The token may have been revoked; n8n exchanged the API key and client access token again and the API still refused. Check the credential with the service operator.`,
		};
	}
	if (status >= 500) {
		return {
			status,
			message: `The API failed on ${endpoint} (HTTP ${status})${fromApi ? `: ${fromApi}` : ''}`,
			description: isWrite(method)
				? MAY_OR_MAY_NOT_EXIST
				: 'This is an error on the API side; try again later.',
		};
	}
	return {
		status,
		message: fromApi ?? `The API answered HTTP ${status} on ${endpoint}`,
		description: fromApi ? `HTTP ${status} on ${endpoint}` : undefined,
	};
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
 * The API credential as one node run uses it, loaded and decrypted once for the whole run rather than twice
 * per request. It is handed to n8n-core's httpRequestWithAuthentication as `credentialsDecrypted`, so n8n
 * neither reads its database nor decrypts again for each request; n8n's preAuthentication still runs on it
 * (a new credential's first exchange, the exchange after a 401) and writes the new `token` into this object
 * as well as into its database, so every later request of the run sends the current token.
 */
interface CredentialSession {
	/** The decrypted fields; n8n-core assigns a newly exchanged `token` into this object. */
	data: ICredentialDataDecryptedObject;
	/** What httpRequestWithAuthentication is given on every request of the run. */
	options: IAdditionalCredentialOptions;
	/** The base URL, or why the credential has none that may be used. */
	baseUrl: { url: string } | { error: string };
	/** The retry (with its exchange) after a 401 under way, which other refused requests of the run wait for. */
	reauthentication?: Promise<unknown>;
	/** The pause and pace every request of the run keeps after the API answered 429 or 503 with Retry-After. */
	pushBack: PushBack;
}

/**
 * One session per node run: n8n gives each run (each execution of the node, each list search, each webhook
 * call) a context object of its own, so the context keys the session and lets it go with the run.
 */
const sessions = new WeakMap<RequestContext, Promise<CredentialSession>>();

async function loadSession(context: RequestContext): Promise<CredentialSession> {
	const data = await context.getCredentials(BACKGROUND_CHECK_API_CREDENTIAL);
	const stored = context.getNode().credentials?.[BACKGROUND_CHECK_API_CREDENTIAL];
	let baseUrl: CredentialSession['baseUrl'];
	try {
		baseUrl = { url: resolveBaseUrl(data) };
	} catch (error) {
		baseUrl = { error: (error as Error).message };
	}
	return {
		data,
		options: {
			credentialsDecrypted: {
				id: stored?.id ?? '',
				name: stored?.name ?? '',
				type: BACKGROUND_CHECK_API_CREDENTIAL,
				data,
			},
		},
		baseUrl,
		pushBack: new PushBack(),
	};
}

/** The run's credential session; a failed load is not kept, so every item that needs it reports it. */
function credentialSession(context: RequestContext): Promise<CredentialSession> {
	let session = sessions.get(context);
	if (session === undefined) {
		session = loadSession(context);
		sessions.set(context, session);
		session.catch(() => {
			if (sessions.get(context) === session) sessions.delete(context);
		});
	}
	return session;
}

/**
 * The throwing retry after a 401, which exchanges the key pair again when it is refused too. Requests refused
 * together (Concurrent Requests) share one exchange: while one retry is under way the others wait for it and
 * then retry with the token it obtained, and a request whose token was already replaced just retries. Each
 * request is still retried once at most.
 */
async function retryAfterUnauthorized(
	session: CredentialSession,
	tokenSent: unknown,
	retry: () => Promise<unknown>,
): Promise<unknown> {
	const pending = session.reauthentication;
	if (pending !== undefined) {
		await pending.catch(() => undefined);
		return await retry();
	}
	if (session.data.token !== tokenSent) return await retry();
	const attempt = retry();
	session.reauthentication = attempt;
	try {
		return await attempt;
	} finally {
		if (session.reauthentication === attempt) session.reauthentication = undefined;
	}
}

/**
 * The one way the nodes call the API: base URL from the credential, the bearer token through
 * httpRequestWithAuthentication, JSON in and out, and every failure turned into a NodeApiError that carries
 * the API's own message and no secret. The credential is loaded once per node run (see CredentialSession).
 *
 * Responses are read whole (status and raw body) because n8n's own error drops text bodies such as the
 * 404 "Invalid case". A 401 is handed back to n8n's throwing path, which exchanges the key pair for a
 * new token (the old one was revoked) and retries once; a 401 means nothing was carried out, so
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
			if (!retryPushedBack(session.pushBack, response, sentAt, isWrite(method), pushedBack)) break;
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
	const note = pushBackNote(
		pushedBack.gaveUp,
		isWrite(method),
		askedWaitMs(response.statusCode, response.headers, Date.now()),
	);
	return fail(
		note === undefined ? described : { ...described, message: `${described.message}. ${note}` },
	);
}

/**
 * Whether a request the API pushed back on (429, or 503 with Retry-After) is to be sent again. Every request
 * of the run then pauses as asked and slows down (PushBack), a write included; but a write is never sent
 * again, and a read whose wait is past the bounds is not either (`state.gaveUp` says why).
 */
function retryPushedBack(
	pushBack: PushBack,
	response: FullResponse,
	sentAt: number,
	write: boolean,
	state: { waitedMs: number; retries: number; gaveUp: string | undefined },
): boolean {
	const asked = askedWaitMs(response.statusCode, response.headers, Date.now());
	if (asked === undefined) {
		pushBack.accepted(sentAt);
		return false;
	}
	state.gaveUp = write ? undefined : refuseRetry(asked, state.waitedMs, state.retries);
	if (asked <= MAX_RETRY_WAIT_MS) pushBack.push(asked, sentAt);
	if (write || state.gaveUp !== undefined) return false;
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
