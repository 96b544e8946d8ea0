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
 * Then it adds the current case when "Fetch Latest Case" is on. A case that cannot be fetched (slow API,
 * 5xx, revoked credential) does not stop the event: it runs with `latestCase: null` and `latestCaseError`.
 */
export async function addLatestCase(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	if (this.getMode() !== 'manual') rememberExecuted(this, items);
	const fetch = this.getNodeParameter('fetchLatestCase', 0, false) === true;
	const output: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
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

function rememberExecuted(context: IExecuteFunctions, items: INodeExecutionData[]): void {
	const node = nodeMemory(context);
	const nowSeconds = Math.floor(Date.now() / 1000);
	let news = false;
	for (const { json } of items) {
		const found = (json.source as EventSource) === 'reconciliation';
		if (node.memory.record(changeOf(eventOf(json)), nowSeconds, { found })) news = true;
	}
	if (news && node.memory.readsSavedMemory) node.save();
}
