import type { IDataObject } from 'n8n-workflow';

/** A JSON object: not null, not an array. */
export const isPlainObject = (value: unknown): value is IDataObject =>
	typeof value === 'object' && value !== null && !Array.isArray(value);
