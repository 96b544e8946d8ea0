/**
 * The trigger's state (core.ts decides on it): what it remembers, as plain data, and how what it knows moves
 * forward. Saved by savedState.ts; the model is docs/trigger-state.md.
 */
import { bucketOf, expire, coverOf, shortHash, limit, timeOf, type Change } from './entries';
import { RecentMap } from './entries';

export * from './entries';

/** `status`: set only while the watchdog has a record; `ordered`: checked with Ignore Older Events. */
export interface Subject {
	modStamp?: string;
	status?: string;
	ordered: boolean;
}

/** An event being started: it holds its copies back under each of its hashes (entries.ts hashesOf). */
export interface Claim {
	id: number;
	openedAt: number;
	fromWatchdog: boolean;
	hashes: string[];
}

/** Saved: events, covers, recorded and some of subjects; the rest is process only. */
export interface State {
	/** Event hash → hour its execution started, oldest first. */
	events: RecentMap<number>;
	/** Hash of subject and status → the newest modStamp the watchdog ran it with, and when. */
	covers: RecentMap<{ modStamp: string; hour: number }>;
	/** Subject hash → what is known of it, least recently changed first. */
	subjects: RecentMap<Subject>;
	recorded: boolean;
	/** Event or cover hash → the open claim. */
	claims: Map<string, Claim>;
	/** Event hash → the claim whose delivery's answer n8n has not sent yet. */
	unanswered: Map<string, number>;
	startedHere: Set<string>;
	turn?: { id: number; takenAt: number };
	readSaved: boolean;
	lastId: number;
	/** Grows with every change of what the saved form holds. */
	version: number;
}

export const newState = (): State => ({
	events: new RecentMap(),
	covers: new RecentMap(),
	subjects: new RecentMap(),
	recorded: false,
	claims: new Map(),
	unanswered: new Map(),
	startedHere: new Set(),
	readSaved: false,
	lastId: 0,
	version: 0,
});

export const statusOf = (state: State, subject: string) =>
	state.subjects.get(shortHash(subject))?.status;
export const modStampOf = (state: State, subject: string) =>
	state.subjects.get(shortHash(subject))?.modStamp;

/** Remembers a change whose execution exists (`fromWatchdog`: the watchdog ran it); true when it was new. */
export function remember(
	state: State,
	change: Change,
	now: number,
	{ fromWatchdog = false, dropOlder = false } = {},
): boolean {
	const hash = shortHash(change.eventKey);
	const news = !state.events.has(hash);
	if (news) {
		state.version++;
		state.events.set(hash, bucketOf(now));
		evict(state, now);
	}
	if (change.subject === undefined) return news;
	rememberStatus(state, shortHash(change.subject), change.status, change.modStamp, dropOlder);
	const cover = fromWatchdog ? coverOf(change) : undefined;
	const { modStamp } = change;
	if (cover && modStamp && !(timeOf(state.covers.get(cover)?.modStamp) >= timeOf(modStamp))) {
		state.version++;
		state.covers.delete(cover);
		state.covers.set(cover, { modStamp, hour: bucketOf(now) });
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
	const older = current && modStamp !== undefined && timeOf(current.modStamp) > timeOf(modStamp);
	const next: Subject = older
		? { ...current, ordered: ordered || current.ordered }
		: {
				modStamp: modStamp ?? current?.modStamp,
				status: status ?? current?.status,
				ordered: ordered || current?.ordered === true,
			};
	if (current && (['modStamp', 'status', 'ordered'] as const).every((k) => next[k] === current[k]))
		return;
	state.version++;
	if (older) {
		current.ordered = true;
		return;
	}
	state.subjects.delete(hash);
	state.subjects.set(hash, next);
	limit(state.subjects);
}

/** The watchdog's record of activation: every subject's status now, nothing run. */
export function recordStatuses(
	state: State,
	statuses: Array<[subject: string, status: string, modStamp?: string]>,
): void {
	state.recorded = true;
	state.version++;
	for (const [subject, status, modStamp] of statuses)
		rememberStatus(state, shortHash(subject), status, modStamp);
}

/** Forgets what is past the retention, then the oldest beyond the process limit. */
export function evict(state: State, now: number): void {
	state.version += expire(state.events, now) + expire(state.covers, now);
}
