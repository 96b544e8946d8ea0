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
 * - returnJsonArray / constructExecutionMetaData with n8n-core's semantics;
 * - a recording fake of the request helpers (createRecordingContext, runRecorded): every request recorded and
 *   answered by the test, for checks of what the node sends without a sandbox.
 */
import type {
	IAdditionalCredentialOptions,
	IBinaryData,
	IDataObject,
	IHttpRequestOptions,
	IDisplayOptions,
	IExecuteFunctions,
	ILoadOptionsFunctions,
	INode,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	IPairedItemData,
} from 'n8n-workflow';
import { NodeHelpers, NodeOperationError } from 'n8n-workflow';

import { BackgroundCheck } from '../../nodes/BackgroundCheck/BackgroundCheck.node';
import { authenticatedRequester, CredentialStore, httpRequest } from './n8nCore';

export { CredentialStore, httpRequest } from './n8nCore';

export const NODE_TYPE = 'n8n-nodes-background-check.backgroundCheck';
const CREDENTIAL_TYPE = 'backgroundCheckApi';

// ---------------------------------------------------------------------------------------------------------
// Parameters, as n8n resolves them for one node

function isShown(
	displayOptions: IDisplayOptions | undefined,
	values: IDataObject,
	typeVersion: number,
): boolean {
	if (!displayOptions) return true;
	for (const [key, allowed] of Object.entries(displayOptions.show ?? {})) {
		// `@version` is the node's version, with n8n's conditions (e.g. `{ _cnd: { gte: 1.1 } }`).
		if (key === '@version') {
			if (!NodeHelpers.checkConditions(allowed ?? [], [typeVersion])) return false;
			continue;
		}
		if (!(allowed as unknown[]).includes(values[key])) return false;
	}
	for (const [key, refused] of Object.entries(displayOptions.hide ?? {})) {
		if ((refused as unknown[]).includes(values[key])) return false;
	}
	return true;
}

