/**
 * Duplicate suppression for webhook deliveries (spec 6.5), in two layers:
 * - process memory, shared by every request this n8n process handles for one trigger node, which makes
 *   the check-and-claim atomic (no await between them) and holds the union of everything seen;
 * - the node's workflow static data, which n8n loads before and saves after each request, so the memory
 *   survives restarts. n8n saves it whole, last writer wins, at a moment the node does not control: the
 *   node therefore stores {@link DeliveryDeduplicator.persistedView}, which serializes to the union held in
 *   memory when it is saved, so whichever request saves last writes everything this process has seen.
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

/** What is kept in workflow static data. */
export interface PersistedDedupState {
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

const hashKey = (key: string) => createHash('sha256').update(key).digest('base64url').slice(0, 16);

/** Negative when `a` is older than `b`; undefined when either is not a timestamp. */
function compareModStamps(a: string, b: string): number | undefined {
	const left = Date.parse(a);
	const right = Date.parse(b);
	return Number.isNaN(left) || Number.isNaN(right) ? undefined : left - right;
}

export class DeliveryDeduplicator {
	private readonly deliveries = new Map<number, { keys: string[]; seenAt: number }>();

	private readonly deliveryByKey = new Map<string, number>();

	private readonly pending = new Set<string>();

	private readonly latest = new Map<string, string>();

	private nextDeliveryId = 0;

	/**
	 * What to put in static data: JSON.stringify (n8n's save) turns it into {@link toPersisted} at that
	 * moment. It has no object-valued properties, so n8n's change-tracking proxy leaves it as it is.
	 */
	readonly persistedView: { toJSON(): PersistedDedupState } = { toJSON: () => this.toPersisted() };

	constructor(public limits: DedupLimits = DEFAULT_DEDUP_LIMITS) {}

	/** Merges state persisted by an earlier process (restart) or another writer. */
	absorb(persisted: unknown, nowSeconds: number): void {
		const view = persisted as { toJSON?: unknown } | undefined;
		const state = (typeof view?.toJSON === 'function' ? view.toJSON() : persisted) as Partial<PersistedDedupState> | undefined;
		for (const entry of Array.isArray(state?.deliveries) ? state.deliveries : []) {
			const [keys, seenAt] = Array.isArray(entry) ? entry : [];
			if (!Array.isArray(keys) || typeof seenAt !== 'number') continue;
			const hashes = keys.filter((key): key is string => typeof key === 'string');
			if (hashes.length > 0 && !hashes.some((hash) => this.deliveryByKey.has(hash))) this.remember(hashes, seenAt);
		}
		for (const entry of Array.isArray(state?.latest) ? state.latest : []) {
			const [subject, modStamp] = Array.isArray(entry) ? entry : [];
			if (typeof subject === 'string' && typeof modStamp === 'string') this.recordModStamp(subject, modStamp);
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

	toPersisted(): PersistedDedupState {
		return {
			deliveries: [...this.deliveries.values()].map(({ keys, seenAt }) => [keys, seenAt]),
			latest: [...this.latest.entries()],
		};
	}

	get size(): number {
		return this.deliveries.size;
	}

	private remember(hashes: string[], seenAt: number): void {
		const id = this.nextDeliveryId++;
		this.deliveries.set(id, { keys: hashes, seenAt });
		for (const hash of hashes) this.deliveryByKey.set(hash, id);
	}

	private forget(id: number): void {
		for (const hash of this.deliveries.get(id)?.keys ?? []) {
			if (this.deliveryByKey.get(hash) === id) this.deliveryByKey.delete(hash);
		}
		this.deliveries.delete(id);
	}

	/** Keeps the newest modStamp per subject (or the last, when they cannot be compared); recently updated subjects survive eviction. */
	private recordModStamp(subject: string, modStamp: string): void {
		const current = this.latest.get(subject);
		const order = current === undefined ? undefined : compareModStamps(modStamp, current);
		if (order !== undefined && order <= 0) return;
		this.latest.delete(subject);
		this.latest.set(subject, modStamp);
	}

	private evict(nowSeconds: number): void {
		const oldestKept = nowSeconds - this.limits.retentionSeconds;
		for (const [id, { seenAt }] of this.deliveries) if (seenAt < oldestKept) this.forget(id);
		if (this.deliveries.size > this.limits.maxDeliveries) {
			const byAge = [...this.deliveries.entries()].sort(([, a], [, b]) => a.seenAt - b.seenAt);
			for (const [id] of byAge.slice(0, this.deliveries.size - this.limits.maxDeliveries)) this.forget(id);
		}
		for (const subject of [...this.latest.keys()].slice(0, Math.max(0, this.latest.size - this.limits.maxDeliveries))) {
			this.latest.delete(subject);
		}
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
