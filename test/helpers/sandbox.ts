/* eslint-disable @n8n/community-nodes/no-restricted-imports, @typescript-eslint/no-explicit-any -- repository tooling: runs in Node.js, never inside n8n; sandbox answers are read as loose JSON */
/** Shared test helpers: a sandbox on a free port with a frozen clock, an API caller, a webhook receiver. */
import * as http from 'http';
import type { AddressInfo } from 'net';

import { answerProblems, findOperation, requestProblems } from '../../api/contract';
import {
	PACKAGES,
	startSandbox,
	type Sandbox,
	type SandboxAdmin,
	type SandboxOptions,
} from '../../sandbox';

/** A sandbox on a free port whose clock only moves when a test advances it. */
export function startTestSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
	return startSandbox({ port: 0, timeScale: 0, ...options });
}

export interface ApiResult {
	status: number;
	body: any;
	contentType: string | null;
	retryAfter: string | null;
}

export interface CallOptions {
	token?: string;
	body?: unknown;
	/** Further request headers, e.g. `karmacheck-on-behalf-of`. */
	headers?: Record<string, string>;
}

/** An answer made by an injected API fault (sandbox/faults.ts), not by a route: the reference has no say in it. */
const isFaultAnswer = (body: any) =>
	typeof body?.message === 'string' && /^(Injected fault |Rate limit of )/.test(body.message);

/**
 * Throws when the sandbox answered a request the API reference accepts with an answer the reference does not
 * give (status, media type or body), as read on the wire, or accepted (2xx) a request the reference refuses.
 * What the sandbox answers to a refused request, or on a path outside the reference, is left to the test.
 */
export function checkAnswer(
	request: { method: string; path: string; headers: Record<string, string>; body?: unknown },
	result: ApiResult,
): void {
	const url = new URL(request.path, 'http://sandbox.local');
	if (findOperation(request.method, url.pathname) === undefined || isFaultAnswer(result.body))
		return;
	const refused = requestProblems({
		method: request.method,
		path: url.pathname,
		query: url.searchParams,
		headers: request.headers,
		body: request.body,
	});
	if (refused.length > 0) {
		if (result.status >= 200 && result.status < 300)
			throw new Error(
				`The sandbox accepted ${request.method} ${request.path} (${result.status}), which the API reference refuses: ${refused.join('; ')}`,
			);
		return;
	}
	const problems = answerProblems(
		request.method,
		url.pathname,
		result.status,
		result.contentType ?? undefined,
		result.body === '' ? undefined : result.body,
	);
	const selfReported =
		result.status === 500 &&
		/is not one the API reference gives/.test(String(result.body?.message));
	if (problems.length > 0 || selfReported)
		throw new Error(
			`The sandbox answered ${request.method} ${request.path} in a way the API reference does not: ${
				problems.length > 0 ? problems.join('; ') : result.body.message
			}`,
		);
}

/**
 * One API call. Every answer to a request the reference accepts is checked against the reference
 * ({@link checkAnswer}), so each suite using this helper proves the sandbox's answers are the API's.
 */
export async function call(
	sandbox: Sandbox,
	method: string,
	path: string,
	options: CallOptions = {},
): Promise<ApiResult> {
	const headers: Record<string, string> = {
		...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
		...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
		...options.headers,
	};
	const response = await fetch(`${sandbox.url}${path}`, {
		method,
		headers,
		body: options.body !== undefined ? JSON.stringify(options.body) : undefined,
	});
	const text = await response.text();
	const contentType = response.headers.get('content-type');
	const body = contentType?.includes('application/json') ? JSON.parse(text) : text;
	const result = {
		status: response.status,
		body,
		contentType,
		retryAfter: response.headers.get('retry-after'),
	};
	checkAnswer({ method, path, headers, body: options.body }, result);
	return result;
}

