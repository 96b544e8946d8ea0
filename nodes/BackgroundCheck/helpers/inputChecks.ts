import type { IDataObject, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { findBodyViolations, type BodyRules } from '../../shared/bodyRules';
import { isPlainObject } from '../../shared/values';

/** How an error names the item it is about, in n8n's own wording. */
export const itemLabel = (itemIndex: number) => `[item ${itemIndex}]`;

export function invalidInput(
	node: INode,
	itemIndex: number,
	message: string,
	description?: string,
): NodeOperationError {
	return new NodeOperationError(node, `${message} ${itemLabel(itemIndex)}`, {
		itemIndex,
		description,
	});
}

/**
 * IDs of this API are GUIDs or readable slugs. Whitespace, slashes, `?`, `#`, `%`, control characters and the
 * dot segments can only come from a mistake (a pasted URL or encoded value, an expression that resolved to a
 * sentence) and could change which endpoint a path points at (`%2e%2e` is `..` to a server that decodes
 * twice), so they are refused before any request.
 */
const MALFORMED_ID_CHARACTER = /[\s/\\?#%\p{Cc}]/u;

/** The trimmed ID, or an error that names the field and the item. */
export function requireId(node: INode, value: unknown, field: string, itemIndex: number): string {
	const text = typeof value === 'number' ? String(value) : value;
	if (typeof text !== 'string' || text.trim() === '') {
		throw invalidInput(
			node,
			itemIndex,
			`${field} is empty`,
			`Enter the ${field}, or map it from a previous node.`,
		);
	}
	const id = text.trim();
	if (id === '.' || id === '..' || MALFORMED_ID_CHARACTER.test(id)) {
		throw invalidInput(
			node,
			itemIndex,
			`${field} "${id}" is not a valid ID`,
			'IDs contain no spaces, slashes, "?", "#", "%" or control characters and are not "." or "..": enter the bare ID, not a URL, a path or an encoded value.',
		);
	}
	return id;
}

/** Splits a comma- or newline-separated list of IDs and checks each one. */
export function requireIdList(
	node: INode,
	value: unknown,
	field: string,
	itemIndex: number,
): string[] {
	const values = Array.isArray(value)
		? value
		: typeof value === 'string'
			? value.split(/[,\n]/)
			: [];
	return values
		.filter((entry) => !(typeof entry === 'string' && entry.trim() === ''))
		.map((entry) => requireId(node, entry, field, itemIndex));
}

/**
 * A JSON field's value as an object. n8n hands over the text as typed, or an object when an expression
 * produced one; both are accepted, anything that is not a JSON object is refused.
 */
export function parseJsonObject(
	node: INode,
	value: unknown,
	field: string,
	itemIndex: number,
): IDataObject {
	if (value === undefined || value === null || (typeof value === 'string' && value.trim() === ''))
		return {};
	let parsed: unknown = value;
	if (typeof value === 'string') {
		try {
			parsed = JSON.parse(value);
		} catch (error) {
			throw invalidInput(
				node,
				itemIndex,
				`${field} is not valid JSON`,
				`${(error as Error).message}. Example: { "key": "value" }`,
			);
		}
	}
	if (!isPlainObject(parsed)) {
		throw invalidInput(
			node,
			itemIndex,
			`${field} must be a JSON object`,
			'Wrap the values in { }, for example { "key": "value" }.',
		);
	}
	if (nestedDeeperThan(parsed, MAX_JSON_DEPTH)) {
		throw invalidInput(
			node,
			itemIndex,
			`${field} is nested more than ${MAX_JSON_DEPTH} levels deep`,
			'No body of this API nests that far; check the expression or text that builds it.',
		);
	}
	return parsed;
}

/** Deeper JSON would overflow the stack of the body checks and of the request's serializer. */
const MAX_JSON_DEPTH = 100;

/** Whether objects and arrays nest more than `limit` levels (the outermost is level 1); walks without recursion. */
function nestedDeeperThan(value: unknown, limit: number): boolean {
	const pending: Array<[unknown, number]> = [[value, 1]];
	while (pending.length > 0) {
		const [current, depth] = pending.pop()!;
		if (current === null || typeof current !== 'object') continue;
		if (depth > limit) return true;
		for (const child of Object.values(current)) pending.push([child, depth + 1]);
	}
	return false;
}

/**
 * The last check on a finished body, JSON-merged fields included: every `staffingAgency`, wherever it sits,
 * follows the API's rule, and with `{ names: true }` (case creation: spec 7 names case creation, aliases and
 * the candidate-info update) so does every name field.
 */
export function checkBody(
	node: INode,
	body: unknown,
	itemIndex: number,
	rules: BodyRules = { names: false },
): void {
	const [first, ...others] = findBodyViolations(body, rules);
	if (!first) return;
	throw invalidInput(
		node,
		itemIndex,
		first.message,
		others.length > 0
			? `Also: ${others.map((violation) => violation.message).join('; ')}`
			: undefined,
	);
}
