/**
 * Requests that the API pushes back on: a 429, or a 503 with Retry-After, is waited out and sent again, a
 * write too (such an answer says the API did not carry it out; any other failure of a write is final). The waits are
 * bounded: one wait at most MAX_RETRY_WAIT_MS, at most MAX_TOTAL_WAIT_MS and MAX_RETRIES per request. The
 * pause and the slower pace that follows are shared by every request of a node run, so concurrent items stop
 * and slow down together instead of each finding the limit again.
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

/** The wait before sending a request again: a 429 (DEFAULT_RATE_LIMIT_WAIT_MS without Retry-After) or a 503 with Retry-After. */
export function askedWaitMs(statusCode: number, headers: unknown, now: number): number | undefined {
	if (statusCode !== 429 && statusCode !== 503) return undefined;
	const asked = parseRetryAfter(
		(headers as Record<string, unknown> | undefined)?.['retry-after'],
		now,
	);
	if (asked === undefined) return statusCode === 429 ? DEFAULT_RATE_LIMIT_WAIT_MS : undefined;
	return Math.max(asked, MIN_WAIT_MS);
}

/** The pace of the run is never slower than one request per this long (each wait stays bounded). */
export const MAX_SPACING_MS = MAX_RETRY_WAIT_MS;
/** How much a further push-back slows the pace at least, when the estimate says less. */
const SLOW_DOWN_FACTOR = 1.2;

/** A stretch of the run between two slow-downs: the requests sent in it that the API accepted. */
interface Period {
	from: number;
	/** Requests sent before this belong to the period (it ends when the API pushes back). */
	sentBefore: number;
	/** The end of the pause the API asked for at its end. */
	until: number;
	accepted: number;
	/** The spacing before it, 1.2x: a further push-back slows down at least this much. */
	floor: number;
}

/**
 * How the requests of one node run (the credential session) go out once the API has pushed back:
 * - a pause: nobody sends before the end of the longest wait asked;
 * - a pace: from the first push-back on, sends are spaced so as to stay under the rate the API accepted:
 *   the requests sent from the start of the run (or the end of the previous pause) up to the push-back that
 *   the API accepted, over that time plus the wait asked (a limit of N per second whose window was used up at
 *   once gives about N per second). Requests are counted by when they were sent, so answers still on their
 *   way count as they arrive. A push-back on a request sent after the last slow-down slows the pace again (at
 *   least 1.2x); push-backs on requests sent before it (already in flight) only lengthen the pause. The pace
 *   holds for the rest of the run.
 */
export class PushBack {
	private until = 0;

	private nextSendAt = 0;

	private current: { from: number; accepted: number };

	/** The period that ended with the last slow-down; none before the first push-back. */
	private closed: Period | undefined;

	constructor() {
		this.current = { from: Date.now(), accepted: 0 };
	}

	/** The milliseconds between two sends of the run; 0 while the API has not pushed back. */
	get spacing(): number {
		const closed = this.closed;
		if (closed === undefined) return 0;
		const estimate = closed.accepted > 0 ? (closed.until - closed.from) / closed.accepted : 0;
		return Math.min(MAX_SPACING_MS, Math.max(estimate, closed.floor));
	}

	/** The API answered a request sent at `sentAt` without pushing back. */
	accepted(sentAt: number): void {
		const closed = this.closed;
		if (closed !== undefined && sentAt >= closed.from && sentAt < closed.sentBefore)
			closed.accepted++;
		else this.current.accepted++;
	}

	/** The API pushed back on a request sent at `sentAt`, asking for `waitMs`: pause everyone, and slow the pace. */
	push(waitMs: number, sentAt: number): void {
		const now = Date.now();
		this.until = Math.max(this.until, now + waitMs);
		this.nextSendAt = Math.max(this.nextSendAt, this.until);
		const closed = this.closed;
		if (closed !== undefined && sentAt < closed.sentBefore) {
			closed.until = this.until;
			return;
		}
		const floor = this.spacing * SLOW_DOWN_FACTOR;
		this.closed = {
			from: this.current.from,
			sentBefore: now,
			until: this.until,
			accepted: this.current.accepted,
			floor,
		};
		this.current = { from: this.until, accepted: 0 };
	}

	/**
	 * Sleeps until this request may be sent (the pause is over and its turn at the pace has come), at most
	 * `budgetMs` in all; returns the milliseconds slept. Without push-back it returns at once.
	 */
	async waitOut(budgetMs: number): Promise<number> {
		let slept = 0;
		const nap = async (ms: number) => {
			const wait = Math.min(ms, budgetMs - slept);
			await sleep(wait);
			slept += wait;
		};
		while (slept < budgetMs) {
			const now = Date.now();
			if (this.until > now) {
				await nap(this.until - now);
				continue;
			}
			const spacing = this.spacing;
			if (spacing === 0) break;
			const turn = Math.max(now, this.nextSendAt);
			this.nextSendAt = turn + spacing;
			// Timers are millisecond-grained: a turn due within one goes now.
			if (turn - now < 1) break;
			await nap(turn - now);
			// Its turn came: it goes, unless a pause began meanwhile (then it waits for that and a new turn).
			if (this.until <= Date.now()) break;
		}
		return slept;
	}
}

/** Why a request pushed back on is not sent again, or undefined to wait and send it again. */
export function refuseRetry(
	askedMs: number,
	waitedMs: number,
	retries: number,
): string | undefined {
	const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;
	const asked = `the API asked to wait ${seconds(askedMs)}`;
	if (askedMs > MAX_RETRY_WAIT_MS)
		return `${asked}, longer than the ${seconds(MAX_RETRY_WAIT_MS)} the node waits at a time`;
	if (retries >= MAX_RETRIES || waitedMs + askedMs > MAX_TOTAL_WAIT_MS) {
		return `${asked} again after ${retries} tries and ${seconds(waitedMs)} of waiting; the node waits at most ${seconds(MAX_TOTAL_WAIT_MS)} per request`;
	}
	return undefined;
}

/** What a pushed-back request that was given up on adds to its error. */
export function pushBackNote(gaveUp: string): string {
	return `Gave up: ${gaveUp}. Try again later, or lower Options > Concurrent Requests.`;
}