/** The given values plus the default of every top-level parameter the node shows for them (at that version). */
export function resolveParameters(
	properties: INodeProperties[],
	given: IDataObject,
	typeVersion = 1,
): IDataObject {
	const values: IDataObject = { ...given };
	// Defaults that decide what is shown (resource, operation, returnAll) are settled first.
	for (let pass = 0; pass < 3; pass++) {
		for (const property of properties) {
			if (values[property.name] !== undefined) continue;
			if (!isShown(property.displayOptions, values, typeVersion)) continue;
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
	/** The node's version, as saved in the workflow; 1 when omitted. */
	typeVersion?: number;
}

function nodeFor(parameters: IDataObject, typeVersion = 1): INode {
	return {
		id: 'background-check-node',
		name: 'Background Check',
		type: NODE_TYPE,
		typeVersion,
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

/** n8n-core's prepareBinaryData in its default (in-memory) mode: the bytes as base64 with what they are. */
async function prepareBinaryData(
	data: Buffer,
	filePath?: string,
	mimeType?: string,
): Promise<IBinaryData> {
	const fileName = filePath?.split(/[\\/]/).pop();
	const extension = fileName?.includes('.') ? fileName.split('.').pop()?.toLowerCase() : undefined;
	return {
		data: data.toString('base64'),
		mimeType: mimeType ?? 'application/octet-stream',
		...(fileName ? { fileName } : {}),
		...(extension ? { fileExtension: extension } : {}),
		fileSize: `${Math.round((data.length / 1024) * 10) / 10} kB`,
	};
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
	const parameters = resolveParameters(
		nodeType.description.properties,
		setup.parameters,
		setup.typeVersion,
	);
	const node = nodeFor(parameters, setup.typeVersion);
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
			prepareBinaryData,
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

// ---------------------------------------------------------------------------------------------------------
// A recording fake of n8n's request helpers, for checks of what the node sends (no sandbox, no network)

/** The base URL of the credential a recording context uses. */
export const RECORDING_BASE_URL = 'https://api.recording.test';

/** One request the node handed to n8n's request helpers. */
export interface RecordedRequest {
	method: string;
	url: string;
	/** The path under RECORDING_BASE_URL (the whole URL for another host), without the query. */
	path: string;
	query: Record<string, string>;
	headers: Record<string, string>;
	body: unknown;
	/** Sent with httpRequestWithAuthentication (the credential's bearer token), not the plain httpRequest. */
	authenticated: boolean;
}

/** The answer to a recorded request: status 200 and no body unless given. */
export type RecordingAnswer = (request: RecordedRequest) => {
	status?: number;
	body?: unknown;
	headers?: Record<string, string>;
};

function recordRequest(
	options: IHttpRequestOptions,
	authenticated: boolean,
	authorization?: string,
): RecordedRequest {
	const url = new URL(options.url, options.baseURL);
	const query: Record<string, string> = {};
	for (const [key, value] of url.searchParams) query[key] = value;
	for (const [key, value] of Object.entries(options.qs ?? {}))
		if (value !== undefined) query[key] = String(value);
	const headers: Record<string, string> = {};
	for (const [key, value] of Object.entries(options.headers ?? {})) headers[key] = String(value);
	if (authorization !== undefined) headers.Authorization = authorization;
	const base = new URL(RECORDING_BASE_URL);
	return {
		method: options.method ?? 'GET',
		url: `${url.origin}${url.pathname}`,
		path: url.origin === base.origin ? url.pathname : `${url.origin}${url.pathname}`,
		query,
		headers,
		body: options.body,
		authenticated,
	};
}

function recordingHelpers(requests: RecordedRequest[], answer: RecordingAnswer) {
	const respond = (options: IHttpRequestOptions, request: RecordedRequest): unknown => {
		requests.push(request);
		const { status = 200, body, headers = {} } = answer(request);
		if (options.returnFullResponse) return { statusCode: status, body, headers, statusMessage: '' };
		if (status >= 400 && !options.ignoreHttpStatusErrors)
			throw Object.assign(new Error(`Request failed with status code ${status}`), {
				response: { status, data: body },
			});
		return body;
	};
	return {
		httpRequest: async (options: IHttpRequestOptions) =>
			respond(options, recordRequest(options, false)),
		httpRequestWithAuthentication: async (
			_type: string,
			options: IHttpRequestOptions,
			additional?: IAdditionalCredentialOptions,
		) => {
			const token = additional?.credentialsDecrypted?.data?.token;
			return respond(options, recordRequest(options, true, `Bearer ${String(token)}`));
		},
	};
}

/** A credential that holds a token already, so the node sends its requests without an exchange. */
function recordingCredentials(): CredentialStore {
	return new CredentialStore({
		environment: 'custom',
		customBaseUrl: RECORDING_BASE_URL,
		token: 'recorded-token',
		apiKey: 'recorded-api-key',
		clientAccessToken: 'recorded-client-access-token',
	});
}

/**
 * An execute context whose request helpers record every request and answer it with `answer` (n8n's helpers
 * otherwise as createExecuteContext has them): what the node sends, method, path, query, headers and body.
 */
export function createRecordingContext(
	setup: Omit<RunSetup, 'credentials'> & { answer: RecordingAnswer },
): { context: IExecuteFunctions; requests: RecordedRequest[] } {
	const requests: RecordedRequest[] = [];
	const context = createExecuteContext({ ...setup, credentials: recordingCredentials() });
	Object.assign(context.helpers, recordingHelpers(requests, setup.answer));
	return { context, requests };
}

/** Runs the node once with a recording context; its output and the requests it sent. */
export async function runRecorded(
	setup: Omit<RunSetup, 'credentials'> & { answer: RecordingAnswer },
): Promise<{ output: INodeExecutionData[]; requests: RecordedRequest[] }> {
	const nodeType = new BackgroundCheck();
	const { context, requests } = createRecordingContext(setup);
	const [output] = await nodeType.execute!.call(context);
	return { output, requests };
}

/** A list search / load options context whose request helpers record and answer, as createRecordingContext. */
export function createRecordingLoadOptionsContext(setup: {
	parameters: IDataObject;
	answer: RecordingAnswer;
}): { context: ILoadOptionsFunctions; requests: RecordedRequest[] } {
	const requests: RecordedRequest[] = [];
	const context = createLoadOptionsContext({
		parameters: setup.parameters,
		credentials: recordingCredentials(),
	});
	Object.assign(context.helpers, recordingHelpers(requests, setup.answer));
	return { context, requests };
}
