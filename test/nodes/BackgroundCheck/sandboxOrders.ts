/** Case orders through the node against the sandbox, for the action node's integration tests. */
import type { IDataObject } from 'n8n-workflow';

import { byId } from '../../helpers/executeContext';
import { newCaseParameters, type NodeSandbox } from '../../helpers/nodeSandbox';

/** Sandbox packages (sandbox/fixtures.ts). */
export const BASIC_CRIMINAL = 'pkg-basic-criminal';
export const HEALTHCARE = 'pkg-healthcare';
export const DRIVER = 'pkg-driver';

/** Parameters of a minimal valid Case > Create (the Basic Criminal package) with a fresh candidate email. */
export function caseParameters(overrides: IDataObject = {}): IDataObject {
	const parameters = newCaseParameters({ packageId: byId(BASIC_CRIMINAL), ...overrides });
	delete parameters.services;
	return parameters;
}

export interface OrderedCase extends IDataObject {
	/** The new case's ID (the answer's caseId). */
	id: string;
	caseId: string;
	caseInvitationId: string;
	email: string;
}

/** Orders a case through the node; its ID, invitation ID and candidate email. */
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
