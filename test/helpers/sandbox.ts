/* eslint-disable @n8n/community-nodes/no-restricted-imports, @typescript-eslint/no-explicit-any -- repository tooling: runs in Node.js, never inside n8n; sandbox answers are read as loose JSON */
/** Shared test helpers: a sandbox on a free port with a frozen clock, an API caller, a webhook receiver. */
import * as http from 'http';
import type { AddressInfo } from 'net';

import { startSandbox, type Sandbox, type SandboxOptions } from '../../sandbox';

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
