import type { IHookFunctions, IWebhookFunctions } from 'n8n-workflow';

import { BACKGROUND_CHECK_WEBHOOK_CREDENTIAL } from '../../credentials/BackgroundCheckWebhookApi.credentials';

/**
 * The webhook credential's secrets, kept in this process's memory between deliveries for at most
 * SECRETS_HELD_MS. Reading and decrypting an n8n credential costs a delivery more than everything else the
 * trigger does on n8n 2.41 (docs/benchmarks.md section 3). A removed secret stops verifying within
 * SECRETS_HELD_MS; a new one verifies its first delivery, because a delivery the held secrets refuse makes
 * the trigger read the credential again (at most once per REREAD_AFTER_REFUSAL_MS, so a flood of bad
 * signatures costs no more than that). Activation also reads the credential and replaces what is held.
 * Kept nowhere else: not in static data, logs or output.
 */
export const SECRETS_HELD_MS = 60_000;
export const REREAD_AFTER_REFUSAL_MS = 1_000;

export type WebhookSecrets = Partial<
	Record<'signingSecret' | 'previousSigningSecret' | 'legacySecret', unknown>
>;

/** By workflow, node and credential: no two trigger nodes, workflows or credentials share an entry. */
const held = new Map<string, { secrets: Promise<WebhookSecrets>; readAtMs: number }>();

function keyOf(context: IHookFunctions | IWebhookFunctions): string | undefined {
	const workflowId = context.getWorkflow().id;
	const node = context.getNode();
	const credentialId = node.credentials?.[BACKGROUND_CHECK_WEBHOOK_CREDENTIAL]?.id;
	if (!workflowId || !credentialId) return undefined;
	return JSON.stringify([workflowId, node.id, credentialId]);
}

const read = (context: IHookFunctions | IWebhookFunctions) =>
	context.getCredentials(BACKGROUND_CHECK_WEBHOOK_CREDENTIAL) as Promise<WebhookSecrets>;

/**
 * The secrets for a delivery to an active workflow: held ones when read less than SECRETS_HELD_MS ago.
 * Activation and "Listen for test event" read the credential every time; activation replaces what is held.
 */
export function webhookSecrets(
	context: IHookFunctions | IWebhookFunctions,
): Promise<WebhookSecrets> {
	const key = keyOf(context);
	if (key === undefined || context.getMode() === 'manual') return read(context);
	const nowMs = Date.now();
	const isDelivery = 'getRequestObject' in context;
	const entry = held.get(key);
	if (isDelivery && entry && nowMs - entry.readAtMs < SECRETS_HELD_MS) return entry.secrets;
	for (const [old, { readAtMs }] of held) if (nowMs - readAtMs >= SECRETS_HELD_MS) held.delete(old);
	const secrets = read(context);
	const fresh = { secrets, readAtMs: nowMs };
	held.set(key, fresh);
	// A failed read is not held: the next delivery tries again.
	secrets.catch(() => {
		if (held.get(key) === fresh) held.delete(key);
	});
	return secrets;
}

/**
 * For a delivery that `refused` (the secrets it was checked with) did not verify: the secrets to check it
 * with once more. Those held now when they were read since; else the credential read again, when `refused`
 * was read at least REREAD_AFTER_REFUSAL_MS ago (the secret may have changed since). Undefined when there is
 * nothing newer to try: the refusal stands.
 */
export function secretsAfterRefusal(
	context: IWebhookFunctions,
	refused: Promise<WebhookSecrets>,
): Promise<WebhookSecrets> | undefined {
	const key = keyOf(context);
	const entry = key === undefined ? undefined : held.get(key);
	if (key === undefined || !entry || context.getMode() === 'manual') return undefined;
	if (entry.secrets !== refused) return entry.secrets;
	if (Date.now() - entry.readAtMs < REREAD_AFTER_REFUSAL_MS) return undefined;
	held.delete(key);
	return webhookSecrets(context);
}
