/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- repository tooling: runs in Node.js, never inside n8n */
/**
 * Minimal HTTP client for talking to a local n8n: one connection per request (no keep-alive, so no
 * race with n8n's 5 s keep-alive timeout, which made Node's fetch fail with "other side closed"),
 * no redirects, no decompression, answer bodies read whole.
 */
import * as http from 'node:http';
import * as https from 'node:https';

export interface HttpAnswer {
	status: number;
	headers: http.IncomingHttpHeaders;
	/** Body as text (utf-8). */
	text: string;
	/** Raw body bytes. */
	raw: Buffer;
	/** Parsed JSON when the body is JSON, else the text (undefined when empty). */
	json: unknown;
}

export interface HttpRequestOptions {
	method?: string;
	headers?: Record<string, string | string[] | undefined>;
	/** A string or bytes are sent as they are; anything else as JSON (content-type set if missing). */
	body?: unknown;
	timeoutMs?: number;
}

export function httpRequest(url: string, opts: HttpRequestOptions = {}): Promise<HttpAnswer> {
	const u = new URL(url);
	const headers: Record<string, string | string[]> = {};
	for (const [k, v] of Object.entries(opts.headers ?? {}))
		if (v !== undefined) headers[k.toLowerCase()] = v;
	let payload: Buffer | undefined;
	if (opts.body !== undefined) {
		if (typeof opts.body === 'string') payload = Buffer.from(opts.body);
		else if (opts.body instanceof Uint8Array) payload = Buffer.from(opts.body);
		else {
			payload = Buffer.from(JSON.stringify(opts.body));
			headers['content-type'] ??= 'application/json';
		}
		headers['content-length'] = String(payload.length);
	}
	const lib = u.protocol === 'https:' ? https : http;
	const started = Date.now();
	const debug = process.env.BGC_HTTP_DEBUG === '1';
	return new Promise((resolve, reject) => {
		const req = lib.request(
			u,
			{ method: opts.method ?? 'GET', headers, agent: false, timeout: opts.timeoutMs ?? 60_000 },
			(res) => {
				const chunks: Buffer[] = [];
				res.on('data', (c: Buffer) => chunks.push(c));
				res.on('error', reject);
				res.on('end', () => {
					const raw = Buffer.concat(chunks);
					const text = raw.toString('utf8');
					let json: unknown = text || undefined;
					if (text && /json/i.test(String(res.headers['content-type'] ?? ''))) {
						try {
							json = JSON.parse(text);
						} catch {
							// keep the text
						}
					}
					if (debug)
						process.stderr.write(
							`[http] ${opts.method ?? 'GET'} ${url} -> ${res.statusCode} ${raw.length} B in ${Date.now() - started} ms\n`,
						);
					resolve({ status: res.statusCode ?? 0, headers: res.headers, text, raw, json });
				});
			},
		);
		req.on('timeout', () =>
			req.destroy(
				new Error(
					`${opts.method ?? 'GET'} ${url}: no answer within ${opts.timeoutMs ?? 60_000} ms`,
				),
			),
		);
		req.on('error', reject);
		req.end(payload);
	});
}
