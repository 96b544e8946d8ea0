/** What every integration test of the Background Check node shares: a sandbox, credentials, request log. */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { startSandbox, type RequestLogEntry, type Sandbox } from '../../sandbox';
import { byId, CredentialStore, runNode, type RunSetup } from './executeContext';

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

/** Sandbox packages (sandbox/fixtures.ts). */
export const BASIC_CRIMINAL = 'pkg-basic-criminal';
export const HEALTHCARE = 'pkg-healthcare';
export const DRIVER = 'pkg-driver';

let candidateNumber = 0;

/**
 * Parameters of a minimal valid Case > Create (the Basic Criminal package, candidate onboarding flow) with a
 * fresh candidate email; `overrides` replace parameters.
 */
export function caseParameters(overrides: IDataObject = {}): IDataObject {
	candidateNumber++;
	return {
		resource: 'case',
		operation: 'create',
		packageId: byId(BASIC_CRIMINAL),
		candidateFirstName: 'Ann',
		candidateLastName: "O'Neil",
		candidateEmail: `candidate${candidateNumber}-${Date.now()}@example.com`,
		...overrides,
	};
}

export interface OrderedCase extends IDataObject {
	/** The new case's ID (the answer's caseId). */
	id: string;
	caseId: string;
	caseInvitationId: string;
	email: string;
}

/** Orders a case through the node: its ID, invitation ID and candidate email. */
export async function orderCase(
	context: NodeSandbox,
	overrides: IDataObject = {},
): Promise<OrderedCase> {
	const parameters = caseParameters(overrides);
	const [created] = await context.run(parameters);
	if (created.json.error) throw new Error(`case create failed: ${JSON.stringify(created.json)}`);
	const { caseId, caseInvitationId } = created.json as { caseId: string; caseInvitationId: string };
	return { id: caseId, caseId, caseInvitationId, email: parameters.candidateEmail as string };
}
