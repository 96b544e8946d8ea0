import type { ICredentialType, INodeProperties, Icon } from 'n8n-workflow';

export const BACKGROUND_CHECK_WEBHOOK_CREDENTIAL = 'backgroundCheckWebhookApi';

/**
 * The secrets the Background Check Trigger verifies deliveries with. Nothing here is sent anywhere:
 * the provider has no endpoint to check a webhook secret against, so the trigger node's credential
 * test checks their form, and a delivery signed by the provider is the real proof.
 */
export class BackgroundCheckWebhookApi implements ICredentialType {
	name = BACKGROUND_CHECK_WEBHOOK_CREDENTIAL;

	displayName = 'Background Check Webhook API';

	icon: Icon = { light: 'file:backgroundCheck.svg', dark: 'file:backgroundCheck.dark.svg' };

	documentationUrl =
		'https://github.com/n8n-nodes-background-check/n8n-nodes-background-check#background-check-trigger';

	properties: INodeProperties[] = [
		{
			displayName: 'Signing Secret',
			name: 'signingSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			placeholder: 'whsec_...',
			description:
				'The secret the provider shows for this webhook endpoint, starting with whsec_. Needed for the Standard scheme.',
		},
		{
			displayName: 'Previous Signing Secret',
			name: 'previousSigningSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			placeholder: 'whsec_...',
			description:
				'While you rotate the endpoint secret, put the old one here so deliveries signed with either are accepted. Clear it once the rotation is over.',
		},
		{
			displayName: 'Legacy Secret',
			name: 'legacySecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description:
				'The secret of the older delivery system (no whsec_ prefix). Needed only for the Legacy scheme.',
		},
	];
}
