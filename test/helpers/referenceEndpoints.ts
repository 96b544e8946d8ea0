/**
 * The operations of the API reference (api/contract.json) and a check that a request the sandbox received
 * stayed inside one of them, for tests that look at the sandbox's request log.
 */
import { listOperations } from '../../api/contract';
import type { RequestLogEntry } from '../../sandbox';

const OPERATIONS = listOperations().map((line) => line.split(' ') as [string, string]);

export interface EndpointMatch {
	/** The reference's template, e.g. `GET /case/id/{caseId}`. */
	endpoint: string;
	/** Each placeholder's value, decoded once (as the server reads it). */
	params: Record<string, string>;
}

/**
 * The operation a received request addressed, or undefined when it addressed none: the template's number of
 * segments and literal segments, and no placeholder whose value is empty, or is a dot segment or holds a slash
 * once decoded, or decoded twice or three times (an encoded `../` a server decoding again would follow). A
 * literal segment wins over a placeholder (`/case/list/all` is not `/case/id/{caseId}`).
 */
export function matchEndpoint(
	entry: Pick<RequestLogEntry, 'method' | 'path'>,
): EndpointMatch | undefined {
	const segments = entry.path.split('/');
	const candidates = OPERATIONS.filter(([method]) => method === entry.method)
		.map(([method, template]) => ({ method, template, parts: template.split('/') }))
		.filter(({ parts }) => parts.length === segments.length)
		.sort(
			(a, b) =>
				b.parts.filter((part) => !part.startsWith('{')).length -
				a.parts.filter((part) => !part.startsWith('{')).length,
		);
	for (const { method, template, parts } of candidates) {
		const params: Record<string, string> = {};
		const fits = parts.every((part, index) => {
			const segment = segments[index];
			if (!part.startsWith('{')) return part === segment;
			if (segment === '') return false;
			const decodings: string[] = [];
			let text = segment;
			for (let round = 0; round < 3; round++) {
				try {
					text = decodeURIComponent(text);
				} catch {
					return false;
				}
				decodings.push(text);
			}
			if (
				decodings.some((decoded) => ['.', '..'].includes(decoded.trim()) || /[/\\]/.test(decoded))
			)
				return false;
			params[part.slice(1, -1)] = decodings[0];
			return true;
		});
		if (fits) return { endpoint: `${method} ${template}`, params };
	}
	return undefined;
}

/** Requests that addressed no operation of the reference, as `METHOD path` lines. */
export function escapedRequests(entries: RequestLogEntry[]): string[] {
	return entries
		.filter((entry) => !matchEndpoint(entry))
		.map((entry) => `${entry.method} ${entry.path}`);
}
