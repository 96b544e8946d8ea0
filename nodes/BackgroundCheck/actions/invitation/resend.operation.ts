import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { NO_INVITATION, recordIn, withStatusHints, writeDone } from '../../helpers/answers';
import { runForEachItem } from '../../helpers/execute';
import { caseIdLocator } from '../../helpers/fields';
import { invalidInput, itemLabel } from '../../helpers/inputChecks';
import { isEmail } from '../../helpers/orderData';
import { readCaseId } from '../../helpers/parameters';
import { apiPath, apiRequest } from '../../../shared/transport';

const properties: INodeProperties[] = [
	caseIdLocator,
	{
		displayName: 'New Email',
		name: 'newEmail',
		type: 'string',
		default: '',
		placeholder: 'e.g. name@email.com',
		description:
			'Where to send the new invitation, sent as email. Leave it empty to send it to the email of the case’s current invitation (read from the API first).',
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['invitation'], operation: ['resend'] } },
	properties,
);

/** The email of the case's current invitation (GET /invitation/case/{caseId}). */
async function currentEmail(
	this: IExecuteFunctions,
	caseId: string,
	itemIndex: number,
): Promise<string> {
	const response = await withStatusHints(
		apiRequest.call(this, 'GET', apiPath`/invitation/case/${caseId}`, { itemIndex }),
		{ 404: NO_INVITATION },
	);
	const invitation = recordIn(this.getNode(), response, 'invitation', {
		endpoint: 'GET /invitation/case/{caseId}',
		itemIndex,
	});
	const email = typeof invitation.email === 'string' ? invitation.email.trim() : '';
	if (!isEmail(email))
		throw new NodeOperationError(
			this.getNode(),
			`The case’s invitation has no email to resend it to ${itemLabel(itemIndex)}`,
			{ itemIndex, description: 'Enter New Email.' },
		);
	return email;
}

/**
 * POST /case/id/{caseId}/action/resendinvite with `{ email }` (required by the reference): New Email, or the
 * current invitation's email read first. The API creates a new invitation with a new ID and emails it; the
 * link of the earlier email stops working. It answers 200 with no body, or 422 (a data issue, or the
 * invitation was already used to create a candidate). A write: sent once, one item after the other.
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runForEachItem.call(
		this,
		async (itemIndex) => {
			const node = this.getNode();
			const caseId = readCaseId.call(this, itemIndex);
			const newEmail = String(this.getNodeParameter('newEmail', itemIndex, '') ?? '').trim();
			if (newEmail !== '' && !isEmail(newEmail))
				throw invalidInput(node, itemIndex, `New Email "${newEmail}" is not an email address`);
			const email = newEmail || (await currentEmail.call(this, caseId, itemIndex));
			const response = await withStatusHints(
				apiRequest.call(this, 'POST', apiPath`/case/id/${caseId}/action/resendinvite`, {
					body: { email },
					itemIndex,
				}),
				{
					422: 'The API could not resend the invitation: a data issue, or the invitation was already used to create a candidate.',
				},
			);
			return writeDone(
				node,
				response,
				{ caseId, resent: true, email },
				{
					endpoint: 'POST /case/id/{caseId}/action/resendinvite',
					itemIndex,
					checkWith: 'Invitation > Get',
				},
			);
		},
		{ write: true },
	);
}
