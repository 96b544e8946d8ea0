import type { IHookFunctions, IWebhookFunctions } from 'n8n-workflow';

import {
	REREAD_AFTER_REFUSAL_MS,
	SECRETS_HELD_MS,
	secretsAfterRefusal,
	webhookSecrets,
} from '../../../nodes/BackgroundCheckTrigger/secretCache';

const CREDENTIAL_TYPE = 'backgroundCheckWebhookApi';

/** A stored credential that counts its reads; `secret` is what the next read returns. */
function storedCredential(secret: string) {
	const stored = { secret, reads: 0, fail: false };
	return stored;
}

type Stored = ReturnType<typeof storedCredential>;

function context(
	stored: Stored,
	opts: {
		kind?: 'webhook' | 'hook';
		mode?: string;
		workflowId?: string;
		nodeId?: string;
		credentialId?: string | null;
	} = {},
): IWebhookFunctions & IHookFunctions {
	const credentialId = opts.credentialId === undefined ? 'credential-1' : opts.credentialId;
	return {
		getWorkflow: () => ({ id: opts.workflowId ?? 'workflow-1' }),
		getNode: () => ({
			id: opts.nodeId ?? 'node-1',
			credentials:
				credentialId === null
					? undefined
					: { [CREDENTIAL_TYPE]: { id: credentialId, name: 'webhook secret' } },
		}),
		getMode: () => opts.mode ?? 'webhook',
		getCredentials: async (type: string) => {
			expect(type).toBe(CREDENTIAL_TYPE);
			stored.reads++;
			await Promise.resolve();
			if (stored.fail) throw new Error('Credential with ID "credential-1" does not exist');
			return { signingSecret: stored.secret };
		},
		...((opts.kind ?? 'webhook') === 'webhook' ? { getRequestObject: () => ({}) } : {}),
	} as unknown as IWebhookFunctions & IHookFunctions;
}

let nowMs = 1_700_000_000_000;
let workflowSeq = 0;
/** A workflow id of its own per test: entries held by earlier tests never answer for this one. */
let workflowId: string;

beforeEach(() => {
	nowMs += 10 * SECRETS_HELD_MS;
	jest.spyOn(Date, 'now').mockImplementation(() => nowMs);
	workflowId = `workflow-${++workflowSeq}`;
});

afterEach(() => jest.restoreAllMocks());

