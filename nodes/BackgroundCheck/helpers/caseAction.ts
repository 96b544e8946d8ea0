import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	INodeExecutionData,
} from 'n8n-workflow';

import { apiRequest, encodePathSegment, type ApiPath } from '../../shared/transport';
import { withStatusHints, writeDone } from './answers';
import { runForEachItem } from './execute';
import { readCaseId } from './parameters';

/** A write on one case with no body (cancel, archive, place, ...): what is sent and what its item says. */
export interface CaseAction {
	/** The request as the reference names it, e.g. `PUT /case/id/{caseId}/action/place`: what is sent. */
	endpoint: `${IHttpRequestMethods} /${string}{caseId}${string}`;
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
	const [method, template] = action.endpoint.split(' ') as [IHttpRequestMethods, string];
	return await runForEachItem.call(
		this,
		async (itemIndex) => {
			const caseId = readCaseId.call(this, itemIndex);
			const segment = encodePathSegment(caseId);
			const path = template.replace('{caseId}', () => segment) as ApiPath;
			const response = await withStatusHints(
				apiRequest.call(this, method, path, { itemIndex }),
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
