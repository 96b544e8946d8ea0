/* eslint-disable @n8n/community-nodes/no-restricted-imports -- repository tooling: runs in Node.js, never inside n8n */
/** Keeps credentials out of the request and delivery logs. */
import type { IncomingHttpHeaders } from 'http';

import { isPlainObject } from '../nodes/shared/values';

export const REDACTED = '[redacted]';

const SECRET_KEYS = new Set(['apikey', 'clientaccesstoken', 'password', 'token', 'secret']);

/** A deep copy of a JSON value with every credential-like property replaced. */
export function redactSecrets(value: unknown): unknown {
	if (Array.isArray(value)) return value.map(redactSecrets);
	if (!isPlainObject(value)) return value;
	return Object.fromEntries(
		Object.entries(value).map(([key, entry]) => [
			key,
			SECRET_KEYS.has(key.toLowerCase()) && entry !== null && entry !== undefined
				? REDACTED
				: redactSecrets(entry),
		]),
	);
}

export function redactHeaders(headers: IncomingHttpHeaders): Record<string, string> {
	const result: Record<string, string> = {};
	for (const [name, value] of Object.entries(headers)) {
		if (value === undefined) continue;
		const text = Array.isArray(value) ? value.join(', ') : value;
		result[name] = name === 'authorization' ? redactAuthorization(text) : text;
	}
	return result;
}

/** Keeps the scheme (`Bearer [redacted]`) so a log still shows whether a bearer header was sent. */
function redactAuthorization(value: string): string {
	const scheme = /^(\w+)\s+\S/.exec(value);
	return scheme ? `${scheme[1]} ${REDACTED}` : REDACTED;
}
