import type { IDataObject, INode } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { isPlainObject } from '../../shared/values';
import { apiTextExcerpt } from '../../shared/transport';
import { itemLabel } from './inputChecks';

/**
 * What the API may answer a write with that the reference defines no body for. n8n's request helper sends
 * `json: true`, so axios tries JSON.parse on every answer and keeps the text when that fails: no body comes
 * back as `''` (or undefined), and Archive's `text/plain` "success" as the string `'success'`.
 */
const DONE_TEXTS = new Set(['', 'success', 'ok']);

/** What a 404 of GET /invitation/case/{caseId} means (Invitation > Get, and Resend reading the email). */
export const NO_INVITATION =
	'The case has no invitation (e.g. it was created with customer-provided data).';

/** Where a write was sent, for the messages: `POST /case/id/{caseId}/cancel` and what to check it with. */
export interface WriteRequest {
	endpoint: string;
	itemIndex: number;
	/** The operation that shows whether the write was carried out, e.g. `Case > Get`. */
	checkWith: string;
}

/**
 * The output item of a write the API answers with no body or a "success" text: `done`, which says what was
 * done. An undocumented JSON object is kept under `response`. Any other body (an HTML page, other text, a
 * list) is not an answer of this API: a clear error, saying that the write, sent once, may have been carried
 * out.
 */
export function writeDone(
	node: INode,
	response: unknown,
	done: IDataObject,
	request: WriteRequest,
): IDataObject {
	if (response === undefined || response === null) return done;
	if (typeof response === 'string' && DONE_TEXTS.has(response.trim().toLowerCase())) return done;
	if (isPlainObject(response))
		return Object.keys(response).length === 0 ? done : { ...done, response };
	throw new NodeOperationError(
		node,
		`The API answered ${request.endpoint} with an unexpected body ${itemLabel(request.itemIndex)}`,
		{
			itemIndex: request.itemIndex,
			description: `It answered: ${apiTextExcerpt(
				typeof response === 'string' ? response : JSON.stringify(response),
				[],
			)}. The request was sent once and may have been carried out: check with ${request.checkWith} before running it again.`,
		},
	);
}

/** The object the answer of a read holds under `key` (e.g. `{ candidate }`), or an error naming what is missing. */
export function recordIn(
	node: INode,
	response: unknown,
	key: string,
	request: { endpoint: string; itemIndex: number },
): IDataObject {
	const record = isPlainObject(response) ? response[key] : undefined;
	if (isPlainObject(record)) return record;
	throw new NodeOperationError(
		node,
		`The API answered ${request.endpoint} without ${key} ${itemLabel(request.itemIndex)}`,
		{
			itemIndex: request.itemIndex,
			description: `The reference defines the answer as { ${key}: { ... } }; it answered ${answerShape(response)}.`,
		},
	);
}

/** The array the answer of a list read holds under `key`, or an error naming what is missing. */
export function listIn(
	node: INode,
	response: unknown,
	key: string,
	request: { endpoint: string; itemIndex?: number },
): IDataObject[] {
	const list = isPlainObject(response) ? response[key] : undefined;
	if (Array.isArray(list)) return list.filter(isPlainObject);
	const item = request.itemIndex === undefined ? '' : ` ${itemLabel(request.itemIndex)}`;
	throw new NodeOperationError(node, `The API answered ${request.endpoint} without ${key}${item}`, {
		itemIndex: request.itemIndex,
		description: `The reference defines the answer as { ${key}: [ ... ] }; it answered ${answerShape(response)}.`,
	});
}

/** A short, secret-free account of what came back: its type and keys, never its values. */
function answerShape(response: unknown): string {
	if (response === undefined || response === null || response === '') return 'no body';
	if (Array.isArray(response)) return `a list of ${response.length}`;
	if (isPlainObject(response))
		return `an object with ${Object.keys(response).slice(0, 10).join(', ') || 'no keys'}`;
	return `a ${typeof response}`;
}

/**
 * Adds what the reference says a status means for this operation (e.g. a 422 of Begin Processing: the case
 * is not ready) to the error's description; the message stays the API's own text.
 */
export async function withStatusHints<T>(
	request: Promise<T>,
	hints: Partial<Record<number, string>>,
): Promise<T> {
	return await request.catch((error: unknown) => {
		throw withHint(error, hints);
	});
}

function withHint(error: unknown, hints: Partial<Record<number, string>>): unknown {
	if (!(error instanceof NodeApiError)) return error;
	const hint = hints[Number(error.httpCode)];
	if (hint !== undefined)
		error.description = error.description ? `${hint} (${error.description})` : hint;
	return error;
}
