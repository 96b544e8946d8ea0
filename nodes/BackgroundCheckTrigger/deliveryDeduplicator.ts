/**
 * Duplicate suppression for webhook deliveries (spec 6.5), in two tiers:
 * - process memory, shared by every request this n8n process handles for one trigger node: every identity
 *   (delivery ID, message ID, content) of the last {@link DedupLimits.maxDeliveries} deliveries. Check and
 *   claim are one synchronous step, so copies arriving together cannot both pass.
 * - a saved copy in the node's workflow static data, which survives restarts and reaches other n8n
 *   processes: the content key (the same in every copy of an event, whichever system or attempt sent it)
 *   of the newest {@link SAVED_DELIVERIES} deliveries and, for events checked with Ignore Older Events, the
 *   newest modStamp of as many subjects.
 *
 * Why the saved copy is small and written at most every {@link SAVE_INTERVAL_MS}: n8n reads a workflow's
 * static data for every webhook request and again for every execution, copies it into every saved
 * execution, and writes it back before answering whenever a node changed it. Saving the whole memory
 * (about 90 KB for 1,000 deliveries) on every delivery cost the trigger a quarter of n8n's webhook
 * throughput (docs/benchmarks.md, section 3). The duplicates that cross a restart are copies and retries
 * of the deliveries just before it, which the newest 100 cover; a delivery answered less than
 * SAVE_INTERVAL_MS after the previous save is saved with the next request (any request, duplicates
 * included) that comes after that interval.
 *
 * n8n saves static data whole, last writer wins, at a moment the node does not control: the node stores
 * {@link DeliveryDeduplicator.persistedView}, which serializes to the saved copy of what this process holds
 * at that moment. The saved copy is ONE string (format v2), cheap to load, proxy and save:
 *
 *     v2
 *     <seenAt> <hash>...             one line per delivery, oldest first: epoch seconds, key hashes (the
 *                                    last one is the content key; earlier versions saved every key)
 *     latest
 *     <subjectHash> <modStamp>       one line per subject: the newest modStamp (JSON-escaped, no quotes)
 *
 * Reading it back ({@link DeliveryDeduplicator.absorb}) costs nothing in the steady state: a string this
 * process produced or already absorbed holds nothing it does not already know, so it is not parsed; only
 * a string from an earlier process (restart) or another writer is parsed and merged. The object form of
 * version 1 (`{ deliveries: [[hashes, seenAt]], latest: [[subject, modStamp]] }`) is still read.
 */
import { createHash } from 'crypto';

export interface DedupLimits {
	/** How many admitted deliveries are remembered. */
	maxDeliveries: number;
	/** How long a delivery is remembered; beyond the provider's last retry (about 28 hours after the first). */
	retentionSeconds: number;
}

export const DEFAULT_DEDUP_LIMITS: DedupLimits = { maxDeliveries: 1000, retentionSeconds: 48 * 60 * 60 };

/** How many of the newest deliveries (and subjects) the saved copy holds. */
export const SAVED_DELIVERIES = 100;

/** The saved copy is handed to n8n for saving at most once per this many milliseconds. */
export const SAVE_INTERVAL_MS = 250;

/** What earlier versions kept in workflow static data; still read, so an upgrade keeps the memory. */
export interface PersistedDedupStateV1 {
	/** Key hashes of one delivery, and when it was admitted (epoch seconds). */
	deliveries: Array<[string[], number]>;
	/** Subject hash and the newest `modStamp` seen for it. */
	latest: Array<[string, string]>;
}

export interface AdmissionRequest {
	/** Every identity of the event: delivery ID, message ID, content key. Any one already seen makes it a duplicate. */
	keys: string[];
	/** The identity kept in the saved copy: the same in every copy of the event (its content key). */
	savedKey: string;
	/** What `modStamp` orders, e.g. one case; with `modStamp`, enables the out-of-order check. */
	subject?: string;
	modStamp?: string;
	dropOlder: boolean;
}

export interface Claim {
	/** The event ran: remember its keys. */
	commit(nowSeconds: number): void;
	/** The event did not run (filtered out, or failed before running): a redelivery may run it. */
	release(): void;
}

