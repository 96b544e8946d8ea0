/**
 * The trigger's state (core.ts decides on it): what it remembers, as plain data, and how what it knows moves
 * forward. Saved by savedState.ts; the model is docs/trigger-state.md.
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

/** Duplicate Memory Size: how many of the newest events the saved form holds. */
export const DUPLICATE_MEMORY_SIZE = { default: 100, min: 100, max: 20_000 } as const;

/**
 * An event key as remembered: 10 base64url characters of its SHA-256 (60 bits), so a new event is taken for
 * a duplicate by mistake with probability at most n / 2^60 (about 9e-14 with 100,000 remembered).
 */
export const HASH_LENGTH = 10;
export const hashKey = (key: string) =>
	createHash('sha256').update(key).digest('base64url').slice(0, HASH_LENGTH);

/** A status change, as a delivery carries it or the watchdog reads it. */
export interface Change {
	/** The event key: the same in every copy of the event (event.ts eventKeyOf). */
	key: string;
	/** What modStamp orders: `case:<id>`, `casedata:<id>`. */
	subject?: string;
	/** The statuses the event sets, as one string. */
	status?: string;
	modStamp?: string;
}

export interface Subject {
	modStamp?: string;
	/** The status the watchdog compares with (set only while it has a record). */
	status?: string;
	/** Checked with Ignore Older Events: its modStamp is saved. */
	ordered: boolean;
}

/** An event being started: it holds its copies back under each of its names. */
export interface Claim {
	id: number;
	openedAt: number;
	/** Opened by the watchdog, to emit. */
	found: boolean;
	names: string[];
}

export interface State {
	/** Saved. Event hash → hour its execution started, oldest first. */
	events: Map<string, number>;
	/** Saved. Hash of subject and status → the newest modStamp the watchdog ran it with, and when. */
	covers: Map<string, { modStamp: string; hour: number }>;
	/** Saved in part. Subject hash → what is known of it, least recently changed first. */
	subjects: Map<string, Subject>;
	/** Saved. The watchdog has recorded every subject's status (at activation). */
	recorded: boolean;
	/** Process only, from here on. Claim name → the open claim. */
	claims: Map<string, Claim>;
	/** Event hash → the claim whose delivery's answer n8n has not sent yet. */
	unanswered: Map<string, number>;
	/** Hashes of the events a delivery to this process started, oldest first. */
	startedHere: Set<string>;
	/** The one request saving now: its id and when it took the turn. */
	turn?: { id: number; takenAt: number };
	/** This process has read the saved form itself, not only an execution's copy of it. */
	readSaved: boolean;
	lastId: number;
	/** Grows with every change of what the saved form holds. */
	version: number;
}

export const newState = (): State => ({
	events: new Map(),
	covers: new Map(),
	subjects: new Map(),
	recorded: false,
	claims: new Map(),
	unanswered: new Map(),
	startedHere: new Set(),
	readSaved: false,
	lastId: 0,
	version: 0,
});

export const bucketOf = (seconds: number) => Math.floor(seconds / BUCKET_SECONDS) * BUCKET_SECONDS;
export const timeOf = (modStamp: string | undefined) =>
	modStamp === undefined ? Number.NaN : Date.parse(modStamp);

/** What a change of a subject to a status is known by, whatever its modStamp. */
export const coverOf = (change: Change) =>
	change.subject === undefined || change.status === undefined
		? undefined
		: hashKey(`cover|${change.subject}|${change.status}`);

/** A claim holds its change under both names: it may come with another modStamp (the watchdog's read). */
export const claimNames = (change: Change) => {
	const cover = coverOf(change);
	return [hashKey(change.key), ...(cover === undefined ? [] : [cover])];
};

export const isCovered = (state: State, change: Change) => {
	const name = coverOf(change);
	const cover = name === undefined ? undefined : state.covers.get(name);
	return cover !== undefined && timeOf(change.modStamp) <= timeOf(cover.modStamp);
};

export const openClaim = (state: State, names: string[], now: number) => {
	for (const name of names) {
		const claim = state.claims.get(name);
		if (claim && claim.openedAt + CLAIM_SECONDS > now) return claim;
	}
	return undefined;
};

export const statusOf = (state: State, subject: string) =>
	state.subjects.get(hashKey(subject))?.status;
export const modStampOf = (state: State, subject: string) =>
	state.subjects.get(hashKey(subject))?.modStamp;

/** Remembers a change whose execution exists (`found`: the watchdog ran it); true when it was new. */
export function remember(
	state: State,
	change: Change,
	now: number,
	{ found = false, dropOlder = false } = {},
): boolean {
	const hash = hashKey(change.key);
	const news = !state.events.has(hash);
	if (news) {
		state.version++;
		state.events.set(hash, bucketOf(now));
		evict(state, now);
	}
	if (change.subject === undefined) return news;
	rememberStatus(state, hashKey(change.subject), change.status, change.modStamp, dropOlder);
	const cover = coverOf(change);
	if (found && cover !== undefined && change.modStamp !== undefined) {
		const current = state.covers.get(cover);
		if (!(timeOf(current?.modStamp) >= timeOf(change.modStamp))) {
			state.version++;
			state.covers.delete(cover);
			state.covers.set(cover, { modStamp: change.modStamp, hour: bucketOf(now) });
		}
	}
	return news;
}

/**
 * What is known of a subject (by hash) moves forward only: an older modStamp changes nothing; a status
 * without one, as listed, is taken. `ordered`: checked with Ignore Older Events, so its modStamp is saved.
 */
export function rememberStatus(
	state: State,
	hash: string,
	status?: string,
	modStamp?: string,
	ordered = false,
): void {
	const current = state.subjects.get(hash);
	if (current && modStamp !== undefined && timeOf(current.modStamp) > timeOf(modStamp)) {
		if (ordered && !current.ordered) {
			current.ordered = true;
			state.version++;
		}
		return;
	}
	const next = {
		modStamp: modStamp ?? current?.modStamp,
		status: status ?? current?.status,
		ordered: ordered || current?.ordered === true,
	};
	if (
		current &&
		next.modStamp === current.modStamp &&
		next.status === current.status &&
		next.ordered === current.ordered
	)
		return;
	state.version++;
	state.subjects.delete(hash);
	state.subjects.set(hash, next);
	if (state.subjects.size > PROCESS_LIMIT)
		state.subjects.delete(state.subjects.keys().next().value as string);
}

/** The watchdog's record of activation: every subject's status now, nothing run. */
export function recordStatuses(
	state: State,
	statuses: Array<[subject: string, status: string, modStamp?: string]>,
): void {
	state.recorded = true;
	state.version++;
	for (const [subject, status, modStamp] of statuses)
		rememberStatus(state, hashKey(subject), status, modStamp);
}

/** Forgets what is past the retention, then the oldest beyond {@link PROCESS_LIMIT}. */
export function evict(state: State, now: number): void {
	const expiredBefore = now - RETENTION_SECONDS;
	for (const map of [state.events, state.covers] as Array<Map<string, number | { hour: number }>>) {
		for (const [hash, value] of map) {
			const hour = typeof value === 'number' ? value : value.hour;
			if (hour + BUCKET_SECONDS > expiredBefore && map.size <= PROCESS_LIMIT) break;
			map.delete(hash);
			state.version++;
		}
	}
}
