/**
 * What the watchdog decides (spec 6.5: "missed events are possible; consumers should refetch data when
 * expected events do not arrive"), from the trigger's state and the API's answers; no promises and no n8n.
 * watchdogReads.ts makes the reads, watchdogSchedule.ts runs the watchdog in n8n.
 *
 * A case status change is found in the list: the list entry is the case, and the event is built from it.
 * Case data statuses are in no list, and a case data change need not touch its case, so the case data read
 * per run are bounded ({@link WATCHDOG_BUDGET}): the cases that changed since they were last known (a status
 * or a newer modStamp in the list, a read that failed, a case data change reported and not yet remembered),
 * at most `changedCases` of them, the others at the next runs; plus `unchangedCases` of the others,
 * round-robin, both oldest read first: every listed case's data is read at least every
 * ceil(N / unchangedCases) runs.
 *
 * What a read finds is the change with the modStamp a delivery of it carries, so both have one event key. A
 * case it has not seen is a change (the provider announces new cases). A case data it has not seen is one
 * only past its first status (pending, no pending status) and later than the newest modStamp listed when the
 * watchdog recorded the activation: otherwise it changed before the record (no history is replayed). Two
 * undelivered changes of one subject between two reads come out as one event, the second. Nothing reported
 * is remembered before its execution exists, and a subject missing from one run is not forgotten.
 */
import type { IDataObject } from 'n8n-workflow';

import { isPlainObject } from '../shared/values';
import { CASE_DATA_STATUSES } from '../shared/catalog';
import {
	shortHash,
	rememberStatus,
	modStampOf,
	recordStatuses,
	statusOf,
	timeOf,
	type State,
} from './core';
import {
	CASE_DATA_STATUS_CHANGE,
	CASE_STATUS_CHANGE,
	caseDataStatusOf,
	changeOf,
	type WebhookEvent,
} from './event';

/** Which event types the trigger wants; changes of the others are followed silently. */
export type WatchedEvents = Record<'cases' | 'caseData', boolean>;

/** How many cases' data one run reads: those that changed, and those read round-robin. */
export type WatchdogBudget = Record<'changedCases' | 'unchangedCases', number>;

export const WATCHDOG_BUDGET: WatchdogBudget = { changedCases: 100, unchangedCases: 20 };

/** A status change the watchdog found, as a delivery would have carried it, and the case it listed. */
export interface WatchdogEvent {
	event: WebhookEvent;
	latestCase: IDataObject;
}

export interface ListedCase {
	id: string;
	status: string;
	modStamp?: string;
	summary: IDataObject;
}

/** What the watchdog keeps in process memory only: which case's data it read when, and each case's types. */
export interface ReadState {
	runs: number;
	/** Case ID → the run that last read its data. */
	checked: Map<string, number>;
	/** Case ID → the service types of its services. */
	types: Map<string, string[]>;
	/** Cases seen changed whose data are still to be read (over the budget, or the read failed). */
	due: Set<string>;
	/** Case ID → the case data changes its last read reported: read again until they are remembered. */
	reported: Map<string, Array<[subject: string, status: string]>>;
}

const CASE_SUBJECT = 'case:';
const CASE_DATA_SUBJECT = 'casedata:';
/** Its modStamp: a case data not known, of this modStamp or older, changed before the watchdog's record. */
const CASE_DATA_SINCE_SUBJECT = 'watchdog:caseDataSince';

/** Where a new service starts (spec 3.1 `pending`, no pending status): no event announces it. */
const FIRST_CASE_DATA_STATUS = caseDataStatusOf({
	statusId: CASE_DATA_STATUSES.find(({ status }) => status === 'pending')?.statusId ?? null,
});

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

export const timeOfValue = (modStamp: unknown) =>
	typeof modStamp === 'string' ? timeOf(modStamp) : Number.NaN;

const know = (state: State, subject: string, status?: string, modStamp?: string) =>
	rememberStatus(state, shortHash(subject), status, modStamp);

function event(name: string, eventObject: IDataObject, latestCase: IDataObject): WatchdogEvent {
	const body = {
		event: name,
		apiTrackingCode: latestCase.apiTrackingCode ?? null,
		apiTrackingUser: latestCase.apiTrackingUser ?? null,
		eventObject,
	};
	return { event: { body, event: name, eventObject }, latestCase };
}

/** Case data of the newest listed modStamp or older (or of the one known, if later) are history from here on. */
function moveCaseDataSince(state: State, listed: ListedCase[]): void {
	let newest = modStampOf(state, CASE_DATA_SINCE_SUBJECT) ?? new Date(0).toISOString();
	for (const { modStamp } of listed)
		if (modStamp !== undefined && timeOf(modStamp) > timeOf(newest)) newest = modStamp;
	know(state, CASE_DATA_SINCE_SUBJECT, 'recorded', newest);
}

/** The record at a user's activation: every case's status and the time from which case data changes count. */
export function recordCases(state: State, listed: ListedCase[]): void {
	recordStatuses(
		state,
		listed.map((entry) => [CASE_SUBJECT + entry.id, entry.status, entry.modStamp]),
	);
	moveCaseDataSince(state, listed);
}

