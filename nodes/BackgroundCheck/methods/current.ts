import type { ILoadOptionsFunctions } from 'n8n-workflow';

/** Characters no ID of this API holds (helpers/inputChecks.ts says why). */
const NOT_AN_ID = /[\s/\\?#%\p{Cc}]/u;

/**
 * The ID a parameter of the node being edited holds (a resource locator's value in any mode), or undefined
 * while it is empty, an expression not resolved yet, or not an ID: the pickers then offer what needs no ID.
 */
export function currentId(context: ILoadOptionsFunctions, parameter: string): string | undefined {
	let value: unknown;
	try {
		value = context.getCurrentNodeParameter(parameter, { extractValue: true });
	} catch {
		return undefined;
	}
	if (typeof value !== 'string') return undefined;
	const id = value.trim();
	if (id === '' || id === '.' || id === '..' || id.startsWith('=') || NOT_AN_ID.test(id))
		return undefined;
	return id;
}
