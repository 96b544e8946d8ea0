/* eslint-disable @n8n/community-nodes/no-restricted-imports -- repository tooling: runs in Node.js, never inside n8n */
/**
 * The small HTTP vocabulary shared by the router, the API routes and the admin routes: how a route is
 * declared, what a handler receives and returns, and the error bodies the sandbox answers with.
 */
import type { IncomingHttpHeaders } from 'http';

import { isPlainObject } from '../nodes/shared/values';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A response: a string body is sent as text/plain, anything else as JSON. */
export interface ApiResponse {
	status: number;
	body: unknown;
	/** Extra response headers (e.g. Retry-After). */
	headers?: Record<string, string>;
	/**
	 * An answer the API reference has nothing to say about, so not checked against it: a request it does not
	 * accept (refused before any route ran), or an operation the sandbox does not serve.
	 */
	outsideContract?: boolean;
}

export interface ApiRequest<Principal = undefined> {
	method: HttpMethod;
	path: string;
	params: Record<string, string>;
	query: URLSearchParams;
	headers: IncomingHttpHeaders;
	body: unknown;
	/** The authenticated caller; set for every API route except `POST /auth/api`. */
	principal: Principal;
}

export interface Route<Principal, Context> {
	method: HttpMethod;
	/** Path with `{name}` placeholders, written as in the spec. */
	path: string;
	/** False only for `POST /auth/api` (and the admin routes, which have no bearer at all). */
	requiresBearer?: boolean;
	handle(request: ApiRequest<Principal>, context: Context): ApiResponse | Promise<ApiResponse>;
}

export function ok(body: unknown): ApiResponse {
	return { status: 200, body };
}

export function created(body: unknown): ApiResponse {
	return { status: 201, body };
}

/** Thrown by handlers; the router turns it into the response it carries. */
export class HttpError extends Error {
	constructor(
		readonly status: number,
		readonly body: unknown,
	) {
		super(typeof body === 'string' ? body : JSON.stringify(body));
	}
}

const REASON_PHRASES: Record<number, string> = {
	400: 'Bad Request',
	401: 'Unauthorized',
	403: 'Forbidden',
	404: 'Not Found',
	409: 'Conflict',
	413: 'Payload Too Large',
	422: 'Unprocessable Entity',
	429: 'Too Many Requests',
	500: 'Internal Server Error',
	502: 'Bad Gateway',
	503: 'Service Unavailable',
	504: 'Gateway Timeout',
};

export function reasonPhrase(status: number): string {
	return REASON_PHRASES[status] ?? 'Error';
}

/** The `{ message, error, statusCode }` body used for every JSON error. */
export function errorBody(status: number, message: string | string[]) {
	return { message, error: reasonPhrase(status), statusCode: status };
}

export function httpError(status: number, message: string | string[]): HttpError {
	return new HttpError(status, errorBody(status, message));
}

export const badRequest = (message: string | string[]) => httpError(400, message);
export const unauthorized = (message: string) => httpError(401, message);
export const forbidden = (message: string) => httpError(403, message);
export const notFound = (message: string) => httpError(404, message);

export { compilePath } from '../api/contract';

/** The body as an object, or a 400 when the route needs one and got something else. */
export function requireObjectBody(body: unknown): Record<string, unknown> {
	if (!isPlainObject(body)) throw badRequest('The request body must be a JSON object');
	return body;
}
