import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { apiPath, apiRequest } from '../shared/transport';
import { nodeMemory } from './activation';
import { caseIdOf, changeOf, type EventSource } from './event';

/**
 * The first step of every execution the trigger starts. It remembers the event, so that no copy or retry
 * starts another: usually the delivery already did; this covers an execution n8n runs at start-up after a
 * stop, and a change the watchdog found. It saves only in a process that has read the saved memory itself
 * (a queue-mode worker holds only executions' older copies; n8n starting saves at activation instead).
 *
 * A change another memory's watchdog emitted (the version n8n ran before an Update of the package, until it
 * restarts) and that already ran or is being started outputs no item, so nothing after the trigger runs; its
 * emit saved that memory over this one's, so this one is saved again (memory.ts `originOfFound`).
 *
 * Then Fetch Latest Case adds the current case; one that cannot be fetched does not stop the event: it runs
 * with `latestCase: null` and `latestCaseError` (docs/trigger-state.md).
 */
export async function addLatestCase(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const runs =
		this.getMode() === 'manual' ? items.map(() => true) : await rememberExecuted(this, items);
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

const ANSWER_WAITS = 30;

/**
 * Waits until n8n has answered the delivery that started this change, when this process handled it: n8n
 * saves the event first, and an execution that ended before that save could run again after a stop.
 * False when the save is not known to have happened: this execution saves instead.
 */
async function deliverySaved(answer: Promise<boolean> | undefined): Promise<boolean> {
	for (let waited = 0; answer && waited < ANSWER_WAITS; waited++) {
		const saved = await Promise.race([answer, sleep(1000).then(() => undefined)]);
		if (saved !== undefined) return saved;
	}
	return answer === undefined;
}

/** Remembers each item's event; false for an item that runs no further. */
async function rememberExecuted(
	context: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<boolean[]> {
	const node = nodeMemory(context);
	const nowSeconds = Math.floor(Date.now() / 1000);
	let save = false;
	const runs: boolean[] = [];
	for (const { json } of items) {
		const found = (json.source as EventSource) === 'reconciliation';
		const change = changeOf(eventOf(json));
		if (!(await deliverySaved(node.memory.answerOf(change)))) save = true;
		// A watchdog's emit carries no delivery ID; a change handed to the webhook URL carries its request's.
		const origin =
			found && json.deliveryId == null
				? node.memory.originOfFound(change)
				: found
					? 'ours'
					: node.memory.originOfDelivery(change);
		if (origin !== 'ours') save = true;
		if (origin !== 'known' && node.memory.record(change, nowSeconds, { found })) save = true;
		runs.push(origin !== 'known');
	}
	if (save && node.memory.readsSavedMemory) node.save();
	return runs;
}