export type Admission =
	| { outcome: 'duplicate' }
	| { outcome: 'outOfOrder'; newerModStamp: string }
	| { outcome: 'admitted'; claim: Claim };

/**
 * 12 base64url characters of SHA-256 = 72 bits. At the largest memory (20,000 deliveries of about 3 keys,
 * plus 20,000 subjects) a new key matches some stored hash by chance with probability about
 * 8e4 / 2^72 ≈ 2e-17, i.e. one false duplicate in ~5e16 events: negligible. Version 1 stored 16 characters
 * of the same digest; their first 12 are this hash, so old entries are read by truncating them.
 */
const HASH_LENGTH = 12;
const hashKey = (key: string) => createHash('sha256').update(key).digest('base64url').slice(0, HASH_LENGTH);

const FORMAT = 'v2';
const LATEST_SECTION = 'latest';
/** How many recent persisted strings are recognised without parsing (concurrent saves may land out of order). */
const KNOWN_STRINGS = 4;

const escapeLine = (text: string) => JSON.stringify(text).slice(1, -1);
const unescapeLine = (text: string) => JSON.parse(`"${text}"`) as unknown;

/** Negative when `a` is older than `b`; undefined when either is not a timestamp. */
function compareModStamps(a: string, b: string): number | undefined {
	const left = Date.parse(a);
	const right = Date.parse(b);
	return Number.isNaN(left) || Number.isNaN(right) ? undefined : left - right;
}

export class DeliveryDeduplicator {
	/**
	 * Key hashes of each remembered delivery (the last one is its content key, the one saved), in order of
	 * `seenAt` (oldest first) whenever {@link ordered}, so eviction takes from the front.
	 */
	private readonly deliveries = new Map<number, { keys: string[]; seenAt: number }>();

	private readonly deliveryByKey = new Map<string, number>();

	private readonly pending = new Set<string>();

	/** Subject hash → newest modStamp, least recently updated first; `saved` once checked with Ignore Older Events. */
	private readonly latest = new Map<string, { modStamp: string; saved: boolean }>();

	private nextDeliveryId = 0;

	private ordered = true;

	private newestSeenAt = -Infinity;

	/** Bumped on every change of what is saved; {@link serialized} is valid for one version. */
	private version = 0;

	private serialized: { version: number; text: string } | undefined;

	/** The version n8n last serialized for saving. */
	private writtenVersion = 0;

	private lastSaveTurnMs = -Infinity;

	/** Persisted strings whose content this process already holds (produced or absorbed), newest last. */
	private readonly known = new Set<string>();

	/**
	 * What to put in static data: JSON.stringify (n8n's save) turns it into {@link toPersisted} at that
	 * moment. It has no object-valued properties, so n8n's change-tracking proxy leaves it as it is.
	 */
	readonly persistedView: { toJSON(): string } = {
		toJSON: () => {
			const text = this.toPersisted();
			this.writtenVersion = this.serialized!.version;
			return text;
		},
	};

	constructor(public limits: DedupLimits = DEFAULT_DEDUP_LIMITS) {}

	/** Merges state persisted by an earlier process (restart) or another writer. */
	absorb(persisted: unknown, nowSeconds: number): void {
		if (persisted !== this.persistedView) {
			const view = persisted as { toJSON?: unknown } | null | undefined;
			const state = typeof view?.toJSON === 'function' ? (view.toJSON() as unknown) : persisted;
			if (typeof state === 'string') {
				if (!this.known.has(state)) {
					this.absorbText(state);
					this.remembersText(state);
				}
			} else {
				this.absorbV1(state as Partial<PersistedDedupStateV1> | null | undefined);
			}
		}
		this.evict(nowSeconds);
	}

