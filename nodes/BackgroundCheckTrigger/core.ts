/**
 * The trigger's decisions, from its state and one input: a delivery's admission and start, an execution's
 * first step, a change the watchdog found, the watchdog's record at activation. No promises, no timers, no
 * n8n: each decision updates the state it is given (a plain value) and returns what the n8n code around it
 * does. The model, its transitions and invariants: docs/trigger-state.md.
 */
import {
	CLAIM_SECONDS,
	PROCESS_LIMIT,
	hashKey,
	claimNames,
	isCovered,
	modStampOf,
	openClaim,
	remember,
	statusOf,
	timeOf,
	type Change,
	type Claim,
	type State,
} from './state';

export * from './state';

export type Admission =
	| { outcome: 'duplicate' | 'outOfOrder' }
	/** A copy is being started: wait for its claim to settle, then ask again. */
	| { outcome: 'busy'; claim: number }
	| { outcome: 'admitted'; claim: Claim };

/**
 * A delivery, or a change the watchdog found (`found`): runs unless it (or the watchdog's run of it) is
 * remembered, or it is older than what is known and `dropOlder` is set.
 */
export function admit(
	state: State,
	change: Change,
	dropOlder: boolean,
	now: number,
	found = false,
): Admission {
	if (state.events.has(hashKey(change.key)) || isCovered(state, change))
		return { outcome: 'duplicate' };
	const names = claimNames(change);
	const open = openClaim(state, names, now);
	if (open) return { outcome: 'busy', claim: open.id };
	if (
		dropOlder &&
		change.subject !== undefined &&
		timeOf(change.modStamp) < timeOf(modStampOf(state, change.subject))
	)
		return { outcome: 'outOfOrder' };
	const claim = { id: ++state.lastId, openedAt: now, found, names };
	for (const name of names) state.claims.set(name, claim);
	return { outcome: 'admitted', claim };
}

/** The claim settles: its execution started, or none was. Copies held back may ask again. */
export function settle(state: State, claim: Claim): void {
	for (const name of claim.names) if (state.claims.get(name) === claim) state.claims.delete(name);
}

/** n8n asked for a delivery's answer: its execution exists. Save, then wait for n8n's answer ({@link answered}). */
export function started(
	state: State,
	claim: Claim,
	change: Change,
	now: number,
	dropOlder: boolean,
	found: boolean,
): void {
	const hash = hashKey(change.key);
	remember(state, change, now, { dropOlder });
	// As the watchdog's own run: a later delivery of the change, with an older modStamp, is covered.
	if (found) remember(state, change, now, { found: true });
	state.startedHere.add(hash);
	if (state.startedHere.size > PROCESS_LIMIT)
		state.startedHere.delete(state.startedHere.values().next().value as string);
	settle(state, claim);
	state.unanswered.set(hash, claim.id);
}

/** n8n sent the delivery's answer, after saving. */
export function answered(state: State, change: Change, claim: Claim): void {
	const hash = hashKey(change.key);
	if (state.unanswered.get(hash) === claim.id) state.unanswered.delete(hash);
}

export const awaitsAnswer = (state: State, change: Change) =>
	state.unanswered.has(hashKey(change.key));

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
export function originOfFound(state: State, change: Change): Origin {
	const names = claimNames(change);
	const open = names.map((name) => state.claims.get(name)).filter((claim) => claim !== undefined);
	if (open.some(({ found }) => found)) return 'ours';
	if (open.length > 0 || state.events.has(names[0]) || isCovered(state, change)) return 'known';
	const atStatus =
		change.subject !== undefined && statusOf(state, change.subject) === change.status;
	return atStatus && state.readSaved ? 'known' : 'new';
}

/**
 * The first step of an execution a delivery started, named by its claim: `ours` when this process admitted
 * it; else `known` when this process, having read the saved form, is starting or started the change itself.
 * What was saved is not asked: it may be the save of this very execution's delivery.
 */
export function originOfDelivered(
	state: State,
	change: Change,
	claimOfItem: number | undefined,
	now: number,
): Origin {
	if (claimOfItem !== undefined) return 'ours';
	if (!state.readSaved) return 'new';
	const startedHere = state.startedHere.has(hashKey(change.key)) || isCovered(state, change);
	return startedHere || openClaim(state, claimNames(change), now) ? 'known' : 'new';
}

/**
 * The first step's decision: whether the item runs on, and whether the step saves (a process that has not
 * read the saved form, such as a queue-mode worker, never saves: its copy is older than the saved one).
 */
export function firstStep(
	state: State,
	change: Change,
	origin: Origin,
	found: boolean,
	now: number,
	answerMissed: boolean,
) {
	const news = origin !== 'known' && remember(state, change, now, { found });
	const save = (answerMissed || origin !== 'ours' || news) && state.readSaved;
	return { runs: origin !== 'known', save };
}

/** Activation: a user's activation drops the watchdog's record; the watchdog then records every status. */
export function activate(
	state: State,
	byUser: boolean,
	watchdogOn: boolean,
): { record: boolean; save: boolean } {
	const dropped = watchdogOn ? byUser : state.recorded;
	if (dropped) {
		state.recorded = false;
		state.version++;
		for (const subject of state.subjects.values()) subject.status = undefined;
	}
	return { record: watchdogOn && !state.recorded, save: dropped && !watchdogOn };
}
