/**
 * IExecuteFunctions / ILoadOptionsFunctions for running the Background Check node's operations without
 * n8n, as n8n 2.x runs them:
 * - parameters: the values given, plus the defaults of every parameter the node shows for them (n8n fills
 *   displayed defaults before execution); dotted paths; resource locators give `{ __rl, mode, value }`, or
 *   their value with `extractValue`;
 * - credentials: `getCredentials` and `httpRequestWithAuthentication` as n8n-core does them for a credential
 *   with `preAuthentication`: load the stored credential (counted in `loads`) unless the node passes one as
 *   `credentialsDecrypted`, exchange when the expirable `token` is empty, `authenticate`, send with axios,
 *   and after a 401 exchange once more and retry once; an exchange writes the token into the credential
 *   object in use and into the store; failures reach the node wrapped in a NodeApiError;
 * - binary data held in memory (base64 in `binary[name].data`), with n8n-core's assertBinaryData messages;
 * - returnJsonArray / constructExecutionMetaData with n8n-core's semantics.
 */
import type {
	IBinaryData,
	IDataObject,
	IDisplayOptions,
	IExecuteFunctions,
	ILoadOptionsFunctions,
	INode,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	IPairedItemData,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { BackgroundCheck } from '../../nodes/BackgroundCheck/BackgroundCheck.node';
import { authenticatedRequester, CredentialStore, httpRequest } from './n8nCore';

export { CredentialStore, httpRequest } from './n8nCore';

export const NODE_TYPE = 'n8n-nodes-background-check.backgroundCheck';
const CREDENTIAL_TYPE = 'backgroundCheckApi';

// ---------------------------------------------------------------------------------------------------------
// Parameters, as n8n resolves them for one node

function isShown(displayOptions: IDisplayOptions | undefined, values: IDataObject): boolean {
	if (!displayOptions) return true;
	for (const [key, allowed] of Object.entries(displayOptions.show ?? {})) {
		if (!(allowed as unknown[]).includes(values[key])) return false;
	}
	for (const [key, refused] of Object.entries(displayOptions.hide ?? {})) {
		if ((refused as unknown[]).includes(values[key])) return false;
	}
	return true;
}

/** The given values plus the default of every top-level parameter the node shows for them. */
export function resolveParameters(properties: INodeProperties[], given: IDataObject): IDataObject {
	const values: IDataObject = { ...given };
	// Defaults that decide what is shown (resource, operation, returnAll) are settled first.
	for (let pass = 0; pass < 3; pass++) {
		for (const property of properties) {
			if (values[property.name] !== undefined) continue;
			if (!isShown(property.displayOptions, values)) continue;
			const value = structuredClone(property.default) as IDataObject[string];
			// The editor stores a resource locator's value with its `__rl` marker.
			values[property.name] =
				property.type === 'resourceLocator' ? { __rl: true, ...(value as IDataObject) } : value;
		}
	}
	return values;
}

function valueAt(parameters: IDataObject, path: string): unknown {
	let value: unknown = parameters;
	for (const part of path.split('.')) value = (value as IDataObject | undefined)?.[part];
	return value;
}

const isResourceLocatorValue = (
	value: unknown,
): value is { __rl: true; mode: string; value: unknown } =>
	typeof value === 'object' && value !== null && (value as { __rl?: unknown }).__rl === true;

/** A resource locator value as the editor stores it. */
export const byId = (value: string) => ({ __rl: true, mode: 'id', value });
export const fromList = (value: string) => ({ __rl: true, mode: 'list', value });

/**
 * Stands in for an n8n expression such as `={{ $json.caseId }}`: evaluated for each item when the node
 * reads the parameter.
 */
export type ItemExpression = (item: INodeExecutionData, itemIndex: number) => unknown;

function parameterGetter(
	node: INode,
	parameters: IDataObject,
	items: INodeExecutionData[] = [{ json: {} }],
) {
	return (
		name: string,
		fallback?: unknown,
		options?: { extractValue?: boolean },
		itemIndex = 0,
	): unknown => {
		const raw = valueAt(parameters, name);
		const value =
			typeof raw === 'function'
				? (raw as ItemExpression)(items[itemIndex], itemIndex)
				: structuredClone(raw);
		if (value === undefined) {
			if (fallback !== undefined) return fallback;
			throw new NodeOperationError(node, `Could not get parameter "${name}"`);
		}
		return options?.extractValue && isResourceLocatorValue(value) ? value.value : value;
	};
}

// ---------------------------------------------------------------------------------------------------------
// Contexts

export interface RunSetup {
	/** Node parameters; the others take the defaults the node shows for them. */
	parameters: IDataObject;
	/** Input items; one empty item when omitted (a manual trigger's output). */
	items?: INodeExecutionData[];
	credentials: CredentialStore;
	continueOnFail?: boolean;
}

function nodeFor(parameters: IDataObject): INode {
	return {
		id: 'background-check-node',
		name: 'Background Check',
		type: NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: parameters as INode['parameters'],
	};
}

function binaryOf(
	node: INode,
	items: INodeExecutionData[],
	itemIndex: number,
	propertyName: string,
): IBinaryData {
	const binary = items[itemIndex]?.binary;
	if (binary === undefined) {
		throw new NodeOperationError(
			node,
			`This operation expects the node's input data to contain a binary file '${propertyName}', but none was found [item ${itemIndex}]`,
			{ itemIndex, description: 'Make sure that the previous node outputs a binary file' },
		);
	}
	if (binary[propertyName] === undefined) {
		throw new NodeOperationError(
			node,
			`The item has no binary field '${propertyName}' [item ${itemIndex}]`,
			{
				itemIndex,
				description:
					'Check that the parameter where you specified the input binary field name is correct, and that it matches a field in the binary input',
			},
		);
	}
	return binary[propertyName];
}

function returnJsonArray(jsonData: IDataObject | IDataObject[]): INodeExecutionData[] {
	const entries = Array.isArray(jsonData) ? jsonData : [jsonData];
	return entries.map((entry) =>
		entry?.json ? (entry as unknown as INodeExecutionData) : { json: entry },
	);
}

function constructExecutionMetaData(
	inputData: INodeExecutionData[],
	options: { itemData: IPairedItemData | IPairedItemData[] },
): INodeExecutionData[] {
	return inputData.map(({ json, ...rest }) => ({ json, pairedItem: options.itemData, ...rest }));
}

export function createExecuteContext(
	setup: RunSetup,
	nodeType: INodeType = new BackgroundCheck(),
): IExecuteFunctions {
	const parameters = resolveParameters(nodeType.description.properties, setup.parameters);
	const node = nodeFor(parameters);
	const items = setup.items ?? [{ json: {} }];
	const getParameter = parameterGetter(node, parameters, items);
	const context = {
		getNode: () => node,
		getInputData: () => items,
		continueOnFail: () => setup.continueOnFail ?? false,
		getNodeParameter: (
			name: string,
			itemIndex: number,
			fallback?: unknown,
			options?: { extractValue?: boolean },
		) => getParameter(name, fallback, options, itemIndex),
		getCredentials: async (type: string) => {
			if (type !== CREDENTIAL_TYPE)
				throw new NodeOperationError(
					node,
					`Node "${node.name}" does not have any credentials of type "${type}" set`,
				);
			return setup.credentials.load();
		},
		helpers: {
			httpRequest,
			httpRequestWithAuthentication: authenticatedRequester(node, {
				[CREDENTIAL_TYPE]: setup.credentials,
			}),
			assertBinaryData: (itemIndex: number, propertyName: string) =>
				binaryOf(node, items, itemIndex, propertyName),
			getBinaryDataBuffer: async (itemIndex: number, propertyName: string) =>
				Buffer.from(binaryOf(node, items, itemIndex, propertyName).data, 'base64'),
			returnJsonArray,
			constructExecutionMetaData,
		},
	};
	return context as unknown as IExecuteFunctions;
}

/** Runs the node once over the input items, as a workflow execution does; returns its one output. */
export async function runNode(setup: RunSetup): Promise<INodeExecutionData[]> {
	const nodeType = new BackgroundCheck();
	const [output] = await nodeType.execute!.call(createExecuteContext(setup, nodeType));
	return output;
}

/** The context n8n gives a list search method while the user edits the node. */
export function createLoadOptionsContext(
	setup: Omit<RunSetup, 'items' | 'continueOnFail'>,
): ILoadOptionsFunctions {
	const nodeType = new BackgroundCheck();
	const parameters = resolveParameters(nodeType.description.properties, setup.parameters);
	const node = nodeFor(parameters);
	const getParameter = parameterGetter(node, parameters);
	const context = {
		getNode: () => node,
		getNodeParameter: (name: string, fallback?: unknown, options?: { extractValue?: boolean }) =>
			getParameter(name, fallback, options),
		getCurrentNodeParameter: (name: string, options?: { extractValue?: boolean }) =>
			getParameter(name, null, options) ?? undefined,
		getCurrentNodeParameters: () => parameters,
		getCredentials: async () => setup.credentials.load(),
		helpers: {
			httpRequest,
			httpRequestWithAuthentication: authenticatedRequester(node, {
				[CREDENTIAL_TYPE]: setup.credentials,
			}),
		},
	};
	return context as unknown as ILoadOptionsFunctions;
}

/** An input item carrying a file as binary data, the way a Read File or HTTP Request node outputs it. */
export function itemWithFile(
	fileName: string,
	content: Buffer,
	mimeType: string,
	property = 'data',
): INodeExecutionData {
	const extension = fileName.includes('.') ? fileName.split('.').pop() : undefined;
	return {
		json: { fileName },
		binary: {
			[property]: {
				data: content.toString('base64'),
				mimeType,
				fileName,
				fileExtension: extension,
				fileSize: `${content.length} B`,
			},
		},
	};
}
