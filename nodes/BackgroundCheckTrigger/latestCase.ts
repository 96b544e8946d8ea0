import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { apiPath, apiRequest } from '../shared/transport';
import { isPlainObject } from '../shared/values';
import { nodeMemory, type NodeMemory } from './activation';
import { readSettings } from './configuration';
import { awaitsAnswer, firstStep } from './core';
import { CLAIM_TOKEN_FIELD, caseIdOf, changeOf, type EventSource } from './event';
import { WAITS_MS } from './memory';

/**
 * The first step of every execution the trigger starts (docs/trigger-state.md). It waits until n8n has
 * saved the delivery that started it, then remembers the event: usually the delivery already did; this
 * covers a row n8n runs at start-up and a change the watchdog found. It saves only in a process that has read
 * the saved memory itself (not a queue-mode worker; n8n starting saves at activation instead). An execution
 * this process did not start, for a change it has started or is starting itself (a row n8n runs at its
 * start while a retry of its delivery arrives; a change another version's watchdog emitted after an Update),
 * outputs no item, so nothing after the trigger runs.
 * Then Fetch Latest Case adds the current case (the one entry of `GET /case/id/{caseId}`), or `latestCase: null`
 * and `latestCaseError`.
 */
export async function addLatestCase(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const settings = readSettings(this);
	const runs =
		this.getMode() === 'manual'
			? items.map(() => true)
			: await rememberExecuted(nodeMemory(this, settings.duplicateMemorySize), items);
	const fetch = settings.fetchLatestCase;
	const output: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		if (!runs[itemIndex]) continue;
		const json: IDataObject = { ...items[itemIndex].json };
		delete json[CLAIM_TOKEN_FIELD];
		const caseId = caseIdOf(eventOf(json));
		if (fetch && caseId && json.latestCase === undefined) {
			try {
				const answer = await apiRequest.call(this, 'GET', apiPath`/case/id/${caseId}`, {
					itemIndex,
				});
				json.latestCase = caseIn(answer, caseId);
			} catch (error) {
				json.latestCase = null;
				json.latestCaseError = (error as Error).message;
			}
		}
		output.push({ json, pairedItem: { item: itemIndex } });
	}
	return [output];
}

/** The case of a `GET /case/id/{caseId}` answer: `{ cases: [CaseSummary] }`. */
function caseIn(answer: unknown, caseId: string): IDataObject {
	const cases = isPlainObject(answer) ? answer.cases : undefined;
	const found = Array.isArray(cases) ? cases.find(isPlainObject) : undefined;
	if (!found) throw new Error(`GET /case/id/${caseId} answered no case`);
	return found;
}

const eventOf = (json: IDataObject) => ({
	event: String(json.event ?? ''),
	eventObject: (json.eventObject ?? {}) as IDataObject,
});

/** Remembers each item's event; false for an item that runs no further. */
async function rememberExecuted(node: NodeMemory, items: INodeExecutionData[]): Promise<boolean[]> {
	const { memory } = node;
	let save = false;
	const runs: boolean[] = [];
	for (const { json } of items) {
		const fromWatchdog = (json.source as EventSource) === 'reconciliation';
		const change = changeOf(eventOf(json));
		const saved = await memory.signals.until('answer', WAITS_MS.answer, () =>
			awaitsAnswer(memory.state, change) ? undefined : true,
		);
		const nowSeconds = Math.floor(Date.now() / 1000);
		// A watchdog's emit carries no delivery ID; a change handed to the webhook URL carries its request's.
		const origin =
			fromWatchdog && json.deliveryId == null
				? memory.originOfWatchdogRun(change)
				: memory.originOfDelivered(change, json[CLAIM_TOKEN_FIELD], nowSeconds);
		const decided = firstStep(memory.state, change, origin, fromWatchdog, nowSeconds, !saved);
		save ||= decided.save;
		runs.push(decided.runs);
	}
	if (save) node.save();
	return runs;
}
