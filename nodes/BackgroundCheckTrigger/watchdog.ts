/**
 * The watchdog's look (spec 6.5: "missed events are possible; consumers should refetch data when expected
 * events do not arrive"): reads every page of GET /case/list, whose entries carry each case's status and its
 * services' statuses (the sandbox's list; the spec does not show its fields), and compares them with the
 * statuses the trigger's memory knows (from looks and deliveries). Only where something differs does it read
 * GET /case/id/{caseId} and, for the services that differ, GET /case/id/{caseId}/data/{serviceTypeId}: what it
 * reads there is the change with the modStamp a delivery of it carries, so both have one content key.
 *
 * A case it has not seen is a change (the provider announces new cases); a service it has not seen is one
 * only past its first status (pending, no pending status). Two undelivered changes of one subject between
 * two looks come out as one event, the second. Nothing found is learnt before its execution exists, and a
 * subject missing from one look is not forgotten (docs/trigger-state.md).
 */
import type { CronExpression, IDataObject } from 'n8n-workflow';

import { collectPages, recordsOf } from '../shared/transport/listResponses';
import { isPlainObject } from '../shared/values';
import { CASE_DATA_STATUSES } from '../shared/catalog';
import {
	CASE_DATA_STATUS_CHANGE,
	CASE_STATUS_CHANGE,
	caseDataStatusOf,
	caseStatusOf,
	type WebhookEvent,
} from './event';
import { hashKey, type TriggerMemory } from './memory';

/** The three reads a look makes, each resolving with the API's response body. */
export interface CaseApi {
	/** One page (0-based) of GET /case/list. */
	listPage(page: number): Promise<unknown>;
	getCase(caseId: string): Promise<unknown>;
	getCaseData(caseId: string, serviceTypeId: string): Promise<unknown>;
}

/** Which event types the trigger wants; changes of the others are followed silently. */
export type WatchedEvents = Record<'cases' | 'caseData', boolean>;

/** A status change the watchdog found, as a delivery would have carried it, and the case it read. */
export interface ReconciledEvent {
	event: WebhookEvent;
	latestCase: IDataObject;
}

export interface Look {
	cases: number;
	/** Oldest first (by modStamp). */
	events: ReconciledEvent[];
	/** Cases that could not be read; their subjects are compared again next time. */
	failures: Array<{ caseId: string; error: Error }>;
}

const CASE_SUBJECT = 'case:';
const CASE_DATA_SUBJECT = 'casedata:';

/** Where a new service starts (spec 3.1 `pending`, no pending status): no event announces it. */
const FIRST_CASE_DATA_STATUS = caseDataStatusOf({
	statusId: CASE_DATA_STATUSES.find(({ status }) => status === 'pending')?.statusId ?? null,
});

/** The fields of a case.statuschange's eventObject (spec 6.2) and of the sandbox's casedata.statuschange. */
const CASE_EVENT_FIELDS = [
	...['id', 'groupProfileId', 'caseStatus', 'caseStatusId', 'secondaryStatus'],
	...['secondaryCaseStatusId', 'modStamp'],
];
const CASE_DATA_EVENT_FIELDS = [
	...['id', 'serviceId', 'serviceName', 'serviceTypeId', 'status', 'statusId'],
	...['pendingStatus', 'pendingStatusId', 'modStamp'],
];

const pick = (record: IDataObject, fields: string[]): IDataObject =>
	Object.fromEntries(fields.filter((f) => record[f] !== undefined).map((f) => [f, record[f]]));

interface ListedService {
	caseDataId: string;
	serviceTypeId?: string;
	status: string;
}

interface ListedCase {
	id: string;
	status: string;
	modStamp?: string;
	services: ListedService[];
}

