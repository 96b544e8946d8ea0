/**
 * The saved form of the trigger's state (core.ts), in the node's workflow static data: a JSON string,
 *
 *   { "v": 2, "recorded": bool, "events": [[hour, "hashhash..."]], "covers": [[hash, hour, stamp]],
 *     "ordered": [[hash, stamp]], "statuses": [status], "subjects": [[hash, status index, stamp?]] }
 *
 * (an empty part left out): the newest Duplicate Memory Size events (10-character hashes run together by
 * hour), covers and subjects checked with Ignore Older Events, and while the watchdog has its record every
 * subject's status, with the modStamp it was known at. A stamp is a modStamp: its epoch
 * milliseconds when it is an ISO timestamp, else the string. The form version 1 saved (`m1 ...` lines) is
 * read once, on upgrade ({@link readVersion1}).
 */
import { HASH_LENGTH, rememberStatus, type RecentMap, type State, type Subject } from './state';

/** Duplicate Memory Size: how many of the newest events the saved form holds. */
export const DUPLICATE_MEMORY_SIZE = { default: 100, min: 100, max: 20_000 } as const;

export const SAVED_KEY = 'memory';
const VERSION = 2;

/** What one saved form holds, merged into a process's state by {@link merge}. */
export interface Saved {
	recorded: boolean;
	events: Array<[hash: string, hour: number]>;
	covers: Array<[hash: string, hour: number, modStamp: string]>;
	subjects: Array<
		[hash: string, status: string | undefined, modStamp: string | undefined, ordered: boolean]
	>;
}

const stampOf = (modStamp: string): number | string => {
	const ms = Date.parse(modStamp);
	return Number.isFinite(ms) && ms >= 0 && new Date(ms).toISOString() === modStamp ? ms : modStamp;
};
/** Each entry's stamp, worked out once: every save writes the newest Duplicate Memory Size of them. */
const stamps = new WeakMap<{ modStamp?: string }, number | string>();
const stampOfEntry = (entry: { modStamp?: string }) => {
	let stamp = stamps.get(entry);
	if (stamp === undefined) stamps.set(entry, (stamp = stampOf(entry.modStamp!)));
	return stamp;
};
const modStampOf = (stamp: unknown): string | undefined =>
	typeof stamp === 'number'
		? new Date(stamp).toISOString()
		: typeof stamp === 'string'
			? stamp
			: undefined;

/** The newest `size` entries that `keep`, oldest first. */
const newest = <V>(map: RecentMap<V>, size: number, keep?: (value: V) => boolean) =>
	[...map.newest(size, keep)].reverse();

export function write(state: State, size: number): string {
	const events: Array<[number, string]> = [];
	for (const [hash, hour] of newest(state.events, size)) {
		if (events.at(-1)?.[0] === hour) events[events.length - 1][1] += hash;
		else events.push([hour, hash]);
	}
	const covers = newest(state.covers, size).map(([hash, cover]) => [
		hash,
		cover.hour,
		stampOfEntry(cover),
	]);
	const keep = (subject: Subject) => subject.ordered && subject.modStamp !== undefined;
	const ordered = newest(state.subjects, size, keep).map(([hash, subject]) => [
		hash,
		stampOfEntry(subject),
	]);
	const statuses: string[] = [];
	const indexOf = new Map<string, number>();
	const subjects: unknown[] = [];
	for (const [hash, subject] of state.recorded ? state.subjects : []) {
		const { status, modStamp } = subject;
		if (status === undefined) continue;
		const index = indexOf.get(status) ?? statuses.push(status) - 1;
		indexOf.set(status, index);
		subjects.push(modStamp === undefined ? [hash, index] : [hash, index, stampOfEntry(subject)]);
	}
	const parts = { events, covers, ordered, statuses, subjects };
	const form: Record<string, unknown> = { v: VERSION, recorded: state.recorded };
	for (const [name, part] of Object.entries(parts)) if (part.length > 0) form[name] = part;
	return JSON.stringify(form);
}

const isArray = Array.isArray as (value: unknown) => value is unknown[];

/** Reads a saved form of either version; undefined when it is none. */
export function read(text: unknown): Saved | undefined {
	if (typeof text !== 'string') return undefined;
	if (text.startsWith('m1 ')) return readVersion1(text);
	let parsed: Record<string, unknown>;
	try {
		parsed = JSON.parse(text) as Record<string, unknown>;
	} catch {
		return undefined;
	}
	if (parsed?.v !== VERSION) return undefined;
	const saved: Saved = { recorded: parsed.recorded === true, events: [], covers: [], subjects: [] };
	const statuses = isArray(parsed.statuses) ? parsed.statuses : [];
	for (const run of isArray(parsed.events) ? parsed.events : []) {
		if (!isArray(run) || !Number.isFinite(run[0]) || typeof run[1] !== 'string') continue;
		for (let start = 0; start + HASH_LENGTH <= run[1].length; start += HASH_LENGTH)
			saved.events.push([run[1].slice(start, start + HASH_LENGTH), run[0] as number]);
	}
	for (const cover of isArray(parsed.covers) ? parsed.covers : []) {
		const modStamp = isArray(cover) ? modStampOf(cover[2]) : undefined;
		if (isArray(cover) && typeof cover[0] === 'string' && Number.isFinite(cover[1]) && modStamp)
			saved.covers.push([cover[0], cover[1] as number, modStamp]);
	}
	for (const subject of isArray(parsed.ordered) ? parsed.ordered : []) {
		const modStamp = isArray(subject) ? modStampOf(subject[1]) : undefined;
		if (isArray(subject) && typeof subject[0] === 'string' && modStamp)
			saved.subjects.push([subject[0], undefined, modStamp, true]);
	}
	for (const subject of isArray(parsed.subjects) ? parsed.subjects : []) {
		const status = isArray(subject) ? statuses[subject[1] as number] : undefined;
		if (isArray(subject) && typeof subject[0] === 'string' && typeof status === 'string')
			saved.subjects.push([subject[0], status, modStampOf(subject[2]), false]);
	}
	return saved;
}

