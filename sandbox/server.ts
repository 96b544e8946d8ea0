/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- repository tooling: runs in Node.js, never inside n8n */
/**
 * HTTP plumbing: JSON in and out, routing, the bearer check, fault injection and the request log.
 * API routes live under `/`, the admin interface under {@link ADMIN_PREFIX}; admin calls bypass the bearer
 * check, the faults and the request log.
 */
import * as http from 'http';

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
import { redactHeaders, redactSecrets } from './redact';
import { API_ROUTES } from './routes';
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

function readBody(request: http.IncomingMessage): Promise<string> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		request.on('data', (chunk: Buffer) => {
			size += chunk.length;
			if (size > MAX_BODY_BYTES) reject(httpError(413, 'The request body is too large'));
			else chunks.push(chunk);
		});
		request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
		request.on('error', reject);
	});
}

function parseJson(text: string): unknown {
	if (text.trim() === '') return undefined;
	try {
		return JSON.parse(text);
	} catch {
		throw badRequest('The request body is not valid JSON');
	}
}

function send(response: http.ServerResponse, { status, body, headers = {} }: ApiResponse): void {
	if (body === undefined || status === 204) {
		response.writeHead(status, headers).end();
	} else if (typeof body === 'string') {
		response
			.writeHead(status, { ...headers, 'content-type': 'text/plain; charset=utf-8' })
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
	): Promise<ApiResponse> {
		try {
			const found = findRoute(routes, call.method, call.path);
			if (!found) throw notFound(`Cannot ${call.method} ${call.path}`);
			const principal =
				found.route.requiresBearer === false ? undefined : authorize(call.headers.authorization);
			const request: ApiRequest<ApiClient | undefined> = {
				method: call.method,
				path: call.path,
				params: found.params,
				query: call.query,
				headers: call.headers,
				body: parseJson(call.rawBody),
				principal,
			};
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

		const result = await dispatch(api, call, (header) => {
			const client = world.clients.authorize(header);
			entry.groupProfileId = client.groupProfileId;
			return client;
		});
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
				rawBody: await readBody(request),
			};
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
		} else {
			await serveApi(call, request, response);
		}
	});
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
