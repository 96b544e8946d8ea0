/**
 * The watchdog's reads of the API, in the order watchdog.ts decides, with the reads the API reference offers:
 * `GET /case/list` once per run (every active case's CaseSummary: statuses, modStamp; no services, no
 * paging), then for the cases watchdog.ts picks `GET /case/id/{caseId}/services` (read again whenever the
 * case changed, otherwise kept in process memory) and `GET /case/id/{caseId}/data/{serviceTypeId}` per type.
 * A run with c changed cases of N, t service types a case, makes 1 + c × (1 + t) + min(unchangedCases, N − c)
 * × t calls (plus one services read for each case this process has not read yet), and never more than
 * 1 + (changedCases + unchangedCases) × (1 + 5), whatever N. A failure to list throws; a case whose data
 * cannot be read is reported in `failures` and read again before any other at the next run.
 */
import { isPlainObject } from '../shared/values';
import { SERVICE_TYPES } from '../shared/catalog';
import { caseStatusOf } from './event';
import type { State } from './core';
import {
	WATCHDOG_BUDGET,
	timeOfValue,
	byModStamp,
	caseDataChanges,
	caseRead,
	forgetUnlisted,
	plan,
	recordCases,
	type ListedCase,
	type ReadState,
	type WatchdogBudget,
	type WatchdogEvent,
	type WatchedEvents,
} from './watchdog';

/** The reads the watchdog makes, each resolving with the API's response body. */
export interface CaseApi {
	/** GET /case/list: `{ cases: CaseSummary[] }`. */
	listCases(): Promise<unknown>;
	/** GET /case/id/{caseId}/services: `{ serviceGroupServices: [{ serviceId, serviceTypeId, ... }] }`. */
	getCaseServices(caseId: string): Promise<unknown>;
	/** GET /case/id/{caseId}/data/{serviceTypeId}: `{ data: CaseData[] }`. */
	getCaseData(caseId: string, serviceTypeId: string): Promise<unknown>;
}

export interface WatchdogReport {
	cases: number;
	/** Oldest first (by modStamp). */
	events: WatchdogEvent[];
	/** Cases whose data could not be read: read again before any case read since. */
	failures: Array<{ caseId: string; error: Error }>;
}

const SERVICE_TYPE_IDS = new Set<string>(SERVICE_TYPES.map(({ id }) => id));

/** The array under `key` of an answer; anything else is not the answer the reference defines. */
function arrayIn(body: unknown, key: string, read: string): unknown[] {
	const value = isPlainObject(body) ? body[key] : undefined;
	if (!Array.isArray(value)) throw new Error(`${read} answered no "${key}" list`);
	return value;
}

function listedCases(body: unknown): ListedCase[] {
	return arrayIn(body, 'cases', 'GET /case/list').flatMap((entry): ListedCase[] => {
		if (!isPlainObject(entry) || typeof entry.id !== 'string' || entry.id === '') return [];
		const modStamp = Number.isFinite(timeOfValue(entry.modStamp))
			? (entry.modStamp as string)
			: undefined;
		return [{ id: entry.id, status: caseStatusOf(entry), modStamp, summary: entry }];
	});
}

/** The service types of a case's services, those the case data read takes. */
function serviceTypesIn(body: unknown, caseId: string): string[] {
	const types = new Set<string>();
	for (const service of arrayIn(body, 'serviceGroupServices', `GET /case/id/${caseId}/services`)) {
		const type = isPlainObject(service) ? service.serviceTypeId : undefined;
		if (typeof type === 'string' && SERVICE_TYPE_IDS.has(type)) types.add(type);
	}
	return [...types];
}

const readStates = new WeakMap<State, ReadState>();

function readStateOf(state: State): ReadState {
	let reads = readStates.get(state);
	if (!reads) {
		reads = { runs: 0, checked: new Map(), types: new Map(), due: new Set(), reported: new Map() };
		readStates.set(state, reads);
	}
	return reads;
}

/** Records every case's status at a user's activation (one list read); returns how many cases. */
export async function recordAllCases(state: State, api: CaseApi): Promise<number> {
	const listed = listedCases(await api.listCases());
	recordCases(state, listed);
	return listed.length;
}

/** One run's reads: every change not known, without remembering it (its execution does). */
export async function readChanges(
	state: State,
	api: CaseApi,
	watched: WatchedEvents,
	budget: WatchdogBudget = WATCHDOG_BUDGET,
): Promise<WatchdogReport> {
	const listed = listedCases(await api.listCases());
	const reads = readStateOf(state);
	const decided = plan(state, reads, listed, watched, budget);
	const events = decided.events;
	const failures: WatchdogReport['failures'] = [];
	for (const entry of decided.toRead) {
		try {
			let types = reads.types.get(entry.id);
			if (reads.due.has(entry.id) || !types) {
				types = serviceTypesIn(await api.getCaseServices(entry.id), entry.id);
				reads.types.set(entry.id, types);
			}
			const caseEvents: WatchdogEvent[] = [];
			for (const type of types) {
				const read = `GET /case/id/${entry.id}/data/${type}`;
				const records = arrayIn(await api.getCaseData(entry.id, type), 'data', read);
				caseEvents.push(...caseDataChanges(state, entry, records, decided.since));
			}
			events.push(...caseEvents);
			caseRead(state, reads, decided, entry, caseEvents);
		} catch (error) {
			failures.push({ caseId: entry.id, error: error as Error });
		}
	}
	forgetUnlisted(reads, listed);
	return { cases: listed.length, events: byModStamp(events), failures };
}
