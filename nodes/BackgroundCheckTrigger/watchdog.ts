/**
 * The watchdog's look (spec 6.5: "missed events are possible; consumers should refetch data when expected
 * events do not arrive"), with the reads the API reference offers:
 *
 * - `GET /case/list` once per look: every active case's CaseSummary (statuses, modStamp; no services, no
 *   paging). A case status change is found there: the list entry is the case, and the event is built from it.
 * - A case's data: `GET /case/id/{caseId}/services` for the service types the case has (read again whenever
 *   the case changed, otherwise remembered in process memory), then `GET /case/id/{caseId}/data/{serviceTypeId}`
 *   per type. Case data statuses are in no list, and a case data change need not touch its case, so the
 *   reads are bounded per look ({@link LOOK_BUDGET}): the cases that changed since they were last known (a
 *   status or a newer modStamp in the list, a read that failed, a case data change reported and not yet
 *   recorded), at most `changedCases` of them, the others at the next looks; plus `unchangedCases` of the
 *   others, round-robin. Both oldest read first. Every listed case's data is read at least every
 *   ceil(N / unchangedCases) looks. A look with c changed cases of N, t service types a case, makes
 *   1 + c × (1 + t) + min(unchangedCases, N − c) × t calls (plus one services read for each case this process
 *   has not read yet), and never more than 1 + (changedCases + unchangedCases) × (1 + 5), whatever N.
 *
 * What a read finds is the change with the modStamp a delivery of it carries, so both have one content key.
 * A case it has not seen is a change (the provider announces new cases). A case data it has not seen is one
 * only past its first status (pending, no pending status) and later than the newest modStamp listed when the
 * watchdog recorded the activation: otherwise it changed before the record (no history is replayed). Two
 * undelivered changes of one subject between two reads come out as one event, the second. Nothing found is
 * learnt before its execution exists, and a subject missing from one look is not forgotten
 * (docs/trigger-state.md).
 */
import type { CronExpression, IDataObject } from 'n8n-workflow';

import { isPlainObject } from '../shared/values';
import { CASE_DATA_STATUSES, SERVICE_TYPES } from '../shared/catalog';
import {
	CASE_DATA_STATUS_CHANGE,
	CASE_STATUS_CHANGE,
	caseDataStatusOf,
	caseStatusOf,
	changeOf,
	type WebhookEvent,
} from './event';
import { hashKey, type TriggerMemory } from './memory';

/** The reads a look makes, each resolving with the API's response body. */
export interface CaseApi {
	/** GET /case/list: `{ cases: CaseSummary[] }`. */
	listCases(): Promise<unknown>;
	/** GET /case/id/{caseId}/services: `{ serviceGroupServices: [{ serviceId, serviceTypeId, ... }] }`. */
	getCaseServices(caseId: string): Promise<unknown>;
	/** GET /case/id/{caseId}/data/{serviceTypeId}: `{ data: CaseData[] }`. */
	getCaseData(caseId: string, serviceTypeId: string): Promise<unknown>;
}

/** Which event types the trigger wants; changes of the others are followed silently. */
export type WatchedEvents = Record<'cases' | 'caseData', boolean>;

/** How many cases' data one look reads: those that changed, and those read round-robin. */
export interface LookBudget {
	changedCases: number;
	unchangedCases: number;
}

export const LOOK_BUDGET: LookBudget = { changedCases: 100, unchangedCases: 20 };

/** A status change the watchdog found, as a delivery would have carried it, and the case it listed. */
export interface ReconciledEvent {
	event: WebhookEvent;
	latestCase: IDataObject;
}

export interface Look {
	cases: number;
	/** Oldest first (by modStamp). */
	events: ReconciledEvent[];
	/** Cases whose data could not be read: read again before any case read since. */
	failures: Array<{ caseId: string; error: Error }>;
}

const CASE_SUBJECT = 'case:';
const CASE_DATA_SUBJECT = 'casedata:';
/** Its modStamp: a case data not known, of this modStamp or older, changed before the watchdog's record. */
const CASE_DATA_SINCE_SUBJECT = 'watchdog:caseDataSince';
const RECORDED = 'recorded';

