/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- repository tooling: runs in Node.js, never inside n8n */
/** One webhook POST with Node's own client, bounded by the response deadline of spec 6.5 / 8. */
import * as http from 'http';
import * as https from 'https';

export type PostResult =
	| { kind: 'response'; statusCode: number }
	| { kind: 'timeout' }
	| { kind: 'error'; message: string };

export function postWebhook(
	url: string,
	body: string,
	headers: Record<string, string>,
	deadlineMs: number,
): Promise<PostResult> {
	return new Promise((resolve) => {
		let settled = false;
		const settle = (result: PostResult) => {
			if (settled) return;
			settled = true;
			clearTimeout(deadline);
			resolve(result);
		};
		const target = new URL(url);
		const client = target.protocol === 'https:' ? https : http;
		const request = client.request(
			target,
			{
				method: 'POST',
				// A fresh connection per attempt: no pooled socket outlives the sandbox or hides a dropped one.
				agent: false,
				headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
			},
			(response) => {
				response.resume(); // the body is ignored (spec 6.5)
				settle({ kind: 'response', statusCode: response.statusCode ?? 0 });
			},
		);
		// The deadline covers everything up to the status line, connection included.
		const deadline = setTimeout(() => {
			settle({ kind: 'timeout' });
			request.destroy();
		}, deadlineMs);
		request.on('error', (error) => settle({ kind: 'error', message: error.message }));
		request.end(body);
	});
}
