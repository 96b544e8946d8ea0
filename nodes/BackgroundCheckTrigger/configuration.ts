import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	IHookFunctions,
	INodeCredentialTestResult,
	ITriggerFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { BACKGROUND_CHECK_API_CREDENTIAL } from '../../credentials/BackgroundCheckApi.credentials';
import { wholeNumberIn } from '../shared/values';
import { DEFAULT_TOLERANCE_SECONDS } from '../shared/webhookSignature';
import {
	configurationProblems,
	type SignatureScheme,
	type VerificationConfig,
} from './verification';
import { DUPLICATE_MEMORY_SIZE } from './memory';
import { CASE_STATUS_CHANGE, parseStatusList, type StatusFilter } from './event';
import { webhookSecrets, type WebhookSecrets } from './secretCache';
import { handsOffToWebhook } from './handoff';

/** The trigger's settings and secrets (held between deliveries: secretCache.ts), checked at activation. */

const secretValue = (value: unknown) => (typeof value === 'string' ? value.trim() : '');

function verificationConfig(
	credentials: WebhookSecrets,
	scheme: SignatureScheme,
	legacyHeaderName: unknown,
	toleranceSeconds: unknown,
): VerificationConfig {
	return {
		scheme,
		signingSecrets: [
			secretValue(credentials.signingSecret),
			secretValue(credentials.previousSigningSecret),
		],
		legacySecret: secretValue(credentials.legacySecret),
		legacyHeaderName:
			typeof legacyHeaderName === 'string' ? legacyHeaderName.trim().toLowerCase() : '',
		toleranceSeconds: Number(toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS),
	};
}

/** The verification settings, with `secrets` when given, else the held ones (secretCache.ts). */
export async function readConfig(
	this: IHookFunctions | IWebhookFunctions,
	secrets?: Promise<WebhookSecrets>,
): Promise<VerificationConfig> {
	const credentials = await (secrets ?? webhookSecrets(this));
	const scheme = this.getNodeParameter('signatureScheme', 'standard') as SignatureScheme;
	return verificationConfig(
		credentials,
		scheme,
		scheme === 'standard' ? '' : this.getNodeParameter('legacyHeaderName', ''),
		this.getNodeParameter('options.toleranceSeconds', DEFAULT_TOLERANCE_SECONDS),
	);
}

/** What runs: the selected event type, the status filter and Ignore Older Events, for deliveries and the watchdog. */
export function readFilters(context: IWebhookFunctions | ITriggerFunctions) {
	const statuses: StatusFilter = {
		caseStatuses: parseStatusList(context.getNodeParameter('caseStatus', '')),
		secondaryStatuses: parseStatusList(context.getNodeParameter('secondaryStatus', '')),
	};
	const event = context.getNodeParameter('event', CASE_STATUS_CHANGE) as string;
	return {
		event,
		statuses,
		dropOlder: context.getNodeParameter('options.dropOutOfOrder', false) === true,
	};
}

/** Duplicate Memory Size as configured (an expression evaluated), or why it cannot be used. */
export function checkDuplicateMemorySize(value: unknown): number | { problem: string } {
	const { min, max } = DUPLICATE_MEMORY_SIZE;
	const size = wholeNumberIn(value, min, max);
	if (size !== undefined) return size;
	return {
		problem: `Duplicate Memory Size must be a whole number from ${min} to ${max.toLocaleString('en-US')}, not ${JSON.stringify(value) ?? String(value)}`,
	};
}

export const DUPLICATE_MEMORY_SIZE_PARAMETER = 'options.duplicateMemorySize';

/** Runs at activation, so a wrong secret or setting is an error there rather than a failure on every delivery later. */
export async function assertValidConfiguration(this: IHookFunctions): Promise<void> {
	const config = await readConfig.call(this);
	const problems = configurationProblems(config);
	const size = checkDuplicateMemorySize(
		this.getNodeParameter(DUPLICATE_MEMORY_SIZE_PARAMETER, DUPLICATE_MEMORY_SIZE.default),
	);
	if (typeof size !== 'number') problems.push(size.problem);
	if (this.getNodeParameter('reconcile', false) === true && handsOffToWebhook(this)) {
		const { scheme, signingSecrets } = config;
		if (scheme === 'legacy' || !signingSecrets[0])
			problems.push(
				'Handing found changes to the webhook URL needs the Standard Webhooks scheme (Standard or Both) and a Signing Secret: the watchdog signs them with it',
			);
	}
	if (problems.length > 0) {
		throw new NodeOperationError(this.getNode(), problems[0], {
			description: problems.length > 1 ? problems.slice(1).join(' ') : undefined,
		});
	}
	if (!['fetchLatestCase', 'reconcile'].some((name) => this.getNodeParameter(name, false) === true))
		return;
	try {
		await this.getCredentials(BACKGROUND_CHECK_API_CREDENTIAL);
	} catch (error) {
		throw new NodeOperationError(
			this.getNode(),
			'Fetch Latest Case and the watchdog need a Background Check API credential',
			{ description: (error as Error).message },
		);
	}
}

/** The provider has no endpoint to check a webhook secret against; this checks the values' form. */
export async function checkWebhookSecrets(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const data = (credential.data ?? {}) as WebhookSecrets;
	const hasStandard = secretValue(data.signingSecret) !== '';
	const hasLegacy = secretValue(data.legacySecret) !== '';
	if (!hasStandard && !hasLegacy) {
		return {
			status: 'Error',
			message: 'Enter the Signing Secret (whsec_...) or the Legacy Secret',
		};
	}
	const scheme: SignatureScheme =
		hasStandard && hasLegacy ? 'both' : hasStandard ? 'standard' : 'legacy';
	const problems = configurationProblems(
		verificationConfig(data, scheme, '', DEFAULT_TOLERANCE_SECONDS),
	);
	if (problems.length > 0) return { status: 'Error', message: problems.join(' ') };
	return {
		status: 'OK',
		message:
			'The secrets are well-formed. Send a test event from the provider to prove they match.',
	};
}
