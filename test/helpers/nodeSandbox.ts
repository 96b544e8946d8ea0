/** What every integration test of the Background Check node shares: a sandbox, credentials, request log. */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { startSandbox, type RequestLogEntry, type Sandbox } from '../../sandbox';
import { CredentialStore, runNode, type RunSetup } from './executeContext';

export interface NodeSandbox {
	sandbox: Sandbox;
	/** A fresh credential (no token yet) for demo group 0 (East) or 1 (West). */
	credentials(group?: number): CredentialStore;
	/** Runs the node with a fresh East credential unless one is given. */
	run(
		parameters: IDataObject,
		options?: Partial<Omit<RunSetup, 'parameters'>>,
	): Promise<INodeExecutionData[]>;
	/** The API requests the sandbox received since the last reset, token exchanges left out. */
	apiRequests(): RequestLogEntry[];
	/** Every request, token exchanges included. */
	allRequests(): RequestLogEntry[];
}

export async function startNodeSandbox(): Promise<NodeSandbox> {
	const sandbox = await startSandbox({ port: 0, timeScale: 0 });
	const credentials = (group = 0) =>
		CredentialStore.forSandbox(sandbox.url, sandbox.demoCredentials[group]);
	return {
		sandbox,
		credentials,
		run: async (parameters, options = {}) =>
			await runNode({ credentials: credentials(), ...options, parameters }),
		apiRequests: () => sandbox.admin.requestLog().filter((entry) => entry.path !== '/auth/api'),
		allRequests: () => sandbox.admin.requestLog(),
	};
}

/**
 * The sandbox of one test file: started before its tests, reset before each one, stopped after them. Call it
 * at the top level of the file; the object it returns is filled in before the first test runs.
 */
export function useNodeSandbox(): NodeSandbox {
	const context = {} as NodeSandbox;
	beforeAll(async () => {
		Object.assign(context, await startNodeSandbox());
	});
	afterAll(async () => {
		await context.sandbox?.stop();
	});
	beforeEach(() => {
		context.sandbox.admin.reset();
	});
	return context;
}

let candidateNumber = 0;

/** Parameters of a minimal valid Case > Create with a fresh candidate email. */
export function newCaseParameters(overrides: IDataObject = {}): IDataObject {
	candidateNumber++;
	return {
		resource: 'case',
		operation: 'create',
		candidateFirstName: 'Ann',
		candidateLastName: "O'Neil",
		candidateEmail: `candidate${candidateNumber}-${Date.now()}@example.com`,
		services: ['29cd44ab-a8f0-4b27-868e-dc4be88ff541'],
		...overrides,
	};
}

/** Creates a case through the node and returns the API's answer. */
export async function createCase(
	context: NodeSandbox,
	overrides: IDataObject = {},
): Promise<IDataObject> {
	const [created] = await context.run(newCaseParameters(overrides));
	if (created.json.error) throw new Error(`case create failed: ${JSON.stringify(created.json)}`);
	return created.json;
}
