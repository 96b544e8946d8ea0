import type { IDataObject } from 'n8n-workflow';

/** A JSON object: not null, not an array. */
export const isPlainObject = (value: unknown): value is IDataObject =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A whole number from `min` to `max` as a node parameter holds one (a number, or its digits in a string from
 * an expression); undefined for anything else.
 */
export function wholeNumberIn(value: unknown, min: number, max: number): number | undefined {
	const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	return typeof number === 'number' && Number.isInteger(number) && number >= min && number <= max
		? number
		: undefined;
}
