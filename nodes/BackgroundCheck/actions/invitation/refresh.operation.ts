import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { withStatusHints, writeDone } from '../../helpers/answers';
import { runForEachItem } from '../../helpers/execute';
import { caseIdLocator } from '../../helpers/fields';
import { readCaseId } from '../../helpers/parameters';
import { apiPath, apiRequest } from '../../../shared/transport';

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
	return await runForEachItem.call(
		this,
		async (itemIndex) => {
			const caseId = readCaseId.call(this, itemIndex);
			const response = await withStatusHints(
				apiRequest.call(this, 'PUT', apiPath`/case/id/${caseId}/action/refreshinvite`, {
					itemIndex,
				}),
				{ 422: 'The candidate already began or finished onboarding.' },
			);
			return writeDone(
				this.getNode(),
				response,
				{ caseId, refreshed: true },
				{
					endpoint: 'PUT /case/id/{caseId}/action/refreshinvite',
					itemIndex,
					checkWith: 'Invitation > Get',
				},
			);
		},
		{ write: true },
	);
}
