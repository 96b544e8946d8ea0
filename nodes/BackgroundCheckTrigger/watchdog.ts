/**
 * The watchdog: finds the status changes whose delivery never arrived (spec 6.5: "missed events are
 * possible; consumers should refetch data when expected events do not arrive") by looking at the API on a
 * schedule, and hands them to the trigger as events in the shape a delivery would have had.
 *
 * It remembers the last status it knows of every case and every case data ("subject") of the credential's
 * group, from its own looks and from every delivery the trigger received. A look reads every page of
 * GET /case/list, whose entries carry each case's status and its services' statuses (the sandbox's list;
 * the spec does not show the list's fields), and compares. Only for a case where something differs does it
 * read GET /case/id/{caseId} and, for the services that differ, GET /case/id/{caseId}/data/{serviceTypeId}:
 * what it reads there is the change, with the modStamp a delivery of it carries, so its content key equals
 * the delivery's and the trigger's duplicate memory runs it once, whichever comes first. A delivery that
 * arrived first has also updated the known status, so the look does not even see a change.
 *
 * The first look after activation records what it finds and reports nothing (no history is replayed).
 * A case it has not seen before is a change (the provider announces new cases); a service it has not
 * seen is one only when it is no longer at its first status (pending, no pending status): a new service
 * starts there without an event. A look sees the state at its time: two changes of one subject between
 * two looks, both undelivered, come out as one event, the second.
 *
 * What it keeps is saved with the workflow (one string: a header, the distinct statuses, then 10 characters of
 * SHA-256 of each subject and 1-2 of its status, about 12 bytes per case and per service), so a restart
 * does not lose the changes missed meanwhile. Two subjects whose hashes collide share a slot (60 bits: for
 * 10,000 subjects a chance of 4e-11 that any two do), which could hide one change.
 */
import type { CronExpression, IDataObject } from 'n8n-workflow';

import { collectPages, recordsOf } from '../shared/transport/lists';
import { CASE_DATA_STATUSES } from '../shared/catalog';
import { CASE_DATA_STATUS_CHANGE, CASE_STATUS_CHANGE, type WebhookEvent } from './event';
import { randomBytes } from 'crypto';

import { HASH_LENGTH, KnownTexts, hashKey } from './deliveryDeduplicator';
import { PerNode } from './savedCopy';

/** The three reads a look makes, each resolving with the API's response body. */
export interface CaseApi {
	/** One page (0-based) of GET /case/list. */
	listPage(page: number): Promise<unknown>;
	getCase(caseId: string): Promise<unknown>;
	getCaseData(caseId: string, serviceTypeId: string): Promise<unknown>;
}

/** Which event types the trigger wants; changes of the others are followed silently. */
export interface WatchedEvents {
	cases: boolean;
	caseData: boolean;
}

/** A status change the watchdog found, as a delivery would have carried it, and the case it read. */
export interface ReconciledEvent {
	event: WebhookEvent;
	latestCase: IDataObject;
}

export interface Look {
	/** False when there was no record yet: this look made it and reports nothing. */
	compared: boolean;
	cases: number;
	/** Oldest first (by modStamp). */
	events: ReconciledEvent[];
	/** Cases that could not be read; their subjects are compared again next time. */
	failures: Array<{ caseId: string; error: Error }>;
}

const CASE_SUBJECT = 'case:';
const CASE_DATA_SUBJECT = 'casedata:';
const FORMAT = 'w1';

const caseStatusOf = (record: Record<string, unknown>) =>
	JSON.stringify([record.caseStatusId ?? null, record.secondaryCaseStatusId ?? null]);
const caseDataStatusOf = (record: Record<string, unknown>) =>
	JSON.stringify([record.statusId ?? null, record.pendingStatusId ?? null]);

/** Where a new service starts (spec 3.1 `pending`, no pending status): no event announces it. */
const FIRST_CASE_DATA_STATUS = caseDataStatusOf({
	statusId: CASE_DATA_STATUSES.find(({ status }) => status === 'pending')?.statusId ?? null,
});

/** The fields of a case.statuschange's eventObject (spec 6.2) and of the sandbox's casedata.statuschange. */
const CASE_EVENT_FIELDS = [
	'id',
	'groupProfileId',
	'caseStatus',
	'caseStatusId',
	'secondaryStatus',
	'secondaryCaseStatusId',
	'modStamp',
];
const CASE_DATA_EVENT_FIELDS = [
	'id',
	'serviceId',
	'serviceName',
	'serviceTypeId',
	'status',
	'statusId',
	'pendingStatus',
	'pendingStatusId',
	'modStamp',
];

const isObject = (value: unknown): value is IDataObject =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

