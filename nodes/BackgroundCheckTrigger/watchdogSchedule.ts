import type {
	CronExpression,
	IDataObject,
	ITriggerFunctions,
	ITriggerResponse,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { apiPath, apiRequest, type RequestContext } from '../shared/transport';
import { nodeMemory } from './activation';
import { activate, shortHash } from './core';
import {
	CASE_DATA_STATUS_CHANGE,
	CASE_STATUS_CHANGE,
	changeOf,
	outputItem,
	unselectedStatus,
} from './event';
import { readSettings } from './configuration';
import type { Change, Claim, TriggerMemory } from './memory';
import { handOff } from './handoff';
import type { WatchdogEvent } from './watchdog';
import { readChanges, recordAllCases, type CaseApi, type WatchdogReport } from './watchdogReads';

/**
 * The watchdog's reads, through the one request function, with a context object of its own per run: the
 * transport keeps one credential session per context object, so each run reads the credential afresh.
 */
function caseApi(context: ITriggerFunctions): CaseApi {
	const session = Object.create(context) as RequestContext;
	return {
		listCases: async () => await apiRequest.call(session, 'GET', apiPath`/case/list`),
		getCaseServices: async (caseId) =>
			await apiRequest.call(session, 'GET', apiPath`/case/id/${caseId}/services`),
		getCaseData: async (caseId, serviceTypeId) =>
			await apiRequest.call(session, 'GET', apiPath`/case/id/${caseId}/data/${serviceTypeId}`),
	};
}

function watchdogInterval(context: ITriggerFunctions, every: unknown): WatchdogInterval {
	const interval = String(every || DEFAULT_WATCHDOG_INTERVAL);
	if (interval in WATCHDOG_INTERVALS) return interval as WatchdogInterval;
	throw new NodeOperationError(
		context.getNode(),
		`"${interval}" is not a watchdog interval; choose one of the list`,
	);
}

/** What n8n settles emit's promise with when the execution has ended (typed apart in each n8n version). */
type EndedRun = Awaited<NonNullable<Parameters<ITriggerFunctions['emit']>[2]>['promise']>;

/**
 * One run of the watchdog: every change it finds that passes the trigger's filters starts one execution (`source:
 * 'reconciliation'`), remembered only when its first step runs (latestCase.ts). Failures show as failed executions.
 */
async function runWatchdog(context: ITriggerFunctions, isClosed: () => boolean): Promise<void> {
	const settings = readSettings(context);
	const node = nodeMemory(context, settings.duplicateMemorySize);
	const { event: selected, statuses, dropOlder } = settings;
	const watched = {
		cases: selected !== CASE_DATA_STATUS_CHANGE,
		caseData: selected !== CASE_STATUS_CHANGE,
	};
	let report;
	try {
		report = await readChanges(node.memory.state, caseApi(context), watched);
	} catch (error) {
		failRun(context, `The watchdog could not list the cases: ${(error as Error).message}`);
		return;
	}
	if (settings.watchdog.handOff) {
		await handOffAndRemember(context, node.memory, report.events);
		reportUnread(context, report.failures);
		return;
	}
	const { fetchLatestCase } = settings;
	const runs: Array<{ item: IDataObject; change: Change; claim: Claim }> = [];
	for (const { event, latestCase } of report.events) {
		const change = changeOf(event);
		const admission = node.memory.admit(change, dropOlder, Math.floor(Date.now() / 1000), {
			fromWatchdog: true,
		});
		// A delivery of it is being started: the next run sees what became of it.
		if (admission.outcome === 'busy') continue;
		if (admission.outcome !== 'admitted' || unselectedStatus(event, statuses)) {
			if (admission.outcome === 'admitted') admission.claim.release();
			node.memory.rememberStatus(change.subject ?? '', change.status, change.modStamp);
			continue;
		}
		runs.push({
			item: { ...(outputItem(event) as IDataObject), ...(fetchLatestCase ? { latestCase } : {}) },
			change,
			claim: admission.claim,
		});
	}
	// n8n saves static data when a trigger emits: what was remembered without a run goes with it.
	node.save();
	for (const { item, change, claim } of runs) {
		if (isClosed()) {
			claim.release();
			continue;
		}
		const done = context.helpers.createDeferredPromise<EndedRun>();
		// In queue mode the execution runs on a worker: remember it here too once it has run.
		done.promise
			.then(() =>
				node.memory.remember(change, Math.floor(Date.now() / 1000), { fromWatchdog: true }),
			)
			.catch(() => undefined)
			.finally(() => claim.release());
		context.emit([[{ json: item }]], undefined, done);
	}
	reportUnread(context, report.failures);
}

/** A run's failure shows as a failed execution of the workflow. */
const failRun = (context: ITriggerFunctions, message: string, description?: string) =>
	context.saveFailedExecution(new NodeOperationError(context.getNode(), message, { description }));

function reportUnread(context: ITriggerFunctions, failures: WatchdogReport['failures']): void {
	if (failures.length === 0) return;
	const [{ caseId, error }] = failures;
	failRun(
		context,
		`The watchdog could not read ${failures.length} case(s); they are looked at again next time`,
		`Case ${caseId}: ${error.message}`,
	);
}

/**
 * Hand Found Changes To: The Webhook URL. The process that receives the deliveries decides what runs
 * (handoff.ts); this one remembers a change once that process answered 2xx, in its own memory only: it never
 * saves over what that process saved. A change not handed off is found again by the next run.
 */
async function handOffAndRemember(
	context: ITriggerFunctions,
	memory: TriggerMemory,
	events: WatchdogEvent[],
): Promise<void> {
	const { handed, failures } = await handOff(
		context,
		events.map(({ event }) => event),
	);
	for (const event of handed) {
		const change = changeOf(event);
		memory.rememberStatus(change.subject ?? '', change.status, change.modStamp);
	}
	if (failures.length > 0) {
		failRun(
			context,
			`The watchdog could not hand ${failures.length} change(s) to the webhook URL; the next run finds them again`,
			failures[0].reason,
		);
	}
}

/**
 * The watchdog (Reconcile Missed Events): a user's activation records the group's cases (nothing is
 * replayed); n8n's start and a republish keep the record. Then n8n's scheduler runs it at the interval.
 */
export async function startWatchdog(this: ITriggerFunctions): Promise<ITriggerResponse> {
	if (this.getMode() === 'manual') return {};
	const settings = readSettings(this);
	const node = nodeMemory(this, settings.duplicateMemorySize);
	const { on, every, handOff: handsOff } = settings.watchdog;
	const interval = on ? watchdogInterval(this, every) : DEFAULT_WATCHDOG_INTERVAL;
	const activatedByUser = !['init', 'leadershipChange', 'update'].includes(
		this.getActivationMode(),
	);
	const decided = activate(node.memory.state, activatedByUser, on);
	if (decided.save) node.save();
	if (!on) return {};
	if (decided.record) {
		try {
			await recordAllCases(node.memory.state, caseApi(this));
			// Handing off, the webhook processes may have saved since n8n's start: only a user's activation saves.
			if (activatedByUser || !handsOff) node.save();
		} catch (error) {
			const message = `The watchdog could not list the cases of the credential's group: ${(error as Error).message}`;
			// On a restart the first scheduled run records them instead; a user activating hears it now.
			if (activatedByUser) throw new NodeOperationError(this.getNode(), message);
			this.logger.warn(`Background Check Trigger: ${message}`);
		}
	}
	let closed = false;
	let running: Promise<void> | undefined;
	this.helpers.registerCron({ expression: watchdogSchedule(interval, this.getNode().id) }, () => {
		// A run still under way (a slow API) is not overtaken by the next one.
		if (closed || running) return running;
		running = (
			node.memory.recorded
				? runWatchdog(this, () => closed)
				: recordAllCases(node.memory.state, caseApi(this)).then(() => {
						if (!handsOff) node.save();
					})
		).finally(() => {
			running = undefined;
		});
		return running;
	});
	return {
		closeFunction: async () => {
			closed = true;
		},
	};
}

/** How often the watchdog runs: the option values and their cron schedule (seconds first, as n8n's cron). */
export const WATCHDOG_INTERVALS = {
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

export type WatchdogInterval = keyof typeof WATCHDOG_INTERVALS;

export const DEFAULT_WATCHDOG_INTERVAL: WatchdogInterval = '30m';

/**
 * The cron expression for an interval. Schedules of an hour and more start at a minute, and minute
 * schedules at a second, taken from `spread` (the node's ID), so that many triggers do not all call the
 * API at the same moment.
 */
export function watchdogSchedule(interval: WatchdogInterval, spread: string): CronExpression {
	const { seconds } = WATCHDOG_INTERVALS[interval];
	const offset = Buffer.from(shortHash(spread), 'base64url').readUInt16BE(0);
	const second = offset % 60;
	const minute = Math.floor(offset / 60) % 60;
	if (seconds < 60) return `*/${seconds} * * * * *`;
	if (seconds < 3600) return `${second} */${seconds / 60} * * * *`;
	if (seconds < 86_400) return `${second} ${minute} */${seconds / 3600} * * *`;
	return `${second} ${minute} ${offset % 24} * * *`;
}
