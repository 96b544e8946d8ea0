/**
 * Duplicate suppression for webhook deliveries (spec 6.5, 8), in two tiers:
 * - process memory, shared by every request this n8n process handles for one trigger node: the content
 *   key of every event admitted in the last {@link RETENTION_SECONDS} (28 hours: the provider's first
 *   attempt plus seven retries over 27 h 35 min), at most {@link PROCESS_LIMIT} of them. Check and claim
 *   are one synchronous step, so copies arriving together cannot both pass.
 * - a saved copy in the node's workflow static data, which survives restarts and reaches other n8n
 *   processes: the newest `savedLimit` (Duplicate Memory Size) of those keys and, for events checked with
 *   Ignore Older Events, the newest modStamp of as many subjects.
 *
 * One key per event: its content key (case id, status IDs and modStamp; see event.ts), the same in every
 * copy of the event, whichever delivery system or attempt sent it, and in what the watchdog builds from the
 * API. A retry carries the same webhook-id AND the same body, so the content key alone recognises it.
 *
 * Keys are kept as {@link HASH_LENGTH} base64url characters of their SHA-256 (60 bits). A new event is
 * taken for a duplicate by mistake (lost) only when its hash equals one of the n remembered: probability
 * n / 2^60, at most 1e5 / 1.15e18 ≈ 9e-14 per event with a full process memory. Every other limit errs the
 * other way: a key evicted early (over the count, or after a restart beyond the saved copy) can only let a
 * copy run twice, never stop an event.
 *
 * The saved copy must hold each admitted event before anything can depend on it, so it is handed to n8n for
 * saving with every admission (n8n writes it before it answers the delivery). n8n reads static data for every
 * webhook request (2.8.4 also for every execution, and copies it into every saved execution) and writes it
 * whole: its size is what it costs, so it is small. Format v3, ONE string:
 *
 *     v3 <writer>                    the writer: random per process (per deduplicator)
 *     <hourStart> <hash><hash>...    one line per hour in which events were admitted, oldest first:
 *                                    epoch seconds, then the hashes run together (fixed width, no separator)
 *     latest
 *     <subjectHash> <modStamp>       one line per subject: the newest modStamp (an ISO timestamp as `~` and
 *                                    its epoch milliseconds in base 36, anything else JSON-escaped)
 *
 * About 10 bytes per event (1,000 events: about 10 KB). Hour buckets stand in for each event's time: an
 * event is kept at least 28 hours and at most 29.
 *
 * n8n saves static data whole, last writer wins, at a moment the node does not control: the node stores
 * {@link DeliveryDeduplicator.persistedView}, which serializes to the saved copy of what this process holds
 * at that moment. Every process absorbs the saved copy it reads with each request ({@link absorb}) and writes
 * the union of it and its own memory, so the copies of several processes merge instead of overwriting one
 * another (a key lost to a concurrent save comes back with its process's next save). Absorbing costs nothing
 * in the steady state: a string this process produced or already absorbed is not parsed. Versions v2 and v1
 * are still read, so an upgrade keeps the memory.
 */
import { createHash, randomBytes } from 'crypto';

import { PerNode } from './savedCopy';

/** How long an admitted event is remembered: beyond the provider's last retry, 27 h 35 min after the first attempt. */
export const RETENTION_SECONDS = 28 * 60 * 60;

/** Granularity of the saved copy's times. */
export const BUCKET_SECONDS = 60 * 60;

/** The most events process memory holds (about 100 bytes each). */
export const PROCESS_LIMIT = 100_000;

/** Duplicate Memory Size: how many of the newest events the saved copy holds. */
export const SAVED_LIMIT = { default: 100, min: 100, max: 20_000 } as const;

export interface AdmissionRequest {
	/** The event's content key: the same in every copy of the event. */
	key: string;
	/** What `modStamp` orders, e.g. one case; with `modStamp`, enables the out-of-order check. */
	subject?: string;
	modStamp?: string;
	dropOlder: boolean;
}