export interface Plan {
	run: number;
	/** Case status changes, to report. */
	events: WatchdogEvent[];
	/** Cases whose data to read now, in order. */
	toRead: ListedCase[];
	/** Cases whose listed modStamp is remembered once their data are read: their status is known. */
	settled: Set<string>;
	since: string | undefined;
}

/** What a run reports from the list, and whose case data it reads. */
export function plan(
	state: State,
	reads: ReadState,
	listed: ListedCase[],
	watched: WatchedEvents,
	budget: WatchdogBudget,
): Plan {
	const run = ++reads.runs;
	// Without the record's time (a memory from before it, or one that evicted it), the list's newest is taken.
	if (!watched.caseData || modStampOf(state, CASE_DATA_SINCE_SUBJECT) === undefined)
		moveCaseDataSince(state, listed);
	const events: WatchdogEvent[] = [];
	const changed: ListedCase[] = [];
	const unchanged: ListedCase[] = [];
	const settled = new Set<string>();
	for (const entry of listed) {
		const subject = CASE_SUBJECT + entry.id;
		const statusDiffers = statusOf(state, subject) !== entry.status;
		const known = timeOf(modStampOf(state, subject));
		const modStampNewer = entry.modStamp !== undefined && !(known >= timeOf(entry.modStamp));
		const unremembered = reads.reported
			.get(entry.id)
			?.some(([caseData, status]) => statusOf(state, caseData) !== status);
		if (statusDiffers && watched.cases)
			events.push(
				event(CASE_STATUS_CHANGE, eventObjectOf(entry.summary, CASE_EVENT_FIELDS), entry.summary),
			);
		else if (statusDiffers) know(state, subject, entry.status, entry.modStamp);
		else settled.add(entry.id);
		const isChanged = statusDiffers || modStampNewer || unremembered || reads.due.has(entry.id);
		if (watched.caseData) (isChanged ? changed : unchanged).push(entry);
	}
	// Stable: never-read cases (-1) keep the list's order.
	const byOldestRead = (cases: ListedCase[]) =>
		[...cases].sort((a, b) => (reads.checked.get(a.id) ?? -1) - (reads.checked.get(b.id) ?? -1));
	for (const entry of changed) reads.due.add(entry.id);
	const toRead = [
		...byOldestRead(changed).slice(0, budget.changedCases),
		...byOldestRead(unchanged).slice(0, budget.unchangedCases),
	];
	return { run, events, toRead, settled, since: modStampOf(state, CASE_DATA_SINCE_SUBJECT) };
}

/** The changes in one service type's case data of a listed case; history is known without a report. */
export function caseDataChanges(
	state: State,
	entry: ListedCase,
	records: unknown[],
	since: string | undefined,
): WatchdogEvent[] {
	const events: WatchdogEvent[] = [];
	for (const record of records) {
		if (!isPlainObject(record) || typeof record.id !== 'string' || record.id === '') continue;
		const subject = CASE_DATA_SUBJECT + record.id;
		const status = caseDataStatusOf(record);
		const known = statusOf(state, subject);
		if (known === status) continue;
		const modStamp = typeof record.modStamp === 'string' ? record.modStamp : undefined;
		const history =
			known === undefined &&
			(status === FIRST_CASE_DATA_STATUS ||
				(since !== undefined && !(timeOf(modStamp) > timeOf(since))));
		if (history) know(state, subject, status, modStamp);
		else {
			const eventObject = eventObjectOf({ ...record, caseId: entry.id }, CASE_DATA_EVENT_FIELDS);
			events.push(event(CASE_DATA_STATUS_CHANGE, eventObject, entry.summary));
		}
	}
	return events;
}

/** A case's data were read: what it reported is read again until remembered. */
export function caseRead(
	state: State,
	reads: ReadState,
	plan: Plan,
	entry: ListedCase,
	events: WatchdogEvent[],
): void {
	reads.checked.set(entry.id, plan.run);
	reads.due.delete(entry.id);
	if (plan.settled.has(entry.id)) know(state, CASE_SUBJECT + entry.id, undefined, entry.modStamp);
	const reported = events.flatMap(({ event }): Array<[string, string]> => {
		const { subject, status } = changeOf(event);
		return subject === undefined || status === undefined ? [] : [[subject, status]];
	});
	if (reported.length === 0) reads.reported.delete(entry.id);
	else reads.reported.set(entry.id, reported);
}

/** The process memory of the reads holds the listed cases only. */
export function forgetUnlisted(reads: ReadState, listed: ListedCase[]): void {
	const ids = new Set(listed.map(({ id }) => id));
	for (const map of [reads.checked, reads.types, reads.reported])
		for (const id of map.keys()) if (!ids.has(id)) map.delete(id);
	for (const id of reads.due) if (!ids.has(id)) reads.due.delete(id);
}

/** Oldest first, as a delivery of each would have come. */
export const byModStamp = (events: WatchdogEvent[]) =>
	events.sort(
		(a, b) =>
			(timeOfValue(a.event.eventObject.modStamp) || 0) -
			(timeOfValue(b.event.eventObject.modStamp) || 0),
	);