	admit(request: AdmissionRequest): Admission {
		const otherKeys = request.keys.filter((key) => key !== request.savedKey);
		const hashes = [...new Set([...otherKeys, request.savedKey].map(hashKey))];
		if (hashes.some((hash) => this.deliveryByKey.has(hash) || this.pending.has(hash))) return { outcome: 'duplicate' };

		if (request.subject !== undefined && request.modStamp !== undefined) {
			const subject = hashKey(request.subject);
			const newer = this.latest.get(subject)?.modStamp;
			if (request.dropOlder && newer !== undefined && (compareModStamps(request.modStamp, newer) ?? 0) < 0) {
				return { outcome: 'outOfOrder', newerModStamp: newer };
			}
			this.recordModStamp(subject, request.modStamp, request.dropOlder);
		}

		for (const hash of hashes) this.pending.add(hash);
		let settled = false;
		const settle = () => {
			if (settled) return false;
			settled = true;
			for (const hash of hashes) this.pending.delete(hash);
			return true;
		};
		return {
			outcome: 'admitted',
			claim: {
				commit: (nowSeconds) => {
					if (!settle()) return;
					this.remember(hashes, nowSeconds);
					this.evict(nowSeconds);
				},
				release: () => {
					settle();
				},
			},
		};
	}

	/**
	 * Whether this request should hand the saved copy to n8n: something is new or being admitted, and the
	 * last turn was at least {@link SAVE_INTERVAL_MS} ago. Call it after {@link admit}.
	 */
	/** True while something committed since the last time n8n serialized the saved copy. */
	get hasUnsavedChanges(): boolean {
		return this.version !== this.writtenVersion;
	}

	takeSaveTurn(nowMs: number): boolean {
		if (this.pending.size === 0 && this.version === this.writtenVersion) return false;
		if (nowMs - this.lastSaveTurnMs < SAVE_INTERVAL_MS) return false;
		this.lastSaveTurnMs = nowMs;
		return true;
	}

	/** The saved copy (format v2): the newest deliveries' content keys and saved subjects; built once per change. */
	toPersisted(): string {
		if (this.serialized?.version !== this.version) {
			if (!this.ordered) this.sortDeliveries();
			const lines = [FORMAT];
			for (const { keys, seenAt } of [...this.deliveries.values()].slice(-SAVED_DELIVERIES)) lines.push(`${seenAt} ${keys[keys.length - 1]}`);
			lines.push(LATEST_SECTION);
			const savedSubjects = [...this.latest].filter(([, { saved }]) => saved).slice(-SAVED_DELIVERIES);
			for (const [subject, { modStamp }] of savedSubjects) lines.push(`${subject} ${escapeLine(modStamp)}`);
			this.serialized = { version: this.version, text: lines.join('\n') };
			this.remembersText(this.serialized.text);
		}
		return this.serialized.text;
	}

	get size(): number {
		return this.deliveries.size;
	}

	/** Parses a v2 string; anything else, or any line it cannot read, is skipped. */
	private absorbText(text: string): void {
		const lines = text.split('\n');
		if (lines[0] !== FORMAT) return;
		let index = 1;
		for (; index < lines.length && lines[index] !== LATEST_SECTION; index++) {
			const [seenAt, ...hashes] = lines[index].split(' ');
			this.absorbDelivery(hashes, Number(seenAt));
		}
		for (index++; index < lines.length; index++) {
			const line = lines[index];
			const space = line.indexOf(' ');
			if (space <= 0) continue;
			try {
				this.absorbModStamp(line.slice(0, space), unescapeLine(line.slice(space + 1)));
			} catch {
				// not a line this version wrote: skip it
			}
		}
	}

	private absorbV1(state: Partial<PersistedDedupStateV1> | null | undefined): void {
		for (const entry of Array.isArray(state?.deliveries) ? state.deliveries : []) {
			const [keys, seenAt] = Array.isArray(entry) ? entry : [];
			if (Array.isArray(keys)) this.absorbDelivery(keys, seenAt);
		}
		for (const entry of Array.isArray(state?.latest) ? state.latest : []) {
			const [subject, modStamp] = Array.isArray(entry) ? entry : [];
			this.absorbModStamp(subject, modStamp);
		}
	}

	private absorbDelivery(keys: unknown[], seenAt: unknown): void {
		if (typeof seenAt !== 'number' || !Number.isFinite(seenAt)) return;
		const hashes = keys.filter((key): key is string => typeof key === 'string' && key.length >= HASH_LENGTH);
		const truncated = [...new Set(hashes.map((hash) => hash.slice(0, HASH_LENGTH)))];
		if (truncated.length > 0 && !truncated.some((hash) => this.deliveryByKey.has(hash))) this.remember(truncated, seenAt);
	}

