import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { parseJsonObject, requireId } from './inputChecks';

/** Reads and checks a required ID parameter; resource locators give their value, whatever the mode. */
export function readId(
	this: IExecuteFunctions,
	itemIndex: number,
	parameter: string,
	label: string,
): string {
	const value = this.getNodeParameter(parameter, itemIndex, '', { extractValue: true });
	return requireId(this.getNode(), value, label, itemIndex);
}

export function readCaseId(this: IExecuteFunctions, itemIndex: number): string {
	return readId.call(this, itemIndex, 'caseId', 'Case ID');
}

/** Reads a JSON parameter as an object, naming the field when it is not one. */
export function readJsonObject(
	this: IExecuteFunctions,
	itemIndex: number,
	parameter: string,
	label: string,
): IDataObject {
	return parseJsonObject(
		this.getNode(),
		this.getNodeParameter(parameter, itemIndex, '{}'),
		label,
		itemIndex,
	);
}

/** How many results a list operation should return: undefined for "Return All". */
export function readLimit(this: IExecuteFunctions, itemIndex: number): number | undefined {
	if (this.getNodeParameter('returnAll', itemIndex, false) as boolean) return undefined;
	return this.getNodeParameter('limit', itemIndex, 50) as number;
}
