import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { apiPath, apiRequest } from '../shared/transport';
import { nodeMemory } from './activation';
import { caseIdOf, changeOf, type EventSource } from './event';

/**
 * The first step of every execution the trigger starts, after n8n has answered the delivery.
 *
 * It remembers the event: the execution exists, so a copy or a retry must not start another. Usually the
 * delivery's request already did; this covers an execution n8n inserted but did not start before it
 * stopped, which it runs at its next start-up, and a change the watchdog found. It saves (n8n writes static
 * data changed here when the execution ends) only in a process that has read the saved memory itself: in
 * queue mode a worker holds nothing but copies taken when each execution was created, and its save would
 * replace events the webhook processes saved since. A process that has not read it yet (n8n starting)
 * saves at activation (activation.ts).
 *
 * A change a watchdog emitted, when this process's memory did not emit it, runs no further than this step if
 * it already ran or is being started (memory.ts `originOfFound`): after n8n's Update of the package, the
 * watchdog of the version that activated the workflow keeps looking with its own memory until n8n restarts,
 * while deliveries and executions run the new version's code. The item is left out, so nothing after the
 * trigger runs. Its emit made n8n save that watchdog's memory over this one's: this step saves this one again.
 *
 * Then it adds the current case when "Fetch Latest Case" is on. A case that cannot be fetched (slow API,
 * 5xx, revoked credential) does not stop the event: it runs with `latestCase: null` and `latestCaseError`.
 */
export async function addLatestCase(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const runs = this.getMode() === 'manual' ? items.map(() => true) : rememberExecuted(this, items);
	const fetch = this.getNodeParameter('fetchLatestCase', 0, false) === true;
	const output: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		if (!runs[itemIndex]) continue;
		const json: IDataObject = { ...items[itemIndex].json };
		const caseId = caseIdOf(eventOf(json));
		if (fetch && caseId && json.latestCase === undefined) {
			try {
				json.latestCase = (await apiRequest.call(this, 'GET', apiPath`/case/id/${caseId}`, {
					itemIndex,
				})) as IDataObject;
			} catch (error) {
				json.latestCase = null;
				json.latestCaseError = (error as Error).message;
			}
		}
		output.push({ json, pairedItem: { item: itemIndex } });
	}
	return [output];
}

const eventOf = (json: IDataObject) => ({
	event: String(json.event ?? ''),
	eventObject: (json.eventObject ?? {}) as IDataObject,
});

/** Remembers each item's event; false for an item that runs no further. */
function rememberExecuted(context: IExecuteFunctions, items: INodeExecutionData[]): boolean[] {
	const node = nodeMemory(context);
	const nowSeconds = Math.floor(Date.now() / 1000);
	let save = false;
	const runs = items.map(({ json }) => {
		const found = (json.source as EventSource) === 'reconciliation';
		const change = changeOf(eventOf(json));
		// A watchdog's emit carries no delivery ID; a change handed to the webhook URL carries its request's.
		const origin = found && json.deliveryId == null ? node.memory.originOfFound(change) : 'ours';
		if (origin !== 'ours') save = true;
		if (origin === 'known') return false;
		if (node.memory.record(change, nowSeconds, { found })) save = true;
		return true;
	});
	if (save && node.memory.readsSavedMemory) node.save();
	return runs;
}
