import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { apiPath, apiRequest } from '../shared/transport';
import { caseIdOf } from './event';

/**
 * The first step of every execution the trigger starts, after n8n has answered the delivery: adds the
 * current case when "Fetch Latest Case" is on. A case that cannot be fetched (slow API, 5xx, revoked
 * credential) does not stop the event: it runs with `latestCase: null` and `latestCaseError` saying why.
 */
export async function addLatestCase(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const fetch = this.getNodeParameter('fetchLatestCase', 0, false) === true;
	const output: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		const json: IDataObject = { ...items[itemIndex].json };
		const caseId = caseIdOf({
			event: String(json.event ?? ''),
			eventObject: (json.eventObject ?? {}) as IDataObject,
		});
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