export interface Claim {
	/** The event runs: remember it. */
	commit(nowSeconds: number): void;
	/** The event does not run (filtered out): a copy may be looked at again. */
	release(): void;
	/** After a commit: the event did not run after all (n8n could not start its execution); forget it. */
	revoke(): void;
}

export type Admission =
	| { outcome: 'duplicate' }
	| { outcome: 'outOfOrder'; newerModStamp: string }
	| { outcome: 'admitted'; claim: Claim };

/** 10 base64url characters of SHA-256 = 60 bits (see the file comment for what that means). */
export const HASH_LENGTH = 10;
export const hashKey = (key: string) =>
	createHash('sha256').update(key).digest('base64url').slice(0, HASH_LENGTH);

const FORMAT = 'v3';
const LATEST_SECTION = 'latest';
/** How many recent persisted strings are recognised without parsing (concurrent saves may land out of order). */
const KNOWN_STRINGS = 4;

/**
 * Saved strings whose content a process already holds (it produced or absorbed them), the newest few:
 * reading one of them back needs no parsing, which keeps absorbing the saved copy on every request free.
 */
export class KnownTexts {
	private readonly texts = new Set<string>();

	has(text: string): boolean {
		return this.texts.has(text);
	}

	add(text: string): void {
		this.texts.delete(text);
		this.texts.add(text);
		if (this.texts.size > KNOWN_STRINGS)
			this.texts.delete(this.texts.values().next().value as string);
	}
}

const escapeLine = (text: string) => JSON.stringify(text).slice(1, -1);
const unescapeLine = (text: string) => JSON.parse(`"${text}"`) as unknown;
const bucketOf = (seconds: number) => Math.floor(seconds / BUCKET_SECONDS) * BUCKET_SECONDS;

/** Negative when `a` is older than `b`; undefined when either is not a timestamp. */
function compareModStamps(a: string, b: string): number | undefined {
	const left = Date.parse(a);
	const right = Date.parse(b);
	return Number.isNaN(left) || Number.isNaN(right) ? undefined : left - right;
}

interface Bucket {
	hashes: string[];
	/** Hashes before this index were evicted. */
	head: number;
}

interface Subject {
	modStamp: string;
	updatedAt: number;
}

/**
 * A modStamp as the saved copy keeps it: an ISO timestamp as `~` and its epoch milliseconds in base 36
 * (8 characters instead of 24, until 2059), anything else JSON-escaped (a leading `~` escaped too).
 */
function packModStamp(modStamp: string): string {
	const ms = Date.parse(modStamp);
	if (Number.isFinite(ms) && ms >= 0 && new Date(ms).toISOString() === modStamp)
		return `~${ms.toString(36)}`;
	const escaped = escapeLine(modStamp);
	return escaped.startsWith('~') ? `\\u007e${escaped.slice(1)}` : escaped;
}

function unpackModStamp(packed: string): unknown {
	return packed.startsWith('~')
		? new Date(parseInt(packed.slice(1), 36)).toISOString()
		: unescapeLine(packed);
}

export class DeliveryDeduplicator {
	/** Hour start → hashes admitted in that hour, in order of admission (those before `head` are forgotten). */
	private readonly buckets = new Map<number, Bucket>();

	/** Whether {@link buckets} is in ascending order of hour (merging an older hour breaks it). */
	private ordered = true;

	private newestHour = -Infinity;

	/** Hash → its hour. */
	private readonly hours = new Map<string, number>();

	private readonly pending = new Set<string>();

	/** Subject hash → newest modStamp, least recently updated first. */
	private readonly latest = new Map<string, Subject>();

	/** The subjects checked with Ignore Older Events, which the saved copy keeps: hash → newest modStamp, oldest first. */
	private readonly savedSubjects = new Map<string, string>();

	/** Bumped on every change of what is saved; {@link serialized} is valid for one version. */
	private version = 0;

	private serialized: { version: number; text: string } | undefined;

	private readonly known = new KnownTexts();

	/** Names this process's saved copies, so it knows them for its own when it reads them back. */
	private readonly writer = randomBytes(4).toString('hex');

