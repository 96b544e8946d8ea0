import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	IExecuteFunctions,
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
import { HANDOFF, HANDOFF_PARAMETER } from './handoff';

/**
 * The trigger's settings and secrets (held between deliveries: secretCache.ts), checked at activation. Every
 * parameter is read here, by {@link readSettings}, into one typed object.
 */

type ParameterContext = IWebhookFunctions | ITriggerFunctions | IHookFunctions | IExecuteFunctions;

export interface Settings {
	/** The selected event type (event.ts CASE_STATUS_CHANGE, ANY_EVENT, ...). */
	event: string;
	statuses: StatusFilter;
	/** Ignore Older Events. */
	dropOlder: boolean;
	fetchLatestCase: boolean;
	/** Duplicate Memory Size, or why it cannot be used (an expression can still change it after activation). */
	duplicateMemorySize: number | { problem: string };
	/** Reconcile Missed Events: on, its interval as set, and whether it hands what it finds to the webhook URL. */
	watchdog: { on: boolean; every: unknown; handOff: boolean };
	signature: { scheme: SignatureScheme; legacyHeaderName: unknown; toleranceSeconds: unknown };
}

/** The node's parameters, as the context's n8n gives them (an execution reads item 0's). */
export function readSettings(context: ParameterContext): Settings {
	const get = (name: string, fallback: unknown): unknown =>
		'getInputData' in context
			? context.getNodeParameter(name, 0, fallback)
			: context.getNodeParameter(name, fallback);
	const scheme = get('signatureScheme', 'standard') as SignatureScheme;
	return {
		event: get('event', CASE_STATUS_CHANGE) as string,
		statuses: {
			caseStatuses: parseStatusList(get('caseStatus', '')),
			secondaryStatuses: parseStatusList(get('secondaryStatus', '')),
		},
		dropOlder: get('options.dropOutOfOrder', false) === true,
		fetchLatestCase: get('fetchLatestCase', false) === true,
		duplicateMemorySize: checkDuplicateMemorySize(
			get('options.duplicateMemorySize', DUPLICATE_MEMORY_SIZE.default),
		),
		watchdog: {
			on: get('reconcile', false) === true,
			every: get('reconcileEvery', ''),
			handOff: get(HANDOFF_PARAMETER, HANDOFF.process) === HANDOFF.webhook,
		},
		signature: {
			scheme,
			legacyHeaderName: scheme === 'standard' ? '' : get('legacyHeaderName', ''),
			toleranceSeconds: get('options.toleranceSeconds', DEFAULT_TOLERANCE_SECONDS),
		},
	};
}

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
	settings: Settings = readSettings(this),
): Promise<VerificationConfig> {
	const credentials = await (secrets ?? webhookSecrets(this));
	const { scheme, legacyHeaderName, toleranceSeconds } = settings.signature;
	return verificationConfig(credentials, scheme, legacyHeaderName, toleranceSeconds);
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

/** Runs at activation, so a wrong secret or setting is an error there rather than a failure on every delivery later. */
export async function assertValidConfiguration(this: IHookFunctions): Promise<void> {
	const settings = readSettings(this);
	const config = await readConfig.call(this, undefined, settings);
	const problems = configurationProblems(config);
	const size = settings.duplicateMemorySize;
	if (typeof size !== 'number') problems.push(size.problem);
	if (settings.watchdog.on && settings.watchdog.handOff) {
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
	if (!settings.fetchLatestCase && !settings.watchdog.on) return;
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