/** Where a new service starts (spec 3.1 `pending`, no pending status): no event announces it. */
const FIRST_CASE_DATA_STATUS = caseDataStatusOf({
	statusId: CASE_DATA_STATUSES.find(({ status }) => status === 'pending')?.statusId ?? null,
});

/** The service types `GET /case/id/{caseId}/data/{serviceTypeId}` takes. */
const SERVICE_TYPE_IDS = new Set<string>(SERVICE_TYPES.map(({ id }) => id));

/** The fields of a delivery's eventObject, each case status change and case data status change. */
const CASE_EVENT_FIELDS = [
	...['id', 'caseStatusId', 'caseStatus', 'secondaryCaseStatusId', 'secondaryStatus'],
	...['resultType', 'candidateId', 'packageId', 'groupProfileId', 'modStamp'],
];
const CASE_DATA_EVENT_FIELDS = [
	...['id', 'caseId', 'groupProfileId', 'serviceId', 'serviceName', 'serviceTypeId'],
	...['status', 'statusId', 'pendingStatus', 'pendingStatusId', 'modStamp'],
];

/** A delivery carries every field, null where the record has none (the API leaves it out). */
const eventObjectOf = (record: IDataObject, fields: string[]): IDataObject =>
	Object.fromEntries(fields.map((field) => [field, record[field] ?? null]));

const timeOf = (modStamp: unknown) =>
	typeof modStamp === 'string' ? Date.parse(modStamp) : Number.NaN;

interface ListedCase {
	id: string;
	status: string;
	modStamp?: string;
	summary: IDataObject;
}

function listedCase(entry: unknown): ListedCase | undefined {
	if (!isPlainObject(entry) || typeof entry.id !== 'string' || entry.id === '') return undefined;
	const modStamp = Number.isFinite(timeOf(entry.modStamp)) ? (entry.modStamp as string) : undefined;
	return { id: entry.id, status: caseStatusOf(entry), modStamp, summary: entry };
}

/** The array under `key` of an answer; anything else is not the answer the reference defines. */
function arrayIn(body: unknown, key: string, read: string): unknown[] {
	const value = isPlainObject(body) ? body[key] : undefined;
	if (!Array.isArray(value)) throw new Error(`${read} answered no "${key}" list`);
	return value;
}

async function listCases(api: CaseApi): Promise<ListedCase[]> {
	return arrayIn(await api.listCases(), 'cases', 'GET /case/list')
		.map(listedCase)
		.filter((entry): entry is ListedCase => entry !== undefined);
}

function event(name: string, eventObject: IDataObject, latestCase: IDataObject): ReconciledEvent {
	const body = {
		event: name,
		apiTrackingCode: latestCase.apiTrackingCode ?? null,
		apiTrackingUser: latestCase.apiTrackingUser ?? null,
		eventObject,
	};
	return { event: { body, event: name, eventObject }, latestCase };
}

const modStampOf = (reconciled: ReconciledEvent) =>
	timeOf(reconciled.event.eventObject.modStamp) || 0;

/** What a look remembers in process memory only: which case's data it read when, and each case's types. */
interface ReadState {
	looks: number;
	/** Case ID → the look that last read its data. */
	checked: Map<string, number>;
	/** Case ID → the service types of its services. */
	types: Map<string, string[]>;
	/** Cases seen changed whose data are still to be read (over the budget, or the read failed). */
	due: Set<string>;
	/** Case ID → the case data changes its last read reported: read again until the memory knows them. */
	reported: Map<string, Array<[subject: string, status: string]>>;
}

const readStates = new WeakMap<TriggerMemory, ReadState>();

function readStateOf(memory: TriggerMemory): ReadState {
	let state = readStates.get(memory);
	if (!state) {
		state = { looks: 0, checked: new Map(), types: new Map(), due: new Set(), reported: new Map() };
		readStates.set(memory, state);
	}
	return state;
}

/**
 * Case data of the newest listed modStamp or older (or of the one known, if later) are history from here on;
 * with no case listed, none is.
 */
function moveCaseDataSince(memory: TriggerMemory, listed: ListedCase[]): void {
	let newest = memory.modStampOf(CASE_DATA_SINCE_SUBJECT) ?? new Date(0).toISOString();
	for (const { modStamp } of listed)
		if (modStamp !== undefined && timeOf(modStamp) > timeOf(newest)) newest = modStamp;
	memory.learn(CASE_DATA_SINCE_SUBJECT, RECORDED, newest);
}