/**
 * Adds a saved form to a process's state: what it lacks is taken, what it knows moves forward only. A
 * subject's status and the modStamp it was known at go together: the newer pair wins.
 */
export function merge(state: State, saved: Saved): void {
	let added = false;
	if (saved.recorded && !state.recorded) added = state.recorded = true;
	for (const [hash, hour] of saved.events) {
		if (state.events.has(hash)) continue;
		state.events.set(hash, hour);
		added = true;
	}
	for (const [hash, hour, modStamp] of saved.covers) {
		if (state.covers.has(hash)) continue;
		state.covers.set(hash, { modStamp, hour });
		added = true;
	}
	for (const [hash, status, modStamp, ordered] of saved.subjects) {
		if (ordered) rememberStatus(state, hash, undefined, modStamp, true);
		if (status === undefined) continue;
		const current = state.subjects.get(hash);
		if (modStamp !== undefined || current?.status === undefined)
			rememberStatus(state, hash, status, modStamp ?? current?.modStamp);
	}
	if (!added) return;
	const sorted = [...state.events].sort(([, a], [, b]) => a - b);
	state.events.clear();
	for (const [hash, hour] of sorted) state.events.set(hash, hour);
	state.version++;
}

/** Version 1's modStamp: an ISO timestamp as `~` and its epoch milliseconds in base 36, anything else JSON. */
function unpackVersion1(packed: string): string | undefined {
	if (packed.startsWith('~')) return new Date(parseInt(packed.slice(1), 36)).toISOString();
	try {
		const value: unknown = JSON.parse(packed);
		return typeof value === 'string' ? value : undefined;
	} catch {
		return undefined;
	}
}

/**
 * The form version 1 saved, read on upgrade: a header `m1 <recorded 0|1>`, then lines of events by hour
 * (`e`), covers (`c`), ordered modStamps (`o`), and the watchdog's statuses: a dictionary (`d`), each
 * subject's hash with its status's index in base 36 (`w`) and the modStamp each was known at (`t`).
 */
export function readVersion1(text: string): Saved | undefined {
	const [header, ...lines] = text.split('\n');
	const [format, recorded] = header.split(' ');
	if (format !== 'm1') return undefined;
	const saved: Saved = { recorded: recorded === '1', events: [], covers: [], subjects: [] };
	let dictionary: string[] = [];
	const statuses = new Map<string, string>();
	const modStamps = new Map<string, string>();
	for (const line of lines) {
		const fields = line.split('\t');
		if (fields[0] === 'e' && Number.isFinite(Number(fields[1]))) {
			const run = fields[2] ?? '';
			for (let start = 0; start + HASH_LENGTH <= run.length; start += HASH_LENGTH)
				saved.events.push([run.slice(start, start + HASH_LENGTH), Number(fields[1])]);
		} else if (fields[0] === 'c') {
			const modStamp = unpackVersion1(fields[3] ?? '');
			if (modStamp !== undefined && Number.isFinite(Number(fields[2])))
				saved.covers.push([fields[1], Number(fields[2]), modStamp]);
		} else if (fields[0] === 'o' && fields[1]) {
			const modStamp = unpackVersion1(fields[2] ?? '');
			if (modStamp !== undefined) saved.subjects.push([fields[1], undefined, modStamp, true]);
		} else if (fields[0] === 'd') {
			dictionary = fields.slice(1);
		} else if (fields[0] === 'w') {
			const width = Number(fields[1]);
			const records = fields[2] ?? '';
			const step = HASH_LENGTH + width;
			for (let start = 0; width > 0 && start + step <= records.length; start += step) {
				const status = dictionary[parseInt(records.slice(start + HASH_LENGTH, start + step), 36)];
				if (status !== undefined) statuses.set(records.slice(start, start + HASH_LENGTH), status);
			}
		} else if (fields[0] === 't' && fields[1]) {
			const modStamp = unpackVersion1(fields[2] ?? '');
			if (modStamp !== undefined) modStamps.set(fields[1], modStamp);
		}
	}
	for (const [hash, status] of statuses)
		saved.subjects.push([hash, status, modStamps.get(hash), false]);
	return saved;
}
