/* eslint-disable @n8n/community-nodes/no-restricted-globals -- repository tooling: runs in Node.js, never inside n8n */
/**
 * What the reliability files share: the endpoints of the API specification (section 4, from api/facts.json) and a check that a
 * request the sandbox received stayed inside one of them, a seeded random order, and a bounded pool of
 * concurrent senders.
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

/** A small deterministic PRNG (mulberry32): the same seed gives the same fuzz and the same order. */
export function seededRandom(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

export function shuffle<T>(values: T[], random: () => number): T[] {
	const copy = [...values];
	for (let index = copy.length - 1; index > 0; index--) {
		const other = Math.floor(random() * (index + 1));
		[copy[index], copy[other]] = [copy[other], copy[index]];
	}
	return copy;
}

/** Runs `task` for every input with at most `concurrency` in flight; results in input order. */
export async function runPool<T, R>(
	inputs: T[],
	concurrency: number,
	task: (input: T, index: number) => Promise<R>,
): Promise<R[]> {
	const results = new Array<R>(inputs.length);
	let next = 0;
	const worker = async () => {
		while (next < inputs.length) {
			const index = next++;
			results[index] = await task(inputs[index], index);
		}
	};
	await Promise.all(Array.from({ length: Math.min(concurrency, inputs.length) }, worker));
	return results;
}

/** How long to wait for n8n to be ready after a kill: seconds usually; over a minute on a loaded machine. */
export const READY_AFTER_KILL_MS = 240_000;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it returns a value other than undefined; throws `describe()` after timeoutMs. */
export async function waitFor<T>(
	probe: () => Promise<T | undefined> | T | undefined,
	opts: { timeoutMs: number; intervalMs?: number; describe: () => string | Promise<string> },
): Promise<T> {
	const deadline = Date.now() + opts.timeoutMs;
	for (;;) {
		const value = await probe();
		if (value !== undefined) return value;
		if (Date.now() > deadline)
			throw new Error(`not reached within ${opts.timeoutMs} ms: ${await opts.describe()}`);
		await sleep(opts.intervalMs ?? 250);
	}
}
