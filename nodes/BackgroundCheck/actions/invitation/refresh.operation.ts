import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runCaseAction } from '../../helpers/caseAction';
import { caseIdLocator } from '../../helpers/fields';

const properties: INodeProperties[] = [caseIdLocator];

export const description = updateDisplayOptions(
	{ show: { resource: ['invitation'], operation: ['refresh'] } },
	properties,
);

/**
 * PUT /case/id/{caseId}/action/refreshinvite, with no body: the invitation's expiry is moved so that the
 * candidate has 14 days again (the days added are those missing to 14); the existing invitation stays the one
 * in use. The API answers 200 with no body, or 422 when the candidate already began or finished onboarding.
 * A write: sent once, one item after the other.
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runCaseAction.call(this, {
		endpoint: 'PUT /case/id/{caseId}/action/refreshinvite',
		done: { refreshed: true },
		checkWith: 'Invitation > Get',
		hints: { 422: 'The candidate already began or finished onboarding.' },
	});
}
