import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

/** What one input item produced: one output item, or several (a list operation). */
export type ItemResult = IDataObject | IDataObject[];

/**
 * Makes sure an error reaching the user is a node error that points at the item it came from. Errors from
 * the transport and the validators already are; anything else (a bug, an unexpected shape) is wrapped.
 */
export function asNodeError(node: INode, error: unknown, itemIndex: number): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		if (error.context.itemIndex === undefined) error.context.itemIndex = itemIndex;
		return error;
	}
	return new NodeOperationError(node, error as Error, { itemIndex });
}

/**
 * Runs `operation` once per input item, in order, and links every output item to its input item. With
 * "Continue On Fail" on, a failing item yields `{ error }` and the next item still runs; nothing is retried.
 */
export async function runForEachItem(
	this: IExecuteFunctions,
	operation: (itemIndex: number) => Promise<ItemResult>,
): Promise<INodeExecutionData[]> {
	const output: INodeExecutionData[] = [];
	const items = this.getInputData();
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			const result = await operation(itemIndex);
			output.push(
				...this.helpers.constructExecutionMetaData(this.helpers.returnJsonArray(result), {
					itemData: { item: itemIndex },
				}),
			);
		} catch (error) {
			const nodeError = asNodeError(this.getNode(), error, itemIndex);
			if (!this.continueOnFail()) throw nodeError;
			output.push({
				json: { error: nodeError.message, ...(nodeError.description ? { errorDescription: nodeError.description } : {}) },
				pairedItem: { item: itemIndex },
			});
		}
	}
	return output;
}

/**
 * The output of a call answering one record. The spec shows no response for most writes: when the answer
 * is empty or not an object, the item says what was done instead of being empty.
 */
export function asRecord(response: unknown, whenNoRecord: IDataObject): IDataObject {
	if (response !== null && typeof response === 'object' && !Array.isArray(response)) return response as IDataObject;
	return response === undefined || response === null || response === '' ? whenNoRecord : { ...whenNoRecord, response: response as IDataObject[string] };
}
