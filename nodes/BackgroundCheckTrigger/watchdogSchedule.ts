import type { IDataObject, ITriggerFunctions, ITriggerResponse } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { apiPath, apiRequest, type RequestContext } from '../shared/transport';
import {
	CASE_DATA_STATUS_CHANGE,
	CASE_STATUS_CHANGE,
	outputItem,
	parseStatusList,
	unselectedStatus,
} from './event';
import { NodeState, WATCHDOG_STATE, admitOnce, dedupScope, watchdogOn } from './nodeState';
import {
	DEFAULT_LOOK_INTERVAL,
	LOOK_INTERVALS,
	lookSchedule,
	watchdogs,
	type CaseApi,
	type LookInterval,
	type Watchdog,
} from './watchdog';

/** Pages of GET /case/list the watchdog asks for (the sandbox's most; an API that ignores it pages its own way). */
const LIST_PAGE_SIZE = 100;

/**
 * The watchdog's reads, through the one request function. A context object of its own per look: the
 * transport keeps one credential session per context object, so each look reads the credential afresh (a
 * changed or re-exchanged token is used from the next look on) instead of for the whole activation.
 */
function caseApi(context: ITriggerFunctions): CaseApi {
	const session = Object.create(context) as RequestContext;
	return {
		listPage: async (page) =>
			await apiRequest.call(session, 'GET', apiPath`/case/list`, {
				qs: { page, pageSize: LIST_PAGE_SIZE },
			}),
		getCase: async (caseId) => await apiRequest.call(session, 'GET', apiPath`/case/id/${caseId}`),
		getCaseData: async (caseId, serviceTypeId) =>
			await apiRequest.call(session, 'GET', apiPath`/case/id/${caseId}/data/${serviceTypeId}`),
	};
}

/** The event types the trigger is set to, as the watchdog needs them. */
function watchedEvents(context: ITriggerFunctions) {
	const selected = context.getNodeParameter('event', CASE_STATUS_CHANGE) as string;
	return { cases: selected !== CASE_DATA_STATUS_CHANGE, caseData: selected !== CASE_STATUS_CHANGE };
}

function readLookInterval(context: ITriggerFunctions): LookInterval {
	const interval = context.getNodeParameter('reconcileEvery', DEFAULT_LOOK_INTERVAL) as string;
	if (interval in LOOK_INTERVALS) return interval as LookInterval;
	throw new NodeOperationError(
		context.getNode(),
		`"${interval}" is not a watchdog interval; choose one of the list`,
	);
}

/**
 * One look of the watchdog: every change it finds that no delivery reported and that passes the trigger's
 * filters starts one execution (output `source: 'reconciliation'`). A change also delivered is one event
 * for the duplicate memory, whichever came first. Failures are saved as failed executions, so they show.
 */
async function lookOnce(
	context: ITriggerFunctions,
	watchdog: Watchdog,
	isClosed: () => boolean,
): Promise<void> {
	const node = context.getNode();
	let look;
	try {
		look = await watchdog.look(caseApi(context), watchedEvents(context));
	} catch (error) {
		context.saveFailedExecution(
			new NodeOperationError(
				node,
				`The watchdog could not list the cases: ${(error as Error).message}`,
			),
		);
		return;
	}
	const nowSeconds = Math.floor(Date.now() / 1000);
	const state = new NodeState(context, nowSeconds);
	const filter = {
		caseStatuses: parseStatusList(context.getNodeParameter('caseStatus', '')),
		secondaryStatuses: parseStatusList(context.getNodeParameter('secondaryStatus', '')),
	};
	const fetchLatestCase = context.getNodeParameter('fetchLatestCase', false) === true;
	const items: IDataObject[] = [];
	for (const { event, latestCase } of look.events) {
		const claim = admitOnce(context, state, event, nowSeconds);
		if (claim === 'duplicate' || claim === 'outOfOrder') continue;
		if (unselectedStatus(event, filter)) {
			claim.release();
			continue;
		}
		claim.commit(nowSeconds);
		items.push({
			...(outputItem(event) as IDataObject),
			...(fetchLatestCase ? { latestCase } : {}),
		});
	}
	// n8n saves static data when a trigger emits: hand it what this look changed.
	state.copy.handOverUncoordinated();
	for (const item of items) {
		if (isClosed()) return;
		context.emit([[{ json: item }]]);
	}
	if (look.failures.length > 0) {
		const [{ caseId, error }] = look.failures;
		context.saveFailedExecution(
			new NodeOperationError(
				node,
				`The watchdog could not read ${look.failures.length} case(s); they are looked at again next time`,
				{
					description: `Case ${caseId}: ${error.message}`,
				},
			),
		);
	}
}

/**
 * The watchdog, when Reconcile Missed Events is on: the first look records the group's cases at
 * activation (nothing is replayed), then n8n's scheduler runs a look at the chosen interval. After a
 * restart the saved record is kept, so changes missed while n8n was down are found by the next look.
 */
export async function startWatchdog(this: ITriggerFunctions): Promise<ITriggerResponse> {
	const scope = dedupScope(this);
	if (!watchdogOn(this) || this.getMode() === 'manual') {
		const staticData = this.getWorkflowStaticData('node');
		if (staticData[WATCHDOG_STATE] !== undefined) delete staticData[WATCHDOG_STATE];
		watchdogs.forget(scope);
		return {};
	}
	const interval = readLookInterval(this);
	const watchdog = watchdogs.get(scope);
	new NodeState(this, Math.floor(Date.now() / 1000)).copy.handOverUncoordinated();
	if (!watchdog.hasRecord) {
		try {
			await watchdog.look(caseApi(this), watchedEvents(this));
		} catch (error) {
			const message = `The watchdog could not list the cases of the credential's group: ${(error as Error).message}`;
			// On a restart the first scheduled look records them instead; a user activating hears it now.
			if (!['init', 'leadershipChange'].includes(this.getActivationMode()))
				throw new NodeOperationError(this.getNode(), message);
			this.logger.warn(`Background Check Trigger: ${message}`);
		}
	}
	let closed = false;
	let running: Promise<void> | undefined;
	this.helpers.registerCron({ expression: lookSchedule(interval, this.getNode().id) }, () => {
		// A look still under way (a slow API) is not overtaken by the next one.
		if (closed || running) return running;
		running = lookOnce(this, watchdog, () => closed).finally(() => {
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