function listedCase(entry: IDataObject): ListedCase | undefined {
	if (typeof entry.id !== 'string' || entry.id === '') return undefined;
	const services = (Array.isArray(entry.services) ? entry.services : [])
		.filter((service) => isPlainObject(service) && typeof service.caseDataId === 'string')
		.map((service: IDataObject) => ({
			caseDataId: service.caseDataId as string,
			serviceTypeId: typeof service.serviceTypeId === 'string' ? service.serviceTypeId : undefined,
			status: caseDataStatusOf(service),
		}));
	const modStamp = typeof entry.modStamp === 'string' ? entry.modStamp : undefined;
	return { id: entry.id, status: caseStatusOf(entry), modStamp, services };
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
	Date.parse(String(reconciled.event.eventObject.modStamp)) || 0;

/** Lists every page of GET /case/list. */
async function listCases(api: CaseApi): Promise<ListedCase[]> {
	return (await collectPages(async (page) => await api.listPage(page), 'caseList', undefined))
		.map(listedCase)
		.filter((entry): entry is ListedCase => entry !== undefined);
}

/** The first look after a user activates the workflow: records every subject's status, reports nothing. */
export async function recordActivation(memory: TriggerMemory, api: CaseApi): Promise<number> {
	const listed = await listCases(api);
	const statuses: Array<[string, string, string?]> = [];
	for (const entry of listed) {
		statuses.push([CASE_SUBJECT + entry.id, entry.status, entry.modStamp]);
		for (const service of entry.services)
			statuses.push([CASE_DATA_SUBJECT + service.caseDataId, service.status]);
	}
	memory.recordActivation(statuses);
	return listed.length;
}

/**
 * Lists every case and reports each status change it did not know of, without learning it (the execution
 * does). A failure to list throws; a case that cannot be read is reported in `failures`.
 */
export async function look(
	memory: TriggerMemory,
	api: CaseApi,
	watched: WatchedEvents,
): Promise<Look> {
	const listed = await listCases(api);
	const events: ReconciledEvent[] = [];
	const failures: Look['failures'] = [];
	for (const { entry, caseDiffers, services } of compare(memory, listed, watched)) {
		try {
			events.push(...(await read(memory, api, entry, caseDiffers, services)));
		} catch (error) {
			failures.push({ caseId: entry.id, error: error as Error });
		}
	}
	return {
		cases: listed.length,
		events: events.sort((a, b) => modStampOf(a) - modStampOf(b)),
		failures,
	};
}

/**
 * The cases where a watched subject's listed status differs from the known one. Unwatched subjects, and
 * new services at their first status, are learnt silently.
 */
function compare(memory: TriggerMemory, listed: ListedCase[], watched: WatchedEvents) {
	const differing: Array<{ entry: ListedCase; caseDiffers: boolean; services: ListedService[] }> =
		[];
	for (const entry of listed) {
		const caseSubject = CASE_SUBJECT + entry.id;
		const caseDiffers = memory.statusOf(caseSubject) !== entry.status;
		if (caseDiffers && !watched.cases) memory.learn(caseSubject, entry.status, entry.modStamp);
		const services: ListedService[] = [];
		for (const service of entry.services) {
			const subject = CASE_DATA_SUBJECT + service.caseDataId;
			if (!watched.caseData) memory.learn(subject, service.status);
			else if (serviceChanged(memory, subject, service.status)) services.push(service);
		}
		if ((caseDiffers && watched.cases) || services.length > 0)
			differing.push({ entry, caseDiffers: caseDiffers && watched.cases, services });
	}
	return differing;
}

/** Whether a service's status is news; a service not seen before, at its first status, is learnt silently. */
function serviceChanged(memory: TriggerMemory, subject: string, status: string): boolean {
	const known = memory.statusOf(subject);
	const isNew = known === undefined && status === FIRST_CASE_DATA_STATUS;
	if (isNew) memory.learn(subject, status);
	return known !== status && !isNew;
}

/** Reads one case (and the case data of its differing services) and reports what changed. */
async function read(
	memory: TriggerMemory,
	api: CaseApi,
	entry: ListedCase,
	caseDiffers: boolean,
	services: ListedService[],
): Promise<ReconciledEvent[]> {
	const latestCase = await api.getCase(entry.id);
	if (!isPlainObject(latestCase)) throw new Error(`GET /case/id/${entry.id} returned no case`);
	const events: ReconciledEvent[] = [];
	if (caseDiffers && memory.statusOf(CASE_SUBJECT + entry.id) !== caseStatusOf(latestCase))
		events.push(event(CASE_STATUS_CHANGE, pick(latestCase, CASE_EVENT_FIELDS), latestCase));
	const byType = new Map<string, ListedService[]>();
	const servicesOfCase = Array.isArray(latestCase.services)
		? latestCase.services.filter(isPlainObject)
		: [];
	for (const service of services) {
		const type =
			service.serviceTypeId ??
			servicesOfCase.find((candidate) => candidate.caseDataId === service.caseDataId)
				?.serviceTypeId;
		if (typeof type === 'string') byType.set(type, [...(byType.get(type) ?? []), service]);
	}
	for (const [serviceTypeId, ofType] of byType) {
		const records = recordsOf(await api.getCaseData(entry.id, serviceTypeId), 'caseDataList');
		for (const service of ofType) {
			const record = records.find((candidate) => candidate.id === service.caseDataId);
			if (!record) continue;
			if (!serviceChanged(memory, CASE_DATA_SUBJECT + service.caseDataId, caseDataStatusOf(record)))
				continue;
			const eventObject = {
				...pick(record, CASE_DATA_EVENT_FIELDS),
				caseId: entry.id,
				groupProfileId: latestCase.groupProfileId ?? null,
			};
			events.push(event(CASE_DATA_STATUS_CHANGE, eventObject, latestCase));
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