/** The bearer token of demo group `index` (0 = East, 1 = West). */
export async function tokenFor(sandbox: Sandbox, index = 0): Promise<string> {
	const { apiKey, clientAccessToken } = sandbox.demoCredentials[index];
	const result = await call(sandbox, 'POST', '/auth/api', { body: { apiKey, clientAccessToken } });
	if (result.status !== 200) throw new Error(`auth failed: ${result.status}`);
	return result.body.token;
}

const SSN_TRACE = '29cd44ab-a8f0-4b27-868e-dc4be88ff541';

/**
 * The CreateCase fields that order exactly `serviceIds`: the first sandbox package that has them all, its
 * other services excluded (the reference orders services by package only).
 */
export function orderOf(...serviceIds: string[]): { packageId: string; excludeServices: string[] } {
	const pkg = PACKAGES.find((candidate) =>
		serviceIds.every((id) => candidate.serviceIds.includes(id)),
	);
	if (!pkg) throw new Error(`No sandbox package has the services ${serviceIds.join(', ')}`);
	return {
		packageId: pkg.packageId,
		excludeServices: pkg.serviceIds.filter((id) => !serviceIds.includes(id)),
	};
}

let candidateCounter = 0;

/**
 * A valid CreateCase body (one service: SSN Trace) with a fresh candidate email; `overrides` replace top-level
 * keys (undefined removes one); `emailTag` is put before the `@`.
 */
export function caseBody(
	overrides: Record<string, unknown> = {},
	emailTag = '',
): Record<string, unknown> {
	candidateCounter++;
	const body: Record<string, unknown> = {
		...orderOf(SSN_TRACE),
		email: `candidate${candidateCounter}${emailTag}@example.com`,
		givenName: 'Ann',
		familyName: "O'Neil",
		...overrides,
	};
	for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key];
	return body;
}

/** A case as `GET /case/id/{caseId}` answers it (the reference's CaseSummary). */
export async function getCase(sandbox: Sandbox, token: string, caseId: string): Promise<any> {
	const result = await call(sandbox, 'GET', `/case/id/${caseId}`, { token });
	if (result.status !== 200)
		throw new Error(`case read failed: ${result.status} ${JSON.stringify(result.body)}`);
	return result.body.cases[0];
}

/**
 * The case data of a case as the reference gives them: its services (`GET /case/id/{caseId}/services`), then
 * the case data of each of their service types (`GET /case/id/{caseId}/data/{serviceTypeId}`), in the order
 * of the services.
 */
export async function getCaseData(sandbox: Sandbox, token: string, caseId: string): Promise<any[]> {
	const services = await call(sandbox, 'GET', `/case/id/${caseId}/services`, { token });
	if (services.status !== 200)
		throw new Error(`services read failed: ${services.status} ${JSON.stringify(services.body)}`);
	const entries: Array<{ serviceId: string; serviceTypeId: string }> =
		services.body.serviceGroupServices;
	const data: any[] = [];
	for (const serviceTypeId of new Set(entries.map((entry) => entry.serviceTypeId))) {
		const result = await call(sandbox, 'GET', `/case/id/${caseId}/data/${serviceTypeId}`, {
			token,
		});
		if (result.status !== 200)
			throw new Error(`case data read failed: ${result.status} ${JSON.stringify(result.body)}`);
		data.push(...result.body.data);
	}
	return entries.map((entry) => data.find((caseData) => caseData.serviceId === entry.serviceId));
}

/** Creates a case (`{ caseId, caseInvitationId }`) and reads it back: the case as GET /case/id/{caseId} answers it. */
export async function createCase(sandbox: Sandbox, token: string, body = caseBody()): Promise<any> {
	const result = await call(sandbox, 'POST', '/case/create', { token, body });
	if (result.status !== 200)
		throw new Error(`case create failed: ${result.status} ${JSON.stringify(result.body)}`);
	return await getCase(sandbox, token, result.body.caseId);
}

export interface ReceivedWebhook {
	headers: http.IncomingHttpHeaders;
	rawBody: string;
	json: any;
}

