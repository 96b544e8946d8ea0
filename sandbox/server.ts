/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- repository tooling: runs in Node.js, never inside n8n */
/**
 * HTTP plumbing: JSON in and out, routing, the bearer check, fault injection and the request log.
 * API routes live under `/`, the admin interface under {@link ADMIN_PREFIX}; admin calls bypass the bearer
 * check, the faults and the request log.
 */
import * as http from 'http';

import { answerProblems, findOperation, requestProblems } from '../api/contract';
import {
	HttpError,
	badRequest,
	compilePath,
	errorBody,
	httpError,
	notFound,
	type ApiRequest,
	type ApiResponse,
	type HttpMethod,
	type Route,
} from './http';
import { multipartBoundary, parseMultipart } from './multipart';
import { redactHeaders, redactSecrets } from './redact';
import { API_ROUTES } from './routes';
import { putUpload, UPLOAD_PATH_PREFIX } from './routes/documents';
import { DOWNLOAD_PATH_PREFIX, serveDownload } from './storage';
import type { FaultRule } from './faults';
import type { ApiClient } from './state';
import type { RequestLogEntry, SandboxContext } from './world';

export const ADMIN_PREFIX = '/__sandbox';
const MAX_BODY_BYTES = 10 * 1024 * 1024;

type AnyRoute = Route<ApiClient | undefined, SandboxContext>;
type CompiledRoute = AnyRoute & { match: ReturnType<typeof compilePath> };

function compileRoutes(routes: readonly AnyRoute[]): CompiledRoute[] {
	return routes.map((route) => ({ ...route, match: compilePath(route.path) }));
}

function findRoute(routes: CompiledRoute[], method: string, path: string) {
	for (const route of routes) {
		const params = route.method === method ? route.match(path) : undefined;
		if (params) return { route, params };
	}
	return undefined;
}

function readBody(request: http.IncomingMessage): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		request.on('data', (chunk: Buffer) => {
			size += chunk.length;
			if (size > MAX_BODY_BYTES) reject(httpError(413, 'The request body is too large'));
			else chunks.push(chunk);
		});
		request.on('end', () => resolve(Buffer.concat(chunks)));
		request.on('error', reject);
	});
}

/** The request body: JSON, or a multipart form's fields and files (sandbox/multipart.ts). */
function bodyOf(call: IncomingCall): unknown {
	const boundary = multipartBoundary(call.headers['content-type']);
	return boundary === undefined ? parseJson(call.rawBody) : parseMultipart(call.bytes, boundary);
}

function parseJson(text: string): unknown {
	if (text.trim() === '') return undefined;
	try {
		return JSON.parse(text);
	} catch {
		throw badRequest('The request body is not valid JSON');
	}
}

/** A Buffer body is sent as it is, a string as text/plain, anything else as JSON (unless `headers` name the type). */
function send(response: http.ServerResponse, { status, body, headers = {} }: ApiResponse): void {
	if (body === undefined || status === 204) {
		response.writeHead(status, headers).end();
	} else if (Buffer.isBuffer(body)) {
		response
			.writeHead(status, { 'content-type': 'application/octet-stream', ...headers })
			.end(body);
	} else if (typeof body === 'string') {
		response
			.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers })
			.end(body);
	} else {
		response
			.writeHead(status, { ...headers, 'content-type': 'application/json; charset=utf-8' })
			.end(JSON.stringify(body));
	}
}