/**
 * The first look after a user activates the workflow: records every case's status and the time from which
 * case data changes count, reports nothing and reads no case data (one list read).
 */
export async function recordActivation(memory: TriggerMemory, api: CaseApi): Promise<number> {
	const listed = await listCases(api);
	memory.recordActivation(
		listed.map((entry) => [CASE_SUBJECT + entry.id, entry.status, entry.modStamp]),
	);
	moveCaseDataSince(memory, listed);
	return listed.length;
}

/**
 * Lists the cases and reads the data of some (see the top of this file); reports each status change it did
 * not know of, without learning it (the execution does). A failure to list throws; a case whose data cannot
 * be read is reported in `failures`.
 */
export async function look(
	memory: TriggerMemory,
	api: CaseApi,
	watched: WatchedEvents,
	budget: LookBudget = LOOK_BUDGET,
): Promise<Look> {
	const listed = await listCases(api);
	const state = readStateOf(memory);
	const lookNumber = ++state.looks;
	// Without the record's time (a memory from before it, or one that evicted it), the list's newest is taken.
	if (!watched.caseData || memory.modStampOf(CASE_DATA_SINCE_SUBJECT) === undefined)
		moveCaseDataSince(memory, listed);
	const since = memory.modStampOf(CASE_DATA_SINCE_SUBJECT);

	const events: ReconciledEvent[] = [];
	const changed: ListedCase[] = [];
	const unchanged: ListedCase[] = [];
	/** Cases whose listed modStamp is learnt once their data are read: their status is known. */
	const settled = new Set<string>();
	for (const entry of listed) {
		const subject = CASE_SUBJECT + entry.id;
		const statusDiffers = memory.statusOf(subject) !== entry.status;
		const known = timeOf(memory.modStampOf(subject));
		const modStampNewer = entry.modStamp !== undefined && !(known >= timeOf(entry.modStamp));
		const unrecorded = state.reported
			.get(entry.id)
			?.some(([caseData, status]) => memory.statusOf(caseData) !== status);
		const isChanged = statusDiffers || modStampNewer || unrecorded || state.due.has(entry.id);
		if (statusDiffers && watched.cases)
			events.push(
				event(CASE_STATUS_CHANGE, eventObjectOf(entry.summary, CASE_EVENT_FIELDS), entry.summary),
			);
		else if (statusDiffers) memory.learn(subject, entry.status, entry.modStamp);
		else settled.add(entry.id);
		if (watched.caseData) (isChanged ? changed : unchanged).push(entry);
	}

	const failures: Look['failures'] = [];
	const byOldestCheck = (cases: ListedCase[]) =>
		// Stable: never-read cases (-1) keep the list's order.
		[...cases].sort((a, b) => (state.checked.get(a.id) ?? -1) - (state.checked.get(b.id) ?? -1));
	const toRead = [
		...byOldestCheck(changed).slice(0, budget.changedCases),
		...byOldestCheck(unchanged).slice(0, budget.unchangedCases),
	];
	for (const entry of changed) state.due.add(entry.id);
	for (const entry of toRead) {
		try {
			const found = await readCaseData(memory, api, state, entry, state.due.has(entry.id), since);
			events.push(...found);
			state.checked.set(entry.id, lookNumber);
			state.due.delete(entry.id);
			if (settled.has(entry.id)) memory.learn(CASE_SUBJECT + entry.id, undefined, entry.modStamp);
			const reported = found.flatMap(({ event }): Array<[string, string]> => {
				const { subject, status } = changeOf(event);
				return subject === undefined || status === undefined ? [] : [[subject, status]];
			});
			if (reported.length === 0) state.reported.delete(entry.id);
			else state.reported.set(entry.id, reported);
		} catch (error) {
			failures.push({ caseId: entry.id, error: error as Error });
		}
	}
	forgetUnlisted(state, listed);
	return {
		cases: listed.length,
		events: events.sort((a, b) => modStampOf(a) - modStampOf(b)),
		failures,
	};
}

