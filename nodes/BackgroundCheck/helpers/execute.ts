import type {
	IBinaryKeyData,
	IDataObject,
	IExecuteFunctions,
	INode,
	INodeExecutionData,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { isPlainObject, wholeNumberIn } from '../../shared/values';

/** An output item with a file (a downloaded PDF) beside its JSON. */
export class FileItem {
	constructor(
		readonly json: IDataObject,
		readonly binary: IBinaryKeyData,
	) {}
}

/** What one input item produced: one output item, or several (a list operation), or one with a file. */
export type ItemResult = IDataObject | IDataObject[] | FileItem;

/**
 * Makes sure an error reaching the user is a node error that points at the item it came from. Errors from
 * the transport and the validators already are; anything else (a bug, an unexpected shape) is wrapped.
 */
export function asNodeError(
	node: INode,
	error: unknown,
	itemIndex: number,
): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		if (error.context.itemIndex === undefined) error.context.itemIndex = itemIndex;
		return error;
	}
	return new NodeOperationError(node, error as Error, { itemIndex });
}

/** Upper bound of "Concurrent Requests" (Options of the reads and of the bulk writes). */
export const MAX_CONCURRENCY = 100;

/**
 * "Concurrent Requests" when the option is not set, for reads and bulk writes alike: the first item still
 * runs alone (one token exchange), a write is still sent once, and the transport pauses and slows every item
 * of the run together when the API answers 429 or 503 with Retry-After (see apiRequest). The figures behind
 * the number are in docs/benchmarks.md (section 2).
 */
export const DEFAULT_CONCURRENCY = 50;

export interface RunForEachItemOptions {
	/** How many items may be running at the same time; 1 (the default) runs them one after the other. */
	concurrency?: number;
	/**
	 * The operation changes something at the API. A failure that stops the run (no Continue On Fail) then
	 * also says which items the API carried out before it stopped: n8n keeps no output of a failed node, and
	 * running the workflow again would send those items again.
	 */
	write?: boolean;
}

/**
 * Runs `operation` once per input item and links every output item to its input item; the output is in input
 * order whatever the order in which items finish. With "Continue On Fail" on, a failing item yields
 * `{ error }` in its place and the other items still run; nothing is retried here.
 *
 * With `concurrency` above 1, the first item runs alone (so a credential without a stored token is exchanged
 * once, not once per request in flight), then up to `concurrency` items run at a time, each starting as soon
 * as a slot is free (the pause and pace after the API pushed back are the transport's, see apiRequest).
 * Without "Continue On Fail", the first failure stops new items from starting; the items already running
 * finish, and the error of the lowest failing item is thrown, the same item that would have stopped a
 * one-at-a-time run.
 */
export async function runForEachItem(
	this: IExecuteFunctions,
	operation: (itemIndex: number) => Promise<ItemResult>,
	options: RunForEachItemOptions = {},
): Promise<INodeExecutionData[]> {
	const items = this.getInputData();
	const concurrency = Math.min(Math.max(Math.floor(options.concurrency ?? 1), 1), MAX_CONCURRENCY);
	const outputOf = (itemIndex: number, result: ItemResult): INodeExecutionData[] =>
		result instanceof FileItem
			? [{ json: result.json, binary: result.binary, pairedItem: { item: itemIndex } }]
			: this.helpers.constructExecutionMetaData(this.helpers.returnJsonArray(result), {
					itemData: { item: itemIndex },
				});
	const errorItem = (
		nodeError: NodeApiError | NodeOperationError,
		itemIndex: number,
	): INodeExecutionData => ({
		json: {
			error: nodeError.message,
			...(nodeError.description ? { errorDescription: nodeError.description } : {}),
		},
		pairedItem: { item: itemIndex },
	});
	const outputs: INodeExecutionData[][] = new Array(items.length);
	const stopWith = (error: NodeApiError | NodeOperationError): never => {
		if (options.write) {
			const done = outputs.flatMap((output, itemIndex) => (output ? [itemIndex] : []));
			const note = carriedOutNote(done, items.length);
			if (note !== undefined)
				error.description = error.description ? `${error.description} ${note}` : note;
		}
		throw error;
	};

	if (concurrency === 1 || items.length <= 1) {
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			try {
				outputs[itemIndex] = outputOf(itemIndex, await operation(itemIndex));
			} catch (error) {
				const nodeError = asNodeError(this.getNode(), error, itemIndex);
				if (!this.continueOnFail()) stopWith(nodeError);
				outputs[itemIndex] = [errorItem(nodeError, itemIndex)];
			}
		}
		return outputs.flat();
	}

	let failure: { itemIndex: number; error: NodeApiError | NodeOperationError } | undefined;
	const runItem = async (itemIndex: number) => {
		try {
			outputs[itemIndex] = outputOf(itemIndex, await operation(itemIndex));
		} catch (error) {
			const nodeError = asNodeError(this.getNode(), error, itemIndex);
			if (this.continueOnFail()) outputs[itemIndex] = [errorItem(nodeError, itemIndex)];
			else if (failure === undefined || itemIndex < failure.itemIndex)
				failure = { itemIndex, error: nodeError };
		}
	};
	await runItem(0);
	let next = 1;
	const worker = async () => {
		while (failure === undefined && next < items.length) await runItem(next++);
	};
	await Promise.all(Array.from({ length: Math.min(concurrency, items.length - 1) }, worker));
	if (failure !== undefined) stopWith(failure.error);
	return outputs.flat();
}