	/**
	 * What to put in static data: JSON.stringify (n8n's save) turns it into {@link toPersisted} at that
	 * moment. It has no object-valued properties, so n8n's change-tracking proxy leaves it as it is.
	 */
	readonly persistedView: { toJSON(): string } = { toJSON: () => this.toPersisted() };

	/** @param limit how many of the newest events the saved copy holds (Duplicate Memory Size) */
	constructor(private limit: number = SAVED_LIMIT.default) {}

	get savedLimit(): number {
		return this.limit;
	}

	set savedLimit(limit: number) {
		if (limit === this.limit) return;
		this.limit = limit;
		this.version++;
	}

	/** Merges state persisted by an earlier process (restart) or another writer, then forgets what expired. */
	absorb(persisted: unknown, nowSeconds: number): void {
		if (persisted !== this.persistedView) {
			const view = persisted as { toJSON?: unknown } | null | undefined;
			const state = typeof view?.toJSON === 'function' ? (view.toJSON() as unknown) : persisted;
			if (typeof state === 'string') {
				if (!this.known.has(state)) {
					this.absorbText(state, nowSeconds);
					this.known.add(state);
				}
			} else if (state !== null && typeof state === 'object') {
				this.absorbV1(state as Partial<PersistedDedupStateV1>, nowSeconds);
			}
		}
		this.evict(nowSeconds);
	}

	/**
	 * Whether `persisted` (what the request read from static data) lacks something this process holds, so
	 * that the view should be handed to n8n for saving even though nothing new was admitted.
	 */
	isBehind(persisted: unknown): boolean {
		if (persisted === this.persistedView) return false;
		if (persisted === undefined) return this.size > 0 || this.savedSubjects.size > 0;
		return persisted !== this.toPersisted();
	}

	/**
	 * Whether `persisted` is a saved copy this process wrote. When what a request read is neither that nor
	 * empty-as-expected, another writer replaced it, and what this process saved before may be gone.
	 */
	wrote(persisted: unknown): boolean {
		if (persisted === undefined) return this.size === 0 && this.savedSubjects.size === 0;
		return (
			persisted === this.persistedView ||
			(typeof persisted === 'string' && persisted.startsWith(`${FORMAT} ${this.writer}\n`))
		);
	}

	admit(request: AdmissionRequest, nowSeconds: number): Admission {
		const hash = hashKey(request.key);
		if (this.hours.has(hash) || this.pending.has(hash)) return { outcome: 'duplicate' };

		if (request.subject !== undefined && request.modStamp !== undefined) {
			const subject = hashKey(request.subject);
			const newer = this.latest.get(subject)?.modStamp;
			if (
				request.dropOlder &&
				newer !== undefined &&
				(compareModStamps(request.modStamp, newer) ?? 0) < 0
			) {
				return { outcome: 'outOfOrder', newerModStamp: newer };
			}
			this.recordModStamp(subject, request.modStamp, request.dropOlder, nowSeconds);
		}

		this.pending.add(hash);
		let settled = false;
		const settle = () => {
			if (settled) return false;
			settled = true;
			this.pending.delete(hash);
			return true;
		};
		return {
			outcome: 'admitted',
			claim: {
				commit: (nowSeconds) => {
					if (!settle()) return;
					this.remember(hash, nowSeconds);
					this.evict(nowSeconds);
				},
				release: () => {
					settle();
				},
				revoke: () => {
					if (this.hours.delete(hash)) this.version++;
				},
			},
		};
	}

