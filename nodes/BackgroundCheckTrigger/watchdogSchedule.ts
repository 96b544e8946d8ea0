import type { IDataObject, ITriggerFunctions, ITriggerResponse } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { apiPath, apiRequest, type RequestContext } from '../shared/transport';
import { nodeMemory, watchdogOn } from './activation';
import { activate } from './core';
import {
	CASE_DATA_STATUS_CHANGE,
	CASE_STATUS_CHANGE,
	changeOf,
	outputItem,
	unselectedStatus,
} from './event';
import { readFilters } from './configuration';
import type { Change, Claim, TriggerMemory } from './memory';
import { handOff, handsOffToWebhook } from './handoff';
import {
	DEFAULT_LOOK_INTERVAL,
	LOOK_INTERVALS,
	look,
	lookSchedule,
	recordActivation,
	type CaseApi,
	type Look,
	type LookInterval,
	type ReconciledEvent,
} from './watchdog';

/**
 * The watchdog's reads, through the one request function, with a context object of its own per look: the
 * transport keeps one credential session per context object, so each look reads the credential afresh.
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

function readLookInterval(context: ITriggerFunctions): LookInterval {
	const interval = context.getNodeParameter('reconcileEvery', DEFAULT_LOOK_INTERVAL) as string;
	if (interval in LOOK_INTERVALS) return interval as LookInterval;
	throw new NodeOperationError(
		context.getNode(),
		`"${interval}" is not a watchdog interval; choose one of the list`,
	);
}

/** What n8n settles emit's promise with when the execution has ended (typed apart in each n8n version). */
type EndedRun = Awaited<NonNullable<Parameters<ITriggerFunctions['emit']>[2]>['promise']>;

/**
 * One look: every change found that passes the trigger's filters starts one execution (`source:
 * 'reconciliation'`), learnt only when its first step runs (latestCase.ts). Failures show as failed executions.
 */
async function lookOnce(context: ITriggerFunctions, isClosed: () => boolean): Promise<void> {
	const node = nodeMemory(context);
	const { event: selected, statuses, dropOlder } = readFilters(context);
	const watched = {
		cases: selected !== CASE_DATA_STATUS_CHANGE,
		caseData: selected !== CASE_STATUS_CHANGE,
	};
	let found;
	try {
		found = await look(node.memory, caseApi(context), watched);
	} catch (error) {
		failLook(context, `The watchdog could not list the cases: ${(error as Error).message}`);
		return;
	}
	if (handsOffToWebhook(context)) {
		await handOver(context, node.memory, found.events);
		reportUnread(context, found.failures);
		return;
	}
	const fetchLatestCase = context.getNodeParameter('fetchLatestCase', false) === true;
	const runs: Array<{ item: IDataObject; change: Change; claim: Claim }> = [];
	for (const { event, latestCase } of found.events) {
		const change = changeOf(event);
		const admission = node.memory.admit(change, dropOlder, Math.floor(Date.now() / 1000), {
			found: true,
		});
		// A delivery of it is being started: the next look sees what became of it.
		if (admission.outcome === 'busy') continue;
		if (admission.outcome !== 'admitted' || unselectedStatus(event, statuses)) {
			if (admission.outcome === 'admitted') admission.claim.release();
			node.memory.learn(change.subject ?? '', change.status, change.modStamp);
			continue;
		}
		runs.push({
			item: { ...(outputItem(event) as IDataObject), ...(fetchLatestCase ? { latestCase } : {}) },
			change,
			claim: admission.claim,
		});
	}
	// n8n saves static data when a trigger emits: what was learnt without a run goes with it.
	node.save();
	for (const { item, change, claim } of runs) {
		if (isClosed()) {
			claim.release();
			continue;
		}
		const done = context.helpers.createDeferredPromise<EndedRun>();
		// In queue mode the execution runs on a worker: learn it here too once it has run.
		done.promise
			.then(() => node.memory.record(change, Math.floor(Date.now() / 1000), { found: true }))
			.catch(() => undefined)
			.finally(() => claim.release());
		context.emit([[{ json: item }]], undefined, done);
	}
	reportUnread(context, found.failures);
}

/** A look's failure shows as a failed execution of the workflow. */
const failLook = (context: ITriggerFunctions, message: string, description?: string) =>
	context.saveFailedExecution(new NodeOperationError(context.getNode(), message, { description }));

function reportUnread(context: ITriggerFunctions, failures: Look['failures']): void {
	if (failures.length === 0) return;
	const [{ caseId, error }] = failures;
	failLook(
		context,
		`The watchdog could not read ${failures.length} case(s); they are looked at again next time`,
		`Case ${caseId}: ${error.message}`,
	);
}

/**
 * Hand Found Changes To: The Webhook URL. The process that receives the deliveries decides what runs
 * (handoff.ts); this one learns a change once that process answered 2xx, in its own memory only: it never
 * saves over what that process saved. A change not handed over is found again by the next look.
 */
async function handOver(
	context: ITriggerFunctions,
	memory: TriggerMemory,
	events: ReconciledEvent[],
): Promise<void> {
	const { handed, failures } = await handOff(
		context,
		events.map(({ event }) => event),
	);
	for (const event of handed) {
		const change = changeOf(event);
		memory.learn(change.subject ?? '', change.status, change.modStamp);
	}
	if (failures.length > 0) {
		failLook(
			context,
			`The watchdog could not hand ${failures.length} change(s) to the webhook URL; the next look finds them again`,
			failures[0].reason,
		);
	}
}

/**
 * The watchdog (Reconcile Missed Events): a user's activation records the group's cases (nothing is
 * replayed); n8n's start and a republish keep the record. Then n8n's scheduler runs a look at the interval.
 */
export async function startWatchdog(this: ITriggerFunctions): Promise<ITriggerResponse> {
	if (this.getMode() === 'manual') return {};
	const node = nodeMemory(this);
	const on = watchdogOn(this);
	const interval = on ? readLookInterval(this) : DEFAULT_LOOK_INTERVAL;
	const activatedByUser = !['init', 'leadershipChange', 'update'].includes(
		this.getActivationMode(),
	);
	const decided = activate(node.memory.state, activatedByUser, on);
	if (decided.save) node.save();
	if (!on) return {};
	if (decided.record) {
		try {
			await recordActivation(node.memory, caseApi(this));
			// Handing off, the webhook processes may have saved since n8n's start: only a user's activation saves.
			if (activatedByUser || !handsOffToWebhook(this)) node.save();
		} catch (error) {
			const message = `The watchdog could not list the cases of the credential's group: ${(error as Error).message}`;
			// On a restart the first scheduled look records them instead; a user activating hears it now.
			if (activatedByUser) throw new NodeOperationError(this.getNode(), message);
			this.logger.warn(`Background Check Trigger: ${message}`);
		}
	}
	let closed = false;
	let running: Promise<void> | undefined;
	this.helpers.registerCron({ expression: lookSchedule(interval, this.getNode().id) }, () => {
		// A look still under way (a slow API) is not overtaken by the next one.
		if (closed || running) return running;
		running = (
			node.memory.recorded
				? lookOnce(this, () => closed)
				: recordActivation(node.memory, caseApi(this)).then(() => {
						if (!handsOffToWebhook(this)) node.save();
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
