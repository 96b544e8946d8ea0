/**
 * The API credential of one node run: loaded once, shared by its requests, exchanged again once when the API
 * refuses its token (401, or the 403 the API answers for a token it no longer accepts).
 */
import type {
	IAdditionalCredentialOptions,
	ICredentialDataDecryptedObject,
	IExecuteFunctions,
	IHookFunctions,
	ILoadOptionsFunctions,
	ITriggerFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';

import { BACKGROUND_CHECK_API_CREDENTIAL } from '../../../credentials/BackgroundCheckApi.credentials';
import { resolveBaseUrl } from '../../../credentials/shared/apiEnvironment';
import { PushBack } from './retryAfter';

export type RequestContext =
	| IExecuteFunctions
	| ILoadOptionsFunctions
	| IHookFunctions
	| IWebhookFunctions
	| ITriggerFunctions;

/**
 * The API credential as one node run uses it, loaded and decrypted once for the whole run rather than twice
 * per request. It is handed to n8n-core's httpRequestWithAuthentication as `credentialsDecrypted`, so n8n
 * neither reads its database nor decrypts again for each request; n8n's preAuthentication still runs on it
 * (a new credential's first exchange, the exchange after a 401) and writes the new `token` into this object
 * as well as into its database, so every later request of the run sends the current token.
 */
export interface CredentialSession {
	/** The decrypted fields; n8n-core assigns a newly exchanged `token` into this object. */
	data: ICredentialDataDecryptedObject;
	/** What httpRequestWithAuthentication is given on every request of the run. */
	options: IAdditionalCredentialOptions;
	/** The base URL, or why the credential has none that may be used. */
	baseUrl: { url: string } | { error: string };
	/** The retry (with its exchange) after a refusal under way, which other refused requests of the run wait for. */
	reauthentication?: Promise<unknown>;
	/** Whether this run has exchanged the key pair again after a 403 (once per run at most). */
	exchangedAfterForbidden?: boolean;
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
export function credentialSession(context: RequestContext): Promise<CredentialSession> {
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
export async function retryAfterUnauthorized(
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
 * The retry after a 403. The API answers 403 both for a token it no longer accepts (revoked) and for a request
 * the token may not make (another group's case); only a new exchange tells them apart. So the key pair is
 * exchanged again, once per run: the token is emptied, which makes n8n's request helper run the credential's
 * exchange (and save the new token) before it sends the request again. A refused request was not carried out,
 * so sending it again, a write too, cannot do anything twice. Returns undefined when no retry is due (the
 * 403 stands as it is).
 */
export async function retryAfterForbidden<T>(
	session: CredentialSession,
	tokenSent: unknown,
	retry: () => Promise<T>,
): Promise<T | undefined> {
	// Sent with no token: n8n exchanged the key pair for this very request, so the token refused is a fresh one.
	if (tokenSent === '' || tokenSent === undefined) return undefined;
	const pending = session.reauthentication;
	if (pending !== undefined) {
		await pending.catch(() => undefined);
		return session.data.token !== tokenSent ? await retry() : undefined;
	}
	if (session.data.token !== tokenSent) return await retry();
	if (session.exchangedAfterForbidden) return undefined;
	session.exchangedAfterForbidden = true;
	session.data.token = '';
	const attempt = retry();
	session.reauthentication = attempt;
	try {
		return await attempt;
	} finally {
		if (session.reauthentication === attempt) session.reauthentication = undefined;
	}
}
