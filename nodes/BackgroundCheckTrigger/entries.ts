/**
 * The entries of the trigger's state (state.ts): what they are known by (hashes of an event key and of a
 * subject's status) and how long they are kept. Pure, no n8n.
 */
import { createHash } from 'crypto';

/** How long an event is remembered: beyond the provider's last retry, 27 h 35 min after the first attempt. */
export const RETENTION_SECONDS = 28 * 60 * 60;
/** Granularity of the saved times. */
export const BUCKET_SECONDS = 60 * 60;
/**
 * How long a claim (or the turn to save) holds others back: n8n starts an execution within milliseconds, and
 * one whose outcome never came (n8n failed to start it without saying so) must not hold them for ever.
 */
export const CLAIM_SECONDS = 60;
/** The most events (and subjects) process memory holds. */
export const PROCESS_LIMIT = 100_000;

export const bucketOf = (seconds: number) => Math.floor(seconds / BUCKET_SECONDS) * BUCKET_SECONDS;
export const timeOf = (modStamp: string | undefined) =>
	modStamp === undefined ? Number.NaN : Date.parse(modStamp);

/**
 * A map that lists its newest entries without walking the older ones: every save takes the newest Duplicate
 * Memory Size entries of up to {@link PROCESS_LIMIT}. Map's own order (oldest first) is unchanged.
 */
export class RecentMap<V> extends Map<string, V> {
	/** Keys as first set, oldest first; a key deleted (or set again after a delete) leaves a stale copy. */
	private order: string[] = [];

	/** `slack`: how many stale copies are kept before the keys are listed again. */
	constructor(private readonly slack = 1_024) {
		super();
	}

	set(key: string, value: V): this {
		const added = !this.has(key);
		super.set(key, value);
		// With 1,024, about PROCESS_LIMIT / 1,024 steps a set at most.
		if (added && this.order.push(key) > this.size + this.slack) this.order = [...this.keys()];
		return this;
	}

	clear(): void {
		super.clear();
		this.order = [];
	}

	/** The newest `count` entries that `keep`, newest first. */
	*newest(count: number, keep: (value: V) => boolean = () => true): Generator<[string, V]> {
		const seen = new Set<string>();
		for (let index = this.order.length - 1; index >= 0 && count > 0; index--) {
			const key = this.order[index];
			if (seen.has(key)) continue;
			seen.add(key);
			if (!this.has(key)) continue;
			const value = this.get(key) as V;
			if (!keep(value)) continue;
			count--;
			yield [key, value];
		}
	}
}

/** Drops the oldest entry of a collection beyond {@link PROCESS_LIMIT}. */
export const limit = (entries: Set<string> | Map<string, unknown>) => {
	if (entries.size > PROCESS_LIMIT) entries.delete(entries.keys().next().value as string);
};

/**
 * Drops the entries of a map, oldest first, past {@link RETENTION_SECONDS} (by their hour) or beyond
 * {@link PROCESS_LIMIT}; returns how many it dropped.
 */
export function expire(map: Map<string, number | { hour: number }>, now: number): number {
	let dropped = 0;
	for (const [hash, value] of map) {
		const hour = typeof value === 'number' ? value : value.hour;
		if (hour + BUCKET_SECONDS > now - RETENTION_SECONDS && map.size <= PROCESS_LIMIT) break;
		map.delete(hash);
		dropped++;
	}
	return dropped;
}

/**
 * An event key (or a subject, a cover) as remembered: 10 base64url characters of its SHA-256 (60 bits), so a new event is taken for
 * a duplicate by mistake with probability at most n / 2^60 (about 9e-14 with 100,000 remembered).
 */
export const HASH_LENGTH = 10;
export const shortHash = (text: string) =>
	createHash('sha256').update(text).digest('base64url').slice(0, HASH_LENGTH);

/** A status change, as a delivery carries it or the watchdog reads it. */
export interface Change {
	/** The same in every copy of the event (event.ts eventKeyOf). */
	eventKey: string;
	/** What modStamp orders: `case:<id>`, `casedata:<id>`. */
	subject?: string;
	/** The statuses the event sets, as one string. */
	status?: string;
	modStamp?: string;
}

/** What a change of a subject to a status is known by, whatever its modStamp. */
export const coverOf = (change: Change) =>
	change.subject === undefined || change.status === undefined
		? undefined
		: shortHash(`cover|${change.subject}|${change.status}`);

/** A change's event key hash and cover: a claim holds it under both, as it may come with another modStamp. */
export const hashesOf = (change: Change) =>
	[shortHash(change.eventKey), coverOf(change)].filter((hash) => hash !== undefined);