/** What the receiver answers: a status code, or `hang` to never answer. */
export type Responder = (webhook: ReceivedWebhook, index: number) => number | 'hang';

export interface Receiver {
	url: string;
	received: ReceivedWebhook[];
	respondWith(responder: Responder): void;
	close(): Promise<void>;
}

export async function startReceiver(responder: Responder = () => 200): Promise<Receiver> {
	const received: ReceivedWebhook[] = [];
	let respond = responder;
	const server = http.createServer((request, response) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => {
			const rawBody = Buffer.concat(chunks).toString('utf8');
			const webhook = { headers: request.headers, rawBody, json: JSON.parse(rawBody) };
			received.push(webhook);
			const status = respond(webhook, received.length - 1);
			if (status === 'hang') return;
			const redirect =
				status >= 300 && status < 400 ? { location: 'http://127.0.0.1:9/elsewhere' } : undefined;
			response.writeHead(status, redirect).end('ignored');
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/hooks`,
		received,
		respondWith: (next) => (respond = next),
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

/**
 * A receiver for one test file: started before its tests, emptied and answering 200 again before each one,
 * closed after them. The object it returns is filled in before the first test runs.
 */
export function useReceiver(): Receiver {
	const receiver = {} as Receiver;
	beforeAll(async () => {
		Object.assign(receiver, await startReceiver());
	});
	afterAll(() => receiver.close?.());
	beforeEach(() => {
		receiver.received.length = 0;
		receiver.respondWith(() => 200);
	});
	return receiver;
}

/** A call to the admin HTTP interface (`/__sandbox...`). */
export async function adminCall(
	sandbox: Sandbox,
	method: string,
	path: string,
	body?: unknown,
): Promise<{ status: number; body: any }> {
	const response = await fetch(`${sandbox.adminUrl}${path}`, {
		method,
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await response.text();
	return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** One test file's sandbox and demo group 0's token, kept by `useSandboxClient`. */
export interface SandboxClient {
	sandbox: Sandbox;
	readonly admin: SandboxAdmin;
	/** Taken after each reset; empty (no bearer token) with `signIn: false`. */
	token: string;
	/** `call` with `token` unless the options name another (`token: undefined` sends none). */
	call(method: string, path: string, options?: CallOptions): Promise<ApiResult>;
	/** `createCase` with `token`. */
	createCase(body?: Record<string, unknown>): Promise<any>;
	/** `getCase` with `token`. */
	getCase(caseId: string): Promise<any>;
	/** `getCaseData` with `token`. */
	getCaseData(caseId: string): Promise<any[]>;
	adminCall(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
}

/**
 * The sandbox of one test file: started before its tests, reset before each one (then demo group 0 signs in,
 * unless `signIn` is false: a test that counts requests then sees only its own), stopped after them. Call it
 * at the top level of the file; the object it returns is filled in before the first test runs.
 */
export function useSandboxClient(
	options: SandboxOptions = {},
	{ signIn = true } = {},
): SandboxClient {
	const client: SandboxClient = {
		sandbox: undefined as unknown as Sandbox,
		get admin() {
			return client.sandbox.admin;
		},
		token: '',
		call: (method, path, callOptions) =>
			call(client.sandbox, method, path, { token: client.token, ...callOptions }),
		createCase: (body) => createCase(client.sandbox, client.token, body),
		getCase: (caseId) => getCase(client.sandbox, client.token, caseId),
		getCaseData: (caseId) => getCaseData(client.sandbox, client.token, caseId),
		adminCall: (method, path, body) => adminCall(client.sandbox, method, path, body),
	};
	beforeAll(async () => {
		client.sandbox = await startTestSandbox(options);
	});
	afterAll(() => client.sandbox?.stop());
	beforeEach(async () => {
		client.sandbox.admin.reset();
		if (signIn) client.token = await tokenFor(client.sandbox);
	});
	return client;
}
