import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	INodeExecutionData,
} from 'n8n-workflow';

import type { ApiPath } from '../../shared/transport';
import { apiRequest } from '../../shared/transport';
import { withStatusHints, writeDone } from './answers';
import { runForEachItem } from './execute';
import { readCaseId } from './parameters';

/** A write on one case with no body (cancel, archive, place, ...): what is sent and what its item says. */
export interface CaseAction {
	method: IHttpRequestMethods;
	path: (caseId: string) => ApiPath;
	/** The request as the reference names it, e.g. `PUT /case/id/{caseId}/action/place`, for the messages. */
	endpoint: string;
	/** What the output item says was done, beside the case ID, e.g. `{ placed: true }`. */
	done: IDataObject;
	/** The operation that shows whether the write was carried out. */
	checkWith: string;
	/** What an error status means for this action, added to the API's own message. */
	hints?: Partial<Record<number, string>>;
}

/** Runs a CaseAction for each item: sent once, one item after the other. */
export async function runCaseAction(
	this: IExecuteFunctions,
	action: CaseAction,
): Promise<INodeExecutionData[]> {
	return await runForEachItem.call(
		this,
		async (itemIndex) => {
			const caseId = readCaseId.call(this, itemIndex);
			const response = await withStatusHints(
				apiRequest.call(this, action.method, action.path(caseId), { itemIndex }),
				action.hints ?? {},
			);
			return writeDone(
				this.getNode(),
				response,
				{ caseId, ...action.done },
				{ endpoint: action.endpoint, itemIndex, checkWith: action.checkWith },
			);
		},
		{ write: true },
	);
}