	/** The saved copy (format v3): the newest events' hashes by hour, and the saved subjects; built once per change. */
	toPersisted(): string {
		if (this.serialized?.version !== this.version) {
			const lines = [`${FORMAT} ${this.writer}`];
			let room = this.savedLimit;
			const newestFirst: Array<[number, string[]]> = [];
			for (const [hour, { hashes, head }] of [...this.sortedBuckets()].reverse()) {
				if (room <= 0) break;
				const kept = hashes
					.slice(Math.max(head, hashes.length - room))
					.filter((hash) => this.hours.get(hash) === hour);
				room -= kept.length;
				newestFirst.push([hour, kept]);
			}
			for (const [hour, hashes] of newestFirst.reverse()) lines.push(`${hour} ${hashes.join('')}`);
			lines.push(LATEST_SECTION);
			let skip = this.savedSubjects.size - this.savedLimit;
			for (const [subject, modStamp] of this.savedSubjects)
				if (skip-- <= 0) lines.push(`${subject} ${packModStamp(modStamp)}`);
			this.serialized = { version: this.version, text: lines.join('\n') };
			this.known.add(this.serialized.text);
		}
		return this.serialized.text;
	}

	/** How many events process memory holds. */
	get size(): number {
		return this.hours.size;
	}

	/** Grows with every change of what the saved copy holds. */
	get changes(): number {
		return this.version;
	}

	/** Parses a v3 (or v2) string; anything else, or any line it cannot read, is skipped. */
	private absorbText(text: string, nowSeconds: number): void {
		const lines = text.split('\n');
		const format = lines[0].split(' ')[0];
		if (format !== FORMAT && format !== 'v2') return;
		let index = 1;
		for (; index < lines.length && lines[index] !== LATEST_SECTION; index++) {
			const [time, ...rest] = lines[index].split(' ');
			const seenAt = Number(time);
			if (!Number.isFinite(seenAt)) continue;
			// v2: `<seenAt> <hash>...` with 12-character hashes (their first 10 are this version's hash); v3: one run.
			const hashes =
				format === FORMAT
					? chunks(rest.join(''), HASH_LENGTH)
					: rest.map((hash) => hash.slice(0, HASH_LENGTH));
			for (const hash of hashes)
				if (hash.length === HASH_LENGTH && !this.hours.has(hash)) this.remember(hash, seenAt);
		}
		for (index++; index < lines.length; index++) {
			const line = lines[index];
			const space = line.indexOf(' ');
			if (space <= 0) continue;
			try {
				this.absorbModStamp(
					line.slice(0, space),
					unpackModStamp(line.slice(space + 1)),
					nowSeconds,
				);
			} catch {
				// not a line this version wrote: skip it
			}
		}
	}

	/** Version 1 kept `{ deliveries: [[hashes, seenAt]], latest: [[subject, modStamp]] }`. */
	private absorbV1(state: Partial<PersistedDedupStateV1>, nowSeconds: number): void {
		for (const entry of Array.isArray(state.deliveries) ? state.deliveries : []) {
			const [keys, seenAt] = Array.isArray(entry) ? entry : [];
			if (!Array.isArray(keys) || typeof seenAt !== 'number') continue;
			for (const key of keys) {
				const hash = typeof key === 'string' ? key.slice(0, HASH_LENGTH) : '';
				if (hash.length === HASH_LENGTH && !this.hours.has(hash)) this.remember(hash, seenAt);
			}
		}
		for (const entry of Array.isArray(state.latest) ? state.latest : []) {
			const [subject, modStamp] = Array.isArray(entry) ? entry : [];
			this.absorbModStamp(subject, modStamp, nowSeconds);
		}
	}

	/** A saved subject was checked with Ignore Older Events, so it stays in the saved copy. */
	private absorbModStamp(subject: unknown, modStamp: unknown, nowSeconds: number): void {
		if (
			typeof subject === 'string' &&
			subject.length >= HASH_LENGTH &&
			typeof modStamp === 'string'
		) {
			this.recordModStamp(subject.slice(0, HASH_LENGTH), modStamp, true, nowSeconds);
		}
	}

	private remember(hash: string, seenAt: number): void {
		const hour = bucketOf(seenAt);
		let bucket = this.buckets.get(hour);
		if (!bucket) {
			if (hour < this.newestHour) this.ordered = false;
			this.newestHour = Math.max(this.newestHour, hour);
			bucket = { hashes: [], head: 0 };
			this.buckets.set(hour, bucket);
		}
		bucket.hashes.push(hash);
		this.hours.set(hash, hour);
		this.version++;
	}