function pick(record: IDataObject, fields: string[]): IDataObject {
	return Object.fromEntries(
		fields.filter((field) => record[field] !== undefined).map((field) => [field, record[field]]),
	);
}

interface ListedService {
	caseDataId: string;
	serviceTypeId?: string;
	status: string;
}

interface ListedCase {
	id: string;
	status: string;
	services: ListedService[];
}

function listedCase(entry: IDataObject): ListedCase | undefined {
	if (typeof entry.id !== 'string' || entry.id === '') return undefined;
	const services = (Array.isArray(entry.services) ? entry.services : [])
		.filter(isObject)
		.flatMap((service) =>
			typeof service.caseDataId === 'string'
				? [
						{
							caseDataId: service.caseDataId,
							serviceTypeId:
								typeof service.serviceTypeId === 'string' ? service.serviceTypeId : undefined,
							status: caseDataStatusOf(service),
						},
					]
				: [],
		);
	return { id: entry.id, status: caseStatusOf(entry), services };
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

export class Watchdog {
	/** Subject hash → the last status known. */
	private readonly statuses = new Map<string, string>();

	private recorded = false;

	private version = 0;

	private serialized: { version: number; text: string } | undefined;

	private readonly known = new KnownTexts();

	/** Names this process's saved copies (see DeliveryDeduplicator.wrote). */
	private readonly writer = randomBytes(4).toString('hex');

	/** What to put in static data: serializes to {@link toPersisted} when n8n saves it. */
	readonly persistedView: { toJSON(): string } = { toJSON: () => this.toPersisted() };

	/** Whether the first look (the record of activation) has been made. */
	get hasRecord(): boolean {
		return this.recorded;
	}

	get subjects(): number {
		return this.statuses.size;
	}

	/** Grows with every change of what the saved copy holds. */
	get changes(): number {
		return this.version;
	}

	/** Merges what an earlier process (restart) or another writer saved; what this process knows wins. */
	absorb(persisted: unknown): void {
		if (
			persisted === this.persistedView ||
			typeof persisted !== 'string' ||
			this.known.has(persisted)
		)
			return;
		this.known.add(persisted);
		const [header, dictionary, records] = persisted.split('\n');
		const [format, recorded, width] = (header ?? '').split(' ');
		const indexWidth = Number(width);
		if (format !== FORMAT || !(indexWidth > 0) || records === undefined) return;
		const statuses = dictionary === '' ? [] : dictionary.split('\t');
		const step = HASH_LENGTH + indexWidth;
		for (let start = 0; start + step <= records.length; start += step) {
			const hash = records.slice(start, start + HASH_LENGTH);
			const status = statuses[parseInt(records.slice(start + HASH_LENGTH, start + step), 36)];
			if (status !== undefined && !this.statuses.has(hash)) this.set(hash, status);
		}
		if (recorded === '1' && !this.recorded) {
			this.recorded = true;
			this.version++;
		}
	}

	/** Whether `persisted` is a saved copy this process wrote (or nothing, when it knows nothing yet). */
	wrote(persisted: unknown): boolean {
		if (persisted === undefined) return this.statuses.size === 0 && !this.recorded;
		return (
			persisted === this.persistedView ||
			(typeof persisted === 'string' &&
				persisted.slice(0, persisted.indexOf('\n')).split(' ')[3] === this.writer)
		);
	}

	/** Whether `persisted` (what a request read) lacks something this process knows. */
	isBehind(persisted: unknown): boolean {
		return persisted !== this.persistedView && persisted !== this.toPersisted();
	}

	/** A delivery the trigger received: its subject is known to be at its status. True when that is news. */
	noteDelivered(delivered: Pick<WebhookEvent, 'event' | 'eventObject'>): boolean {
		const { id } = delivered.eventObject;
		if (typeof id !== 'string') return false;
		if (delivered.event === CASE_STATUS_CHANGE)
			return this.set(hashKey(CASE_SUBJECT + id), caseStatusOf(delivered.eventObject));
		if (delivered.event === CASE_DATA_STATUS_CHANGE)
			return this.set(hashKey(CASE_DATA_SUBJECT + id), caseDataStatusOf(delivered.eventObject));
		return false;
	}

	/**
	 * Lists every case and reports each status change it did not know of. The first look only records.
	 * A failure to list throws; a case that cannot be read is reported in `failures` and compared again
	 * next time.
	 */
	async look(api: CaseApi, watched: WatchedEvents): Promise<Look> {
		const listed = (
			await collectPages(async (page) => await api.listPage(page), 'caseList', undefined)
		)
			.map(listedCase)
			.filter((entry): entry is ListedCase => entry !== undefined);
		if (!this.recorded) {
			this.statuses.clear();
			for (const entry of listed) {
				this.set(hashKey(CASE_SUBJECT + entry.id), entry.status);
				for (const service of entry.services)
					this.set(hashKey(CASE_DATA_SUBJECT + service.caseDataId), service.status);
			}
			this.recorded = true;
			this.version++;
			return { compared: false, cases: listed.length, events: [], failures: [] };
		}

		const differing = this.compare(listed, watched);
		const events: ReconciledEvent[] = [];
		const failures: Look['failures'] = [];
		for (const { entry, caseDiffers, services } of differing) {
			try {
				events.push(...(await this.read(api, entry, caseDiffers, services)));
			} catch (error) {
				failures.push({ caseId: entry.id, error: error as Error });
			}
		}
		return {
			compared: true,
			cases: listed.length,
			events: events.sort((a, b) => modStampOf(a) - modStampOf(b)),
			failures,
		};
	}

	/** The saved form: `w1 <recorded> <index width>`, the statuses (tab-separated), then hash + index per subject. */
	toPersisted(): string {
		if (this.serialized?.version !== this.version) {
			const dictionary = [...new Set(this.statuses.values())];
			const index = new Map(dictionary.map((status, position) => [status, position]));
			const width = Math.max(1, Math.ceil(Math.log(dictionary.length + 1) / Math.log(36)));
			let records = '';
			for (const [hash, status] of this.statuses)
				records += hash + index.get(status)!.toString(36).padStart(width, '0');
			const text = `${FORMAT} ${this.recorded ? 1 : 0} ${width} ${this.writer}\n${dictionary.join('\t')}\n${records}`;
			this.serialized = { version: this.version, text };
			this.known.add(text);
		}
		return this.serialized.text;
	}

	/**
	 * Synchronously (no await, so deliveries noted meanwhile are seen): the cases where a watched subject's
	 * listed status differs from the known one. Unwatched subjects, and new services at their first status,
	 * are followed silently; subjects no longer listed are forgotten.
	 */
	private compare(listed: ListedCase[], watched: WatchedEvents) {
		const seen = new Set<string>();
		const differing: Array<{ entry: ListedCase; caseDiffers: boolean; services: ListedService[] }> =
			[];
		for (const entry of listed) {
			const caseHash = hashKey(CASE_SUBJECT + entry.id);
			seen.add(caseHash);
			const caseDiffers = this.statuses.get(caseHash) !== entry.status;
			if (caseDiffers && !watched.cases) this.set(caseHash, entry.status);
			const services: ListedService[] = [];
			for (const service of entry.services) {
				const hash = hashKey(CASE_DATA_SUBJECT + service.caseDataId);
				seen.add(hash);
				const known = this.statuses.get(hash);
				if (known === service.status) continue;
				if (!watched.caseData || (known === undefined && service.status === FIRST_CASE_DATA_STATUS))
					this.set(hash, service.status);
				else services.push(service);
			}
			if ((caseDiffers && watched.cases) || services.length > 0)
				differing.push({ entry, caseDiffers: caseDiffers && watched.cases, services });
		}
		for (const hash of this.statuses.keys()) {
			if (!seen.has(hash)) {
				this.statuses.delete(hash);
				this.version++;
			}
		}
		return differing;
	}

	/** Reads one case (and the case data of its differing services) and reports what changed. */
	private async read(
		api: CaseApi,
		entry: ListedCase,
		caseDiffers: boolean,
		services: ListedService[],
	): Promise<ReconciledEvent[]> {
		const latestCase = await api.getCase(entry.id);
		if (!isObject(latestCase)) throw new Error(`GET /case/id/${entry.id} returned no case`);
		const events: ReconciledEvent[] = [];
		const caseHash = hashKey(CASE_SUBJECT + entry.id);
		if (caseDiffers && this.set(caseHash, caseStatusOf(latestCase))) {
			events.push(event(CASE_STATUS_CHANGE, pick(latestCase, CASE_EVENT_FIELDS), latestCase));
		}
		const byType = new Map<string, ListedService[]>();
		const servicesOfCase = Array.isArray(latestCase.services)
			? latestCase.services.filter(isObject)
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
				const hash = hashKey(CASE_DATA_SUBJECT + service.caseDataId);
				const status = caseDataStatusOf(record);
				const isNew = !this.statuses.has(hash);
				if (!this.set(hash, status) || (isNew && status === FIRST_CASE_DATA_STATUS)) continue;
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

	/** Records a subject's status; true when it was not known to be at it. */
	private set(hash: string, status: string): boolean {
		if (this.statuses.get(hash) === status) return false;
		this.statuses.set(hash, status);
		this.version++;
		return true;
	}
}

/** The process-wide watchdog state of each trigger node. */
export const watchdogs = new PerNode(() => new Watchdog());

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