/** "Items 0-11, 13 of 40 ...": the items a stopped write run had carried out, as ranges; none: undefined. */
export function carriedOutNote(itemIndexes: number[], itemCount: number): string | undefined {
	if (itemIndexes.length === 0) return undefined;
	const ranges: string[] = [];
	for (let i = 0; i < itemIndexes.length; i++) {
		const first = itemIndexes[i];
		while (i + 1 < itemIndexes.length && itemIndexes[i + 1] === itemIndexes[i] + 1) i++;
		ranges.push(first === itemIndexes[i] ? `${first}` : `${first}-${itemIndexes[i]}`);
	}
	const which = itemIndexes.length === 1 ? 'item' : 'items';
	return `Before the node stopped, the API carried out ${which} ${ranges.join(', ')} (${itemIndexes.length} of ${itemCount}); running the workflow again sends them again.`;
}

/**
 * runForEachItem for a read (GET) operation: as many items at a time as its Concurrent Requests option says
 * ({@link readConcurrency}, checked before any request).
 */
export async function runReadForEachItem(
	this: IExecuteFunctions,
	read: (itemIndex: number) => Promise<ItemResult>,
): Promise<INodeExecutionData[]> {
	const concurrency = readConcurrency.call(this);
	return await runForEachItem.call(this, read, { concurrency });
}

/**
 * runForEachItem for a write that offers Concurrent Requests: different items' writes go side by side, and
 * each is still sent once (apiRequest sends a write again only when the API pushed back on it: 429, or 503
 * with Retry-After, which say it was not carried out).
 */
export async function runWriteForEachItem(
	this: IExecuteFunctions,
	write: (itemIndex: number) => Promise<ItemResult>,
	optionsCollection = 'options',
): Promise<INodeExecutionData[]> {
	const concurrency = readConcurrency.call(this, optionsCollection);
	return await runForEachItem.call(this, write, { concurrency, write: true });
}

/**
 * The "Concurrent Requests" option (in the Options collection named `optionsCollection`): a whole number from
 * 1 to MAX_CONCURRENCY, DEFAULT_CONCURRENCY when not set.
 */
export function readConcurrency(this: IExecuteFunctions, optionsCollection = 'options'): number {
	const value = this.getNodeParameter(`${optionsCollection}.concurrency`, 0, DEFAULT_CONCURRENCY);
	const concurrency = wholeNumberIn(value, 1, MAX_CONCURRENCY);
	if (concurrency === undefined) {
		throw new NodeOperationError(
			this.getNode(),
			`Concurrent Requests must be a whole number from 1 to ${MAX_CONCURRENCY}`,
			{
				description: `It is ${JSON.stringify(value)}. Use 1 to send one item at a time.`,
			},
		);
	}
	return concurrency;
}

/**
 * The output of a call answering one record. Some writes answer with no body: when the answer
 * is empty or not an object, the item says what was done instead of being empty.
 */
export function asRecord(response: unknown, whenNoRecord: IDataObject): IDataObject {
	if (isPlainObject(response)) return response;
	return response === undefined || response === null || response === ''
		? whenNoRecord
		: { ...whenNoRecord, response: response as IDataObject[string] };
}