/** The process memory of a look holds the listed cases only. */
function forgetUnlisted(state: ReadState, listed: ListedCase[]): void {
	const ids = new Set(listed.map(({ id }) => id));
	for (const map of [state.checked, state.types, state.reported])
		for (const id of map.keys()) if (!ids.has(id)) map.delete(id);
	for (const id of state.due) if (!ids.has(id)) state.due.delete(id);
}

/** The service types of a case's services, those the case data read takes. */
async function serviceTypesOf(api: CaseApi, caseId: string): Promise<string[]> {
	const services = arrayIn(
		await api.getCaseServices(caseId),
		'serviceGroupServices',
		`GET /case/id/${caseId}/services`,
	);
	const types = new Set<string>();
	for (const service of services) {
		const type = isPlainObject(service) ? service.serviceTypeId : undefined;
		if (typeof type === 'string' && SERVICE_TYPE_IDS.has(type)) types.add(type);
	}
	return [...types];
}

/** Reads a case's data, type by type, and reports each case data change. */
async function readCaseData(
	memory: TriggerMemory,
	api: CaseApi,
	state: ReadState,
	entry: ListedCase,
	changed: boolean,
	since: string | undefined,
): Promise<ReconciledEvent[]> {
	let types = state.types.get(entry.id);
	if (changed || !types) {
		types = await serviceTypesOf(api, entry.id);
		state.types.set(entry.id, types);
	}
	const events: ReconciledEvent[] = [];
	for (const serviceTypeId of types) {
		const read = `GET /case/id/${entry.id}/data/${serviceTypeId}`;
		for (const record of arrayIn(await api.getCaseData(entry.id, serviceTypeId), 'data', read)) {
			if (!isPlainObject(record) || typeof record.id !== 'string' || record.id === '') continue;
			const subject = CASE_DATA_SUBJECT + record.id;
			const status = caseDataStatusOf(record);
			const known = memory.statusOf(subject);
			if (known === status) continue;
			const modStamp = typeof record.modStamp === 'string' ? record.modStamp : undefined;
			const history =
				known === undefined &&
				(status === FIRST_CASE_DATA_STATUS ||
					(since !== undefined && !(timeOf(modStamp) > timeOf(since))));
			if (history) {
				memory.learn(subject, status, modStamp);
				continue;
			}
			const eventObject = eventObjectOf({ ...record, caseId: entry.id }, CASE_DATA_EVENT_FIELDS);
			events.push(event(CASE_DATA_STATUS_CHANGE, eventObject, entry.summary));
		}
	}
	return events;
}

/** How often the watchdog looks: the option values and their cron schedule (seconds first, as n8n's cron). */
export const LOOK_INTERVALS = {
	'10s': { name: 'Every 10 Seconds', seconds: 10 },
	'30s': { name: 'Every 30 Seconds', seconds: 30 },
	'1m': { name: 'Every Minute', seconds: 60 },
	'5m': { name: 'Every 5 Minutes', seconds: 300 },
	'15m': { name: 'Every 15 Minutes', seconds: 900 },
	'30m': { name: 'Every 30 Minutes', seconds: 1800 },
	'1h': { name: 'Every Hour', seconds: 3600 },
	'6h': { name: 'Every 6 Hours', seconds: 21_600 },
	'24h': { name: 'Every Day', seconds: 86_400 },
} as const;

export type LookInterval = keyof typeof LOOK_INTERVALS;

export const DEFAULT_LOOK_INTERVAL: LookInterval = '30m';

/**
 * The cron expression for an interval. Schedules of an hour and more start at a minute, and minute
 * schedules at a second, taken from `spread` (the node's ID), so that many triggers do not all call the
 * API at the same moment.
 */
export function lookSchedule(interval: LookInterval, spread: string): CronExpression {
	const { seconds } = LOOK_INTERVALS[interval];
	const offset = Buffer.from(hashKey(spread), 'base64url').readUInt16BE(0);
	const second = offset % 60;
	const minute = Math.floor(offset / 60) % 60;
	if (seconds < 60) return `*/${seconds} * * * * *`;
	if (seconds < 3600) return `${second} */${seconds / 60} * * * *`;
	if (seconds < 86_400) return `${second} ${minute} */${seconds / 3600} * * *`;
	return `${second} ${minute} ${offset % 24} * * *`;
}