	/** A saved subject was checked with Ignore Older Events, so it stays in the saved copy. */
	private absorbModStamp(subject: unknown, modStamp: unknown): void {
		if (typeof subject === 'string' && subject.length >= HASH_LENGTH && typeof modStamp === 'string') {
			this.recordModStamp(subject.slice(0, HASH_LENGTH), modStamp, true);
		}
	}

	/** Marks a persisted string as already held, so absorbing it again is free. */
	private remembersText(text: string): void {
		this.known.delete(text);
		this.known.add(text);
		if (this.known.size > KNOWN_STRINGS) this.known.delete(this.known.values().next().value as string);
	}

	private remember(hashes: string[], seenAt: number): void {
		const id = this.nextDeliveryId++;
		if (seenAt < this.newestSeenAt) this.ordered = false;
		else this.newestSeenAt = seenAt;
		this.deliveries.set(id, { keys: hashes, seenAt });
		for (const hash of hashes) this.deliveryByKey.set(hash, id);
		this.version++;
	}

	private forget(id: number): void {
		for (const hash of this.deliveries.get(id)?.keys ?? []) {
			if (this.deliveryByKey.get(hash) === id) this.deliveryByKey.delete(hash);
		}
		this.deliveries.delete(id);
		this.version++;
	}

	/**
	 * Keeps the newest modStamp per subject (or the last, when they cannot be compared); recently updated
	 * subjects survive eviction. Only subjects checked with Ignore Older Events (`saved`) go into the saved copy.
	 */
	private recordModStamp(subject: string, modStamp: string, saved: boolean): void {
		const current = this.latest.get(subject);
		const keep = saved || current?.saved === true;
		const order = current === undefined ? undefined : compareModStamps(modStamp, current.modStamp);
		if ((order !== undefined && order <= 0) || current?.modStamp === modStamp) {
			if (current && keep && !current.saved) {
				current.saved = true;
				this.version++;
			}
			return;
		}
		this.latest.delete(subject);
		this.latest.set(subject, { modStamp, saved: keep });
		if (keep) this.version++;
	}

	/** Drops deliveries older than the retention, then the oldest beyond the count; the same for subjects. */
	private evict(nowSeconds: number): void {
		if (!this.ordered) this.sortDeliveries();
		const oldestKept = nowSeconds - this.limits.retentionSeconds;
		for (const [id, { seenAt }] of this.deliveries) {
			if (seenAt >= oldestKept && this.deliveries.size <= this.limits.maxDeliveries) break;
			this.forget(id);
		}
		for (const [subject, { saved }] of this.latest) {
			if (this.latest.size <= this.limits.maxDeliveries) break;
			this.latest.delete(subject);
			if (saved) this.version++;
		}
	}

	/** Restores oldest-first order after entries arrived out of order (a merge, or the clock going back). */
	private sortDeliveries(): void {
		const byAge = [...this.deliveries.entries()].sort(([, a], [, b]) => a.seenAt - b.seenAt);
		this.deliveries.clear();
		for (const [id, delivery] of byAge) this.deliveries.set(id, delivery);
		this.newestSeenAt = byAge.length > 0 ? byAge[byAge.length - 1][1].seenAt : -Infinity;
		this.ordered = true;
	}
}

const deduplicators = new Map<string, DeliveryDeduplicator>();

/** The process-wide deduplicator of one trigger node in one workflow. */
export function deduplicatorFor(scope: string, limits: DedupLimits): DeliveryDeduplicator {
	let deduplicator = deduplicators.get(scope);
	if (!deduplicator) {
		deduplicator = new DeliveryDeduplicator(limits);
		deduplicators.set(scope, deduplicator);
	}
	deduplicator.limits = limits;
	return deduplicator;
}

/** The process-wide deduplicator of a trigger node, if this process has handled one of its deliveries. */
export function existingDeduplicator(scope: string): DeliveryDeduplicator | undefined {
	return deduplicators.get(scope);
}

export function forgetDeduplicator(scope: string): void {
	deduplicators.delete(scope);
}
