/* eslint-disable @n8n/community-nodes/no-restricted-imports, @typescript-eslint/no-explicit-any -- repository tooling: runs in Node.js, never inside n8n; sandbox answers are read as loose JSON */
/** Shared test helpers: a sandbox on a free port with a frozen clock, an API caller, a webhook receiver. */
import * as http from 'http';
import type { AddressInfo } from 'net';

import { startSandbox, type Sandbox, type SandboxAdmin, type SandboxOptions } from '../../sandbox';

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

export async function call(
	sandbox: Sandbox,
	method: string,
	path: string,
	options: { token?: string; body?: unknown } = {},
): Promise<ApiResult> {
	const response = await fetch(`${sandbox.url}${path}`, {
		method,
		headers: {
			...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
			...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
		},
		body: options.body !== undefined ? JSON.stringify(options.body) : undefined,
	});
	const text = await response.text();
	const contentType = response.headers.get('content-type');
	const body = contentType?.includes('application/json') ? JSON.parse(text) : text;
	return {
		status: response.status,
		body,
		contentType,
		retryAfter: response.headers.get('retry-after'),
	};
}

/** The bearer token of demo group `index` (0 = East, 1 = West). */
export async function tokenFor(sandbox: Sandbox, index = 0): Promise<string> {
	const { apiKey, clientAccessToken } = sandbox.demoCredentials[index];
	const result = await call(sandbox, 'POST', '/auth/api', { body: { apiKey, clientAccessToken } });
	if (result.status !== 200) throw new Error(`auth failed: ${result.status}`);
	return result.body.token;
}

let candidateCounter = 0;

/** A valid case-create body with a fresh candidate email; `overrides` replace top-level keys. */
export function caseBody(
	overrides: Record<string, unknown> = {},
	emailTag = '',
): Record<string, unknown> {
	candidateCounter++;
	return {
		candidate: {
			firstName: 'Ann',
			lastName: "O'Neil",
			email: `candidate${candidateCounter}${emailTag}@example.com`,
		},
		services: [{ id: '29cd44ab-a8f0-4b27-868e-dc4be88ff541' }],
		...overrides,
	};
}

export async function createCase(sandbox: Sandbox, token: string, body = caseBody()): Promise<any> {
	const result = await call(sandbox, 'POST', '/case/create', { token, body });
	if (result.status !== 201)
		throw new Error(`case create failed: ${result.status} ${JSON.stringify(result.body)}`);
	return result.body;
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
	call(
		method: string,
		path: string,
		options?: { token?: string; body?: unknown },
	): Promise<ApiResult>;
	/** `createCase` with `token`. */
	createCase(body?: Record<string, unknown>): Promise<any>;
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