	/**
	 * Keeps the newest modStamp per subject (or the last, when they cannot be compared); recently updated
	 * subjects survive eviction. Subjects checked with Ignore Older Events (`saved`) also go into the saved
	 * copy, the newest {@link savedLimit} of them.
	 */
	private recordModStamp(
		subject: string,
		modStamp: string,
		saved: boolean,
		nowSeconds: number,
	): void {
		const current = this.latest.get(subject);
		const order = current === undefined ? undefined : compareModStamps(modStamp, current.modStamp);
		const newer = !((order !== undefined && order <= 0) || current?.modStamp === modStamp);
		if (newer) {
			this.latest.delete(subject);
			this.latest.set(subject, { modStamp, updatedAt: nowSeconds });
		}
		const newest = this.latest.get(subject)!.modStamp;
		if ((saved || this.savedSubjects.has(subject)) && this.savedSubjects.get(subject) !== newest) {
			this.savedSubjects.delete(subject);
			this.savedSubjects.set(subject, newest);
			if (this.savedSubjects.size > SAVED_LIMIT.max)
				this.savedSubjects.delete(this.savedSubjects.keys().next().value as string);
			this.version++;
		}
	}

	/** Forgets hours past the retention, then the oldest events beyond {@link PROCESS_LIMIT}; the same for subjects. */
	private evict(nowSeconds: number): void {
		const expiredBefore = nowSeconds - RETENTION_SECONDS;
		for (const [hour, bucket] of this.sortedBuckets()) {
			const expired = hour + BUCKET_SECONDS <= expiredBefore;
			const over = this.hours.size - PROCESS_LIMIT;
			if (!expired && over <= 0) break;
			const end = expired
				? bucket.hashes.length
				: Math.min(bucket.head + over, bucket.hashes.length);
			for (let index = bucket.head; index < end; index++) {
				const hash = bucket.hashes[index];
				if (this.hours.get(hash) === hour) this.hours.delete(hash);
			}
			bucket.head = end;
			if (bucket.head === bucket.hashes.length) {
				this.buckets.delete(hour);
			} else if (bucket.head > bucket.hashes.length / 2) {
				bucket.hashes.splice(0, bucket.head);
				bucket.head = 0;
			}
			this.version++;
		}
		for (const [subject, { updatedAt }] of this.latest) {
			if (this.latest.size <= PROCESS_LIMIT && updatedAt > expiredBefore) break;
			this.latest.delete(subject);
			if (this.savedSubjects.delete(subject)) this.version++;
		}
	}

	/** The buckets oldest first (re-sorted only after an older hour was merged in). */
	private sortedBuckets(): Map<number, Bucket> {
		if (!this.ordered) {
			const sorted = [...this.buckets].sort(([a], [b]) => a - b);
			this.buckets.clear();
			for (const [hour, hashes] of sorted) this.buckets.set(hour, hashes);
			this.ordered = true;
		}
		return this.buckets;
	}
}

/** What version 1 kept in workflow static data; still read, so an upgrade keeps the memory. */
export interface PersistedDedupStateV1 {
	/** Key hashes of one delivery, and when it was admitted (epoch seconds). */
	deliveries: Array<[string[], number]>;
	/** Subject hash and the newest `modStamp` seen for it. */
	latest: Array<[string, string]>;
}

function chunks(text: string, size: number): string[] {
	const parts: string[] = [];
	for (let start = 0; start < text.length; start += size)
		parts.push(text.slice(start, start + size));
	return parts;
}

const deduplicators = new PerNode(() => new DeliveryDeduplicator());

/** The process-wide deduplicator of one trigger node in one workflow, with the current Duplicate Memory Size. */
export function deduplicatorFor(scope: string, savedLimit: number): DeliveryDeduplicator {
	const deduplicator = deduplicators.get(scope);
	deduplicator.savedLimit = savedLimit;
	return deduplicator;
}

export function forgetDeduplicator(scope: string): void {
	deduplicators.forget(scope);
}
