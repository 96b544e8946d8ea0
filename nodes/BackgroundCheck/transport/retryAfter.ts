/**
 * Reads that the API pushes back on: a 429, or a 503 with Retry-After, is waited out and sent again. Writes
 * never come here (apiRequest sends them once). The waits are bounded: one wait at most MAX_RETRY_WAIT_MS,
 * at most MAX_TOTAL_WAIT_MS and MAX_RETRIES per request. The pause is shared by every request of a node run,
 * so concurrent items stop together instead of each finding the limit again.
 */
import { sleep } from 'n8n-workflow';

export const MAX_RETRY_WAIT_MS = 30_000;
export const MAX_TOTAL_WAIT_MS = 60_000;
export const MAX_RETRIES = 10;
/** A 429 that names no wait. */
export const DEFAULT_RATE_LIMIT_WAIT_MS = 1_000;
/** A Retry-After of 0 still leaves the other requests of the run a moment. */
const MIN_WAIT_MS = 50;

/** Milliseconds asked by a Retry-After header (delta-seconds or an HTTP date); undefined when absent or unreadable. */
export function parseRetryAfter(value: unknown, now: number): number | undefined {
	const text = Array.isArray(value) ? value[0] : value;
	if (typeof text !== 'string' || text.trim() === '') return undefined;
	if (/^\d+(\.\d+)?$/.test(text.trim())) return Number(text.trim()) * 1000;
	// An HTTP date starts with the day's name ("Wed, 21 Oct 2015 07:28:00 GMT").
	if (!/^[A-Za-z]{3}/.test(text.trim())) return undefined;
	const date = Date.parse(text);
	return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The wait before sending a read again: a 429 (DEFAULT_RATE_LIMIT_WAIT_MS without Retry-After) or a 503 with Retry-After. */
export function askedWaitMs(statusCode: number, headers: unknown, now: number): number | undefined {
	if (statusCode !== 429 && statusCode !== 503) return undefined;
	const asked = parseRetryAfter((headers as Record<string, unknown> | undefined)?.['retry-after'], now);
	if (asked === undefined) return statusCode === 429 ? DEFAULT_RATE_LIMIT_WAIT_MS : undefined;
	return Math.max(asked, MIN_WAIT_MS);
}

/** The time before which no read of the run is sent; one per node run (the credential session). */
export class PushBack {
	private until = 0;

	/** Nobody sends before `waitMs` from now (a longer pause already set stays). */
	push(waitMs: number): void {
		this.until = Math.max(this.until, Date.now() + waitMs);
	}

	/** Sleeps until the pause is over, at most `budgetMs` in all; returns the milliseconds slept. */
	async waitOut(budgetMs: number): Promise<number> {
		let slept = 0;
		for (let left = this.until - Date.now(); left > 0 && slept < budgetMs; left = this.until - Date.now()) {
			const wait = Math.min(left, budgetMs - slept);
			await sleep(wait);
			slept += wait;
		}
		return slept;
	}
}

/** Why a read pushed back on is not sent again, or undefined to wait and send it again. */
export function refuseRetry(askedMs: number, waitedMs: number, retries: number): string | undefined {
	const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;
	const asked = `the API asked to wait ${seconds(askedMs)}`;
	if (askedMs > MAX_RETRY_WAIT_MS) return `${asked}, longer than the ${seconds(MAX_RETRY_WAIT_MS)} the node waits at a time`;
	if (retries >= MAX_RETRIES || waitedMs + askedMs > MAX_TOTAL_WAIT_MS) {
		return `${asked} again after ${retries} tries and ${seconds(waitedMs)} of waiting; the node waits at most ${seconds(MAX_TOTAL_WAIT_MS)} per request`;
	}
	return undefined;
}

/** What a pushed-back read that was given up on (or a write, never sent again) adds to its error. */
export function pushBackNote(gaveUp: string | undefined, isWrite: boolean, askedMs: number | undefined): string | undefined {
	if (gaveUp !== undefined) return `Gave up: ${gaveUp}. Try again later, or lower Options > Concurrent Requests.`;
	if (isWrite && askedMs !== undefined) {
		return `The API asked to wait ${Math.round(askedMs / 100) / 10} s; a write is never sent again by the node.`;
	}
	return undefined;
}
