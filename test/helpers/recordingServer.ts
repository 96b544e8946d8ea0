/* eslint-disable @n8n/community-nodes/no-restricted-imports -- repository tooling: runs in Node.js, never inside n8n */
/**
 * A plain HTTP server on 127.0.0.1 (a free port) that records every request it gets and answers with what
 * `answer` returns: a stand-in for a host that must not see a credential (a collector, a redirect target)
 * or for an API that redirects.
 */
import http from 'http';
import type { AddressInfo } from 'net';

export interface RecordedRequest {
	method: string;
	path: string;
	headers: http.IncomingHttpHeaders;
	body: string;
}

export interface Answer {
	status: number;
	headers?: Record<string, string>;
	body?: unknown;
}

export interface RecordingServer {
	/** `http://127.0.0.1:<port>`, without a trailing slash. */
	url: string;
	requests: RecordedRequest[];
	close(): Promise<void>;
}

export async function startRecordingServer(
	answer: (request: RecordedRequest) => Answer = () => ({ status: 200, body: {} }),
): Promise<RecordingServer> {
	const requests: RecordedRequest[] = [];
	const server = http.createServer((request, response) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => {
			const recorded = {
				method: request.method ?? '',
				path: request.url ?? '',
				headers: request.headers,
				body: Buffer.concat(chunks).toString('utf8'),
			};
			requests.push(recorded);
			const { status, headers, body } = answer(recorded);
			response
				.writeHead(status, { 'content-type': 'application/json', ...headers })
				.end(body === undefined ? '' : JSON.stringify(body));
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		requests,
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