describe('webhook secrets held between deliveries', () => {
	it('reads the credential once for deliveries within the bound, and again once the bound has passed', async () => {
		const stored = storedCredential('whsec_old');
		const delivery = () => webhookSecrets(context(stored, { workflowId }));

		await expect(delivery()).resolves.toEqual({ signingSecret: 'whsec_old' });
		stored.secret = 'whsec_new';
		nowMs += SECRETS_HELD_MS - 1;
		await expect(delivery()).resolves.toEqual({ signingSecret: 'whsec_old' });
		expect(stored.reads).toBe(1);

		nowMs += 1;
		await expect(delivery()).resolves.toEqual({ signingSecret: 'whsec_new' });
		expect(stored.reads).toBe(2);
	});

	it('shares one credential read between deliveries arriving together', async () => {
		const stored = storedCredential('whsec_a');
		const answers = await Promise.all(
			Array.from({ length: 50 }, () => webhookSecrets(context(stored, { workflowId }))),
		);
		expect(answers.every((answer) => answer.signingSecret === 'whsec_a')).toBe(true);
		expect(stored.reads).toBe(1);
	});

	it('never answers one workflow, node or credential with secrets read for another', async () => {
		const first = storedCredential('whsec_first');
		await webhookSecrets(context(first, { workflowId }));

		const others = [
			{ workflowId: `${workflowId}-other` },
			{ workflowId, nodeId: 'node-2' },
			{ workflowId, credentialId: 'credential-2' },
		];
		for (const other of others) {
			const stored = storedCredential('whsec_other');
			await expect(webhookSecrets(context(stored, other))).resolves.toEqual({
				signingSecret: 'whsec_other',
			});
			expect(stored.reads).toBe(1);
		}
		// Reading the others' secrets let go of nothing held for the first.
		await webhookSecrets(context(first, { workflowId }));
		expect(first.reads).toBe(1);
	});

	it('reads the credential at every activation and holds what it read for the deliveries after it', async () => {
		const stored = storedCredential('whsec_old');
		await webhookSecrets(context(stored, { workflowId }));
		stored.secret = 'whsec_new';

		await expect(webhookSecrets(context(stored, { workflowId, kind: 'hook' }))).resolves.toEqual({
			signingSecret: 'whsec_new',
		});
		await expect(webhookSecrets(context(stored, { workflowId }))).resolves.toEqual({
			signingSecret: 'whsec_new',
		});
		expect(stored.reads).toBe(2);
	});

	it('reads the credential for every test delivery ("Listen for test event") and holds nothing for it', async () => {
		const stored = storedCredential('whsec_a');
		await webhookSecrets(context(stored, { workflowId, mode: 'manual' }));
		await webhookSecrets(context(stored, { workflowId, mode: 'manual' }));
		expect(stored.reads).toBe(2);
		await webhookSecrets(context(stored, { workflowId }));
		expect(stored.reads).toBe(3);
	});

	it('holds nothing when the node names no credential', async () => {
		const stored = storedCredential('whsec_a');
		await webhookSecrets(context(stored, { workflowId, credentialId: null }));
		await webhookSecrets(context(stored, { workflowId, credentialId: null }));
		expect(stored.reads).toBe(2);
		const otherCredentialOnly = {
			...context(stored, { workflowId }),
			getNode: () => ({
				id: 'node-1',
				credentials: { backgroundCheckApi: { id: 'x', name: 'API' } },
			}),
		} as unknown as IWebhookFunctions;
		await webhookSecrets(otherCredentialOnly);
		await webhookSecrets(otherCredentialOnly);
		expect(stored.reads).toBe(4);
	});

	it('holds no failed read: the next delivery reads the credential again', async () => {
		const stored = storedCredential('whsec_a');
		stored.fail = true;
		await expect(webhookSecrets(context(stored, { workflowId }))).rejects.toThrow('does not exist');
		stored.fail = false;
		await expect(webhookSecrets(context(stored, { workflowId }))).resolves.toEqual({
			signingSecret: 'whsec_a',
		});
		expect(stored.reads).toBe(2);
	});

	it('reads the credential again for a delivery the held secrets refused, once they are a second old', async () => {
		const stored = storedCredential('whsec_old');
		const delivery = () => context(stored, { workflowId });
		await webhookSecrets(delivery());
		stored.secret = 'whsec_new';

		nowMs += REREAD_AFTER_REFUSAL_MS - 1;
		const refused = webhookSecrets(delivery());
		expect(secretsAfterRefusal(delivery(), refused)).toBeUndefined();
		expect(stored.reads).toBe(1);

		nowMs += 1;
		await expect(secretsAfterRefusal(delivery(), refused)).resolves.toEqual({
			signingSecret: 'whsec_new',
		});
		// What was read again is held for the deliveries after it.
		await expect(webhookSecrets(delivery())).resolves.toEqual({ signingSecret: 'whsec_new' });
		expect(stored.reads).toBe(2);
	});

	it('reads the credential at most once a second however many deliveries are refused', async () => {
		const stored = storedCredential('whsec_a');
		const delivery = () => context(stored, { workflowId });
		await webhookSecrets(delivery());
		const startMs = nowMs;
		// A flood of bad signatures for 10 s, one every 10 ms.
		for (let sent = 0; sent < 1000; sent++) {
			nowMs = startMs + sent * 10;
			const refused = webhookSecrets(delivery());
			const newer = secretsAfterRefusal(delivery(), refused);
			if (newer) await newer;
		}
		expect(stored.reads).toBeLessThanOrEqual(1 + Math.ceil(10_000 / REREAD_AFTER_REFUSAL_MS));
	});

	it('checks deliveries refused together against the one read they caused', async () => {
		const stored = storedCredential('whsec_old');
		const delivery = () => context(stored, { workflowId });
		const refused = webhookSecrets(delivery());
		await refused;
		stored.secret = 'whsec_new';
		nowMs += REREAD_AFTER_REFUSAL_MS;

		const answers = await Promise.all(
			Array.from({ length: 20 }, () => secretsAfterRefusal(delivery(), refused)),
		);
		expect(answers).toEqual(Array.from({ length: 20 }, () => ({ signingSecret: 'whsec_new' })));
		expect(stored.reads).toBe(2);
	});

	it('reads nothing again for a test delivery or a node without a credential', async () => {
		const stored = storedCredential('whsec_a');
		await webhookSecrets(context(stored, { workflowId }));
		nowMs += REREAD_AFTER_REFUSAL_MS;
		for (const opts of [
			{ workflowId, mode: 'manual' },
			{ workflowId, credentialId: null },
		]) {
			const refused = webhookSecrets(context(stored, opts));
			expect(secretsAfterRefusal(context(stored, opts), refused)).toBeUndefined();
		}
	});
});
