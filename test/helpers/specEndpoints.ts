/**
 * The endpoints of the API specification (section 4, from api/facts.json) and a check that a request the
 * sandbox received stayed inside one of them: for tests that look at the sandbox's request log.
 */

import type { RequestLogEntry } from '../../sandbox';
import { readFacts } from '../../scripts/generate-catalog';

/** Spec 4.1-4.3, method and path template, from api/facts.json (test/package/apiFacts.test.ts checks it against the spec). */
export const SPEC_ENDPOINTS: ReadonlyArray<readonly [string, string]> = readFacts().endpoints.map(
	({ method, path }) => [method, path] as const,
);

export interface EndpointMatch {
	/** The spec template, e.g. `GET /case/id/{caseId}`. */
	endpoint: string;
	/** Each placeholder's value, decoded once (as the server reads it). */
	params: Record<string, string>;
}

/**
 * The spec endpoint a received request addressed, or undefined when it addressed none. The request log
 * holds the path as it arrived (not decoded); it must have the template's number of segments, its literal
 * segments, and no placeholder whose value is empty, or is a dot segment or contains a slash once decoded,
 * or decoded twice or three times (an encoded `../` that a server or proxy decoding again would follow).
 */
export function matchEndpoint(
	entry: Pick<RequestLogEntry, 'method' | 'path'>,
): EndpointMatch | undefined {
	const segments = entry.path.split('/');
	for (const [method, template] of SPEC_ENDPOINTS) {
		if (method !== entry.method) continue;
		const parts = template.split('/');
		if (parts.length !== segments.length) continue;
		const params: Record<string, string> = {};
		const fits = parts.every((part, index) => {
			const segment = segments[index];
			if (!part.startsWith('{')) return part === segment;
			if (segment === '') return false;
			// Decoded once, as the server reads it; and again, as a proxy or server that decodes twice would.
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

/** Requests that addressed no endpoint of the spec, as `METHOD path` lines. */
export function escapedRequests(entries: RequestLogEntry[]): string[] {
	return entries
		.filter((entry) => !matchEndpoint(entry))
		.map((entry) => `${entry.method} ${entry.path}`);
}
