/**
 * The trigger's decisions (docs/trigger-state.md), pure: each updates the state it is given from one input
 * and returns what the n8n code around it does.
 */
import {
	CLAIM_SECONDS,
	hashesOf,
	coverOf,
	shortHash,
	limit,
	modStampOf,
	remember,
	statusOf,
	timeOf,
	type Change,
	type Claim,
	type State,
} from './state';

export * from './state';

const isCovered = (state: State, change: Change) => {
	const hash = coverOf(change);
	const cover = hash === undefined ? undefined : state.covers.get(hash);
	return cover !== undefined && timeOf(change.modStamp) <= timeOf(cover.modStamp);
};

/** `busy`: a copy is being started; ask again once its claim settles. */
export type Admission =
	| { outcome: 'duplicate' | 'outOfOrder' }
	| { outcome: 'busy' }
	| { outcome: 'admitted'; claim: Claim };

const openClaim = (state: State, hashes: string[], now: number) =>
	hashes
		.map((hash) => state.claims.get(hash))
		.find((claim) => claim && claim.openedAt + CLAIM_SECONDS > now);

/**
 * A delivery, or a change the watchdog found (`fromWatchdog`): runs unless it (or the watchdog's run of it) is
 * remembered, or it is older than what is known and `dropOlder` is set.
 */
export function admit(
	state: State,
	change: Change,
	dropOlder: boolean,
	now: number,
	fromWatchdog = false,
): Admission {
	if (state.events.has(shortHash(change.eventKey)) || isCovered(state, change))
		return { outcome: 'duplicate' };
	const hashes = hashesOf(change);
	if (openClaim(state, hashes, now)) return { outcome: 'busy' };
	const known = change.subject === undefined ? undefined : modStampOf(state, change.subject);
	if (dropOlder && timeOf(change.modStamp) < timeOf(known)) return { outcome: 'outOfOrder' };
	const claim = { id: ++state.lastId, openedAt: now, fromWatchdog, hashes };
	for (const hash of hashes) state.claims.set(hash, claim);
	return { outcome: 'admitted', claim };
}

/** The claim settles: its execution started, or none was. Copies held back may ask again. */
export function settle(state: State, claim: Claim): void {
	for (const hash of claim.hashes) if (state.claims.get(hash) === claim) state.claims.delete(hash);
}

/** n8n asked for a delivery's answer: its execution exists. Save, then wait for n8n's answer ({@link answered}). */
export function started(
	state: State,
	claim: Claim,
	change: Change,
	now: number,
	dropOlder: boolean,
) {
	const hash = shortHash(change.eventKey);
	remember(state, change, now, { dropOlder });
	state.startedHere.add(hash);
	limit(state.startedHere);
	settle(state, claim);
	state.unanswered.set(hash, claim.id);
}

/** n8n sent the delivery's answer, after saving. */
export function answered(state: State, change: Change, claim: Claim): void {
	const hash = shortHash(change.eventKey);
	if (state.unanswered.get(hash) === claim.id) state.unanswered.delete(hash);
}

export const awaitsAnswer = (state: State, change: Change) =>
	state.unanswered.has(shortHash(change.eventKey));

/** The turn to save: the taker's id, or undefined while another holds it (for at most {@link CLAIM_SECONDS}). */
export function takeTurn(state: State, now: number): number | undefined {
	if (state.turn && state.turn.takenAt + CLAIM_SECONDS > now) return undefined;
	state.turn = { id: ++state.lastId, takenAt: now };
	return state.turn.id;
}

export function releaseTurn(state: State, id: number): void {
	if (state.turn?.id === id) state.turn = undefined;
}

export type Origin = 'ours' | 'known' | 'new';

/**
 * The first step of an execution the watchdog emitted: `ours` when this process's watchdog did (its claim is
 * open until the execution ends); `known` when this process knows it ran, is starting a delivery of it, or,
 * having read the saved form, knows the subject at that status.
 */
export function originOfWatchdogRun(state: State, change: Change): Origin {
	const hashes = hashesOf(change);
	const open = hashes.map((hash) => state.claims.get(hash)).filter((claim) => claim !== undefined);
	if (open.some(({ fromWatchdog }) => fromWatchdog)) return 'ours';
	if (open.length > 0 || state.events.has(hashes[0]) || isCovered(state, change)) return 'known';
	const atStatus =
		change.subject !== undefined && statusOf(state, change.subject) === change.status;
	return atStatus && state.readSaved ? 'known' : 'new';
}

/**
 * The first step of an execution a delivery started: `ours` when this process admitted it (its claim token);
 * else `known` when this process, having read the saved form, is starting or started the change itself.
 * What was saved is not asked: it may be the save of this very execution's delivery.
 */
export function originOfDelivered(
	state: State,
	change: Change,
	ours: boolean,
	now: number,
): Origin {
	if (ours) return 'ours';
	if (!state.readSaved) return 'new';
	const startedHere = state.startedHere.has(shortHash(change.eventKey)) || isCovered(state, change);
	return startedHere || openClaim(state, hashesOf(change), now) ? 'known' : 'new';
}

/**
 * The first step's decision: whether the item runs on, and whether the step saves (a process that has not
 * read the saved form, such as a queue-mode worker, never saves: its copy is older than the saved one).
 */
export function firstStep(
	state: State,
	change: Change,
	origin: Origin,
	fromWatchdog: boolean,
	now: number,
	answerMissed: boolean,
) {
	const news = origin !== 'known' && remember(state, change, now, { fromWatchdog });
	const save = (answerMissed || origin !== 'ours' || news) && state.readSaved;
	return { runs: origin !== 'known', save };
}

/** Activation: a user's activation drops the watchdog's record; the watchdog then records every status. */
export function activate(state: State, byUser: boolean, watchdogOn: boolean) {
	const dropped = watchdogOn ? byUser : state.recorded;
	if (dropped) {
		state.recorded = false;
		state.version++;
		for (const subject of state.subjects.values()) subject.status = undefined;
	}
	return { record: watchdogOn && !state.recorded, save: dropped && !watchdogOn };
}
