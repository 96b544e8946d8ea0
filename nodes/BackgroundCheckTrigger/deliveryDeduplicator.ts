/**
 * Duplicate suppression for webhook deliveries (spec 6.5), in two layers:
 * - process memory, shared by every request this n8n process handles for one trigger node, which makes
 *   the check-and-claim atomic (no await between them) and holds the union of everything seen;
 * - the node's workflow static data, which n8n loads before and saves after each request, so the memory
 *   survives restarts. n8n saves it whole, last writer wins, at a moment the node does not control: the
 *   node therefore stores {@link DeliveryDeduplicator.persistedView}, which serializes to the union held in
 *   memory when it is saved, so whichever request saves last writes everything this process has seen.
 *
 * The persisted form is ONE string (format v2), cheap for n8n to load, proxy and save:
 *
 *     v2
 *     <seenAt> <hash> <hash>...      one line per remembered delivery: epoch seconds, its key hashes
 *     latest
 *     <subjectHash> <modStamp>       one line per subject: the newest modStamp (JSON-escaped, no quotes)
 *
 * Reading it back ({@link DeliveryDeduplicator.absorb}) costs nothing in the steady state: a string this
 * process produced or already absorbed holds nothing it does not already know, so it is not parsed; only
 * a string from an earlier process (restart) or another writer is parsed and merged. The object form of
 * earlier versions (`{ deliveries: [[hashes, seenAt]], latest: [[subject, modStamp]] }`) is still read.
 * Keys are stored as short hashes, bounded by count and by age.
 */
import { createHash } from 'crypto';

export interface DedupLimits {
	/** How many admitted deliveries are remembered. */
	maxDeliveries: number;
	/** How long a delivery is remembered; beyond the provider's last retry (about 28 hours after the first). */
	retentionSeconds: number;
}

export const DEFAULT_DEDUP_LIMITS: DedupLimits = { maxDeliveries: 1000, retentionSeconds: 48 * 60 * 60 };

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
	/** In order of `seenAt` (oldest first) whenever {@link ordered}, so eviction takes from the front. */
	private readonly deliveries = new Map<number, { keys: string[]; seenAt: number }>();

	private readonly deliveryByKey = new Map<string, number>();

	private readonly pending = new Set<string>();

	/** Subject hash → newest modStamp, least recently updated first. */
	private readonly latest = new Map<string, string>();

	private nextDeliveryId = 0;

	private ordered = true;

	private newestSeenAt = -Infinity;

	/** Bumped on every change of what is persisted; {@link serialized} is valid for one version. */
	private version = 0;

	private serialized: { version: number; text: string } | undefined;

	/** Persisted strings whose content this process already holds (produced or absorbed), newest last. */
	private readonly known = new Set<string>();

	/**
	 * What to put in static data: JSON.stringify (n8n's save) turns it into {@link toPersisted} at that
	 * moment. It has no object-valued properties, so n8n's change-tracking proxy leaves it as it is.
	 */
	readonly persistedView: { toJSON(): string } = { toJSON: () => this.toPersisted() };

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
		const hashes = [...new Set(request.keys.map(hashKey))];
		if (hashes.some((hash) => this.deliveryByKey.has(hash) || this.pending.has(hash))) return { outcome: 'duplicate' };

		if (request.subject !== undefined && request.modStamp !== undefined) {
			const subject = hashKey(request.subject);
			const newer = this.latest.get(subject);
			if (request.dropOlder && newer !== undefined && (compareModStamps(request.modStamp, newer) ?? 0) < 0) {
				return { outcome: 'outOfOrder', newerModStamp: newer };
			}
			this.recordModStamp(subject, request.modStamp);
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

	/** The persisted string (format v2) of everything held now; built once per change. */
	toPersisted(): string {
		if (this.serialized?.version !== this.version) {
			const lines = [FORMAT];
			for (const { keys, seenAt } of this.deliveries.values()) lines.push(`${seenAt} ${keys.join(' ')}`);
			lines.push(LATEST_SECTION);
			for (const [subject, modStamp] of this.latest) lines.push(`${subject} ${escapeLine(modStamp)}`);
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

	private absorbModStamp(subject: unknown, modStamp: unknown): void {
		if (typeof subject === 'string' && subject.length >= HASH_LENGTH && typeof modStamp === 'string') {
			this.recordModStamp(subject.slice(0, HASH_LENGTH), modStamp);
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

	/** Keeps the newest modStamp per subject (or the last, when they cannot be compared); recently updated subjects survive eviction. */
	private recordModStamp(subject: string, modStamp: string): void {
		const current = this.latest.get(subject);
		const order = current === undefined ? undefined : compareModStamps(modStamp, current);
		if (order !== undefined && order <= 0) return;
		if (current === modStamp) return;
		this.latest.delete(subject);
		this.latest.set(subject, modStamp);
		this.version++;
	}

	/** Drops deliveries older than the retention, then the oldest beyond the count; the same for subjects. */
	private evict(nowSeconds: number): void {
		if (!this.ordered) this.sortDeliveries();
		const oldestKept = nowSeconds - this.limits.retentionSeconds;
		for (const [id, { seenAt }] of this.deliveries) {
			if (seenAt >= oldestKept && this.deliveries.size <= this.limits.maxDeliveries) break;
			this.forget(id);
		}
		for (const subject of this.latest.keys()) {
			if (this.latest.size <= this.limits.maxDeliveries) break;
			this.latest.delete(subject);
			this.version++;
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

export function forgetDeduplicator(scope: string): void {
	deduplicators.delete(scope);
}
