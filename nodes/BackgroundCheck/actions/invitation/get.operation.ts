import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { NO_INVITATION, recordIn, withStatusHints } from '../../helpers/answers';
import { runReadForEachItem } from '../../helpers/execute';
import { caseIdLocator, concurrencyOptions } from '../../helpers/fields';
import { readCaseId } from '../../helpers/parameters';
import { outputParameters, readOutput, shapeOutput } from '../../helpers/simplify';
import { apiPath, apiRequest } from '../../../shared/transport';

const properties: INodeProperties[] = [
	caseIdLocator,
	...outputParameters('invitation'),
	concurrencyOptions,
];

export const description = updateDisplayOptions(
	{ show: { resource: ['invitation'], operation: ['get'] } },
	properties,
);

/**
 * GET /invitation/case/{caseId}, which answers `{ invitation }`: the output item is the invitation (id, email,
 * names, invitationStatusId, packageId, expiresStamp, completedStamp, ...); with Output > Simplified (the
 * default), only the fields of SIMPLIFIED_FIELDS.invitation.
 *
 * Without `invitationToken`: it is the secret of the candidate's invitation link (the reference's links are
 * `/invite/{invitationToken}`): whoever holds it can open the candidate's onboarding. The reference uses it
 * only to embed onboarding in a partner's own app, which this node does not do, so it is not spread into
 * workflow data, execution logs and AI agents' context.
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runReadForEachItem.call(this, async (itemIndex) => {
		const outputChoice = readOutput.call(this, itemIndex, 'invitation');
		const caseId = readCaseId.call(this, itemIndex);
		const response = await withStatusHints(
			apiRequest.call(this, 'GET', apiPath`/invitation/case/${caseId}`, { itemIndex }),
			{ 404: NO_INVITATION },
		);
		const invitation = {
			...recordIn(this.getNode(), response, 'invitation', {
				endpoint: 'GET /invitation/case/{caseId}',
				itemIndex,
			}),
		};
		delete invitation.invitationToken;
		return shapeOutput(outputChoice, 'invitation', { caseId, ...invitation });
	});
}