function toResponse(error: unknown): ApiResponse {
	if (error instanceof HttpError) return { status: error.status, body: error.body };
	process.emitWarning(
		`Sandbox route failed: ${error instanceof Error ? error.stack : String(error)}`,
	);
	return { status: 500, body: errorBody(500, 'Internal server error') };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface IncomingCall {
	method: HttpMethod;
	path: string;
	query: URLSearchParams;
	headers: http.IncomingHttpHeaders;
	rawBody: string;
	bytes: Buffer;
}

/**
 * The status a request the reference does not accept gets: 400, or 422 where the operation declares 422 and no
 * 400 (an operation declaring neither gets 400 too: the reference says nothing of it).
 */
function refusalStatus(method: string, path: string): number {
	const responses = findOperation(method, path)?.operation.responses ?? {};
	return responses['400'] === undefined && responses['422'] !== undefined ? 422 : 400;
}

/**
 * A bad, missing or revoked bearer token: 403, as the reference answers it; 401 on the operations that declare
 * one (the cancels).
 */
function tokenRefusal(method: string, path: string, error: unknown): unknown {
	if (!(error instanceof HttpError)) return error;
	const declares401 = findOperation(method, path)?.operation.responses['401'] !== undefined;
	const status = declares401 ? 401 : 403;
	return new HttpError(status, errorBody(status, (error.body as { message: string }).message));
}

/**
 * The sandbox's own answer, checked against the contract: an answer the API would not give is a bug of the
 * sandbox, answered as a 500 that names what is wrong (so the test that met it fails) and reported as a warning.
 */
function checkedAnswer(call: IncomingCall, result: ApiResponse): ApiResponse {
	if (result.outsideContract) return result;
	const contentType =
		result.body === undefined
			? undefined
			: typeof result.body === 'string'
				? 'text/plain'
				: 'application/json';
	const problems = answerProblems(
		call.method,
		call.path,
		result.status,
		result.headers?.['content-type'] ?? contentType,
		result.body,
	);
	if (problems.length === 0) return result;
	const message = `The sandbox's answer to ${call.method} ${call.path} is not one the API reference gives: ${problems.join('; ')}`;
	process.emitWarning(message);
	return { status: 500, body: errorBody(500, message) };
}

export function createSandboxServer(
	context: SandboxContext,
	adminRoutes: readonly AnyRoute[],
): http.Server {
	const api = compileRoutes(API_ROUTES as readonly AnyRoute[]);
	const admin = compileRoutes(adminRoutes);

	/** Routes a call; `authorize` resolves the caller of routes that need a bearer token. */
	async function dispatch(
		routes: CompiledRoute[],
		call: IncomingCall,
		authorize: (header: string | undefined) => ApiClient | undefined,
		contract = false,
	): Promise<ApiResponse> {
		try {
			const found = findRoute(routes, call.method, call.path);
			if (!found)
				return {
					...toResponse(notFound(`Cannot ${call.method} ${call.path}`)),
					outsideContract: true,
				};
			let principal: ApiClient | undefined;
			if (found.route.requiresBearer !== false) {
				try {
					principal = authorize(call.headers.authorization);
				} catch (error) {
					throw tokenRefusal(call.method, call.path, error);
				}
			}
			const request: ApiRequest<ApiClient | undefined> = {
				method: call.method,
				path: call.path,
				params: found.params,
				query: call.query,
				headers: call.headers,
				body: bodyOf(call),
				principal,
			};
			if (contract) {
				const problems = requestProblems(request);
				if (problems.length > 0) {
					const status = refusalStatus(call.method, call.path);
					return { status, body: errorBody(status, problems), outsideContract: true };
				}
			}
			return await found.route.handle(request, context);
		} catch (error) {
			return toResponse(error);
		}
	}

	async function serveApi(
		call: IncomingCall,
		request: http.IncomingMessage,
		response: http.ServerResponse,
	) {
		const started = Date.now();
		const world = context.world;
		const entry: Omit<RequestLogEntry, 'id'> = {
			at: context.clock.nowIso(),
			method: call.method,
			path: call.path,
			query: Object.fromEntries(call.query),
			status: null,
			groupProfileId: null,
			durationMs: 0,
			headers: redactHeaders(call.headers),
			body: redactedBody(call.rawBody),
			faultId: null,
			handledStatus: null,
		};
		const finish = (result: ApiResponse | undefined) => {
			if (result) send(response, result);
			world.requestLog.append({
				...entry,
				status: result?.status ?? null,
				durationMs: Date.now() - started,
			});
		};

		const limited = world.faults.rateLimited(
			call.method,
			call.path,
			call.headers.authorization ?? '',
			Date.now(),
		);
		if (limited) {
			entry.faultId = limited.rule.id;
			return finish({
				status: 429,
				body: errorBody(
					429,
					`Rate limit of ${limited.rule.perSecond} requests per second exceeded (fault ${limited.rule.id})`,
				),
				headers: { 'retry-after': String(limited.retryAfterSeconds) },
			});
		}
		const fault = world.faults.take(call.method, call.path);
		entry.faultId = fault?.id ?? null;
		const answerWithFault = (rule: FaultRule) => {
			if (rule.kind === 'drop') {
				request.socket.destroy();
				return finish(undefined);
			}
			return finish({
				status: rule.status!,
				body: errorBody(rule.status!, `Injected fault ${rule.id}`),
				headers:
					rule.retryAfterSeconds === null
						? undefined
						: { 'retry-after': String(rule.retryAfterSeconds) },
			});
		};
		if ((fault?.kind === 'drop' || fault?.kind === 'status') && !fault.afterHandling)
			return answerWithFault(fault);
		if (fault?.kind === 'latency') await sleep(fault.latencyMs!);

		const result = checkedAnswer(
			call,
			await dispatch(
				api,
				call,
				(header) => {
					const client = world.clients.authorize(header);
					entry.groupProfileId = client.groupProfileId;
					return client;
				},
				true,
			),
		);
		if (fault?.afterHandling) {
			entry.handledStatus = result.status;
			return answerWithFault(fault);
		}
		finish(result);
	}

	return http.createServer(async (request, response) => {
		const url = new URL(request.url ?? '/', 'http://sandbox.local');
		let call: IncomingCall;
		try {
			call = {
				method: (request.method ?? 'GET').toUpperCase() as HttpMethod,
				path: url.pathname,
				query: url.searchParams,
				headers: request.headers,
				bytes: await readBody(request),
				rawBody: '',
			};
			call.rawBody = call.bytes.toString('utf8');
		} catch (error) {
			const refused = toResponse(error);
			send(response, refused);
			// A body refused before routing (over the size limit) was still a request the API received.
			if (!isAdminPath(url.pathname)) {
				context.world.requestLog.append({
					at: context.clock.nowIso(),
					method: (request.method ?? 'GET').toUpperCase(),
					path: url.pathname,
					query: Object.fromEntries(url.searchParams),
					status: refused.status,
					groupProfileId: null,
					durationMs: 0,
					headers: redactHeaders(request.headers),
					body: '[body not read]',
					faultId: null,
					handledStatus: null,
				});
			}
			return;
		}
		if (isAdminPath(call.path)) {
			send(response, await dispatch(admin, call, () => undefined));
		} else if (call.method === 'PUT' && call.path.startsWith(UPLOAD_PATH_PREFIX)) {
			send(response, uploadAnswer(context, call));
		} else if (call.method === 'GET' && call.path.startsWith(DOWNLOAD_PATH_PREFIX)) {
			send(response, downloadAnswer(context, call));
		} else {
			await serveApi(call, request, response);
		}
	});
}

/** A file PUT at a pre-signed upload URL: storage, not the API (no bearer token, no contract). */
function uploadAnswer(context: SandboxContext, call: IncomingCall): ApiResponse {
	try {
		const fileKey = decodeURIComponent(call.path.slice(UPLOAD_PATH_PREFIX.length));
		const authorization = call.headers.authorization;
		putUpload(context.world.store, fileKey, call.query.get('signature'), authorization, call.bytes);
		return { status: 200, body: undefined };
	} catch (error) {
		return toResponse(error);
	}
}

/** A GET of a pre-signed download URL: storage, not the API (no bearer token, no contract). */
function downloadAnswer(context: SandboxContext, call: IncomingCall): ApiResponse {
	try {
		return serveDownload(context.world.store, call.path, call.query, call.headers.authorization);
	} catch (error) {
		return toResponse(error);
	}
}

const isAdminPath = (path: string) => path === ADMIN_PREFIX || path.startsWith(`${ADMIN_PREFIX}/`);

/** The body for the request log: parsed and redacted JSON; text that is not JSON could hide a secret, so only its size. */
function redactedBody(rawBody: string): unknown {
	if (rawBody.trim() === '') return null;
	try {
		return redactSecrets(JSON.parse(rawBody));
	} catch {
		return `[body that is not JSON, ${Buffer.byteLength(rawBody)} bytes]`;
	}
}
