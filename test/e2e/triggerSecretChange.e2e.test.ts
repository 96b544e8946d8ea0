/* eslint-disable @n8n/community-nodes/no-restricted-globals, no-console -- repository tooling: runs in Node.js, never inside n8n; prints the window measured */
/**
 * A webhook secret changed in real n8n (the credential updated through n8n's public API while the trigger's
 * workflow stays active): deliveries signed with the new one verify once the held secrets are
 * REREAD_AFTER_REFUSAL_MS old, and those signed with the old one stop verifying within SECRETS_HELD_MS,
 * probed in pairs from before the change until past the bound. Prints the window measured.
 */
import { randomUUID } from 'node:crypto';

import {
	REREAD_AFTER_REFUSAL_MS,
	SECRETS_HELD_MS,
} from '../../nodes/BackgroundCheckTrigger/secretCache';
import { generateWebhookSecret } from '../../nodes/shared/webhookSignature';
import {
	WEBHOOK_CREDENTIAL,
	deployTriggerWorkflow,
	leakedSecrets,
} from '../harness/backgroundCheck';
import { callWebhook } from '../harness/n8nApi';
import { startTestN8n, type TestN8n } from '../harness/n8nInstance';
import { caseCompletedBody, signedHeaders } from '../helpers/deliveries';

let n8n: TestN8n;

// n8n 2.41 took 193 s to start on the shared 2-core machine at a load average of 20.
beforeAll(async () => {
	n8n = await startTestN8n('trigger-secret-change');
}, 400_000);

afterAll(async () => {
	await n8n?.stop();
});

/** Probes continue this long past the bound, so that what holds after it is seen more than once. */
const PAST_BOUND_MS = 8_000;
const PROBE_INTERVAL_MS = 500;

interface Probe {
	secret: 'old' | 'new';
	/** Milliseconds from the moment n8n answered the credential change to the moment this was sent. */
	sentAtMs: number;
	status: number;
}

it('verifies a new webhook secret from its first deliveries, and stops verifying the old one within the bound', async () => {
	const oldSecret = generateWebhookSecret();
	const newSecret = generateWebhookSecret();
	const credential = await n8n.api.createCredential({
		name: 'webhook: secret change',
		type: WEBHOOK_CREDENTIAL,
		data: { signingSecret: oldSecret },
	});
	const webhookId = randomUUID();
	await deployTriggerWorkflow(n8n, {
		name: 'e2e trigger: secret change',
		webhookId,
		parameters: {},
		webhookCredential: credential,
	});
	const deliver = async (secret: string) => {
		const messageId = `msg_${randomUUID()}`;
		const body = caseCompletedBody(messageId, `case-${randomUUID()}`);
		const answer = await callWebhook(n8n.baseUrl, `${webhookId}/webhook`, {
			method: 'POST',
			body,
			headers: signedHeaders(secret, messageId, body),
		});
		return answer.status;
	};

	expect(await deliver(oldSecret)).toBe(200);
	expect(await deliver(newSecret)).toBe(401);

	await n8n.api.updateCredential(credential.id, { data: { signingSecret: newSecret } });
	const changedAt = Date.now();
	const probes: Probe[] = [];
	for (;;) {
		for (const secret of ['old', 'new'] as const) {
			const sentAtMs = Date.now() - changedAt;
			probes.push({
				secret,
				sentAtMs,
				status: await deliver(secret === 'old' ? oldSecret : newSecret),
			});
		}
		if (Date.now() - changedAt > SECRETS_HELD_MS + PAST_BOUND_MS) break;
		await new Promise((resolve) => setTimeout(resolve, PROBE_INTERVAL_MS));
	}

	const accepted = (probe: Probe) => probe.status >= 200 && probe.status < 300;
	const lastOldAccepted = Math.max(
		-1,
		...probes.filter((p) => p.secret === 'old' && accepted(p)).map((p) => p.sentAtMs),
	);
	const firstNewAccepted = Math.min(
		...probes.filter((p) => p.secret === 'new' && accepted(p)).map((p) => p.sentAtMs),
	);
	const pastBound = probes.filter((p) => p.sentAtMs >= SECRETS_HELD_MS);
	console.log(
		`secret change on ${process.env.BGC_N8N_RUNTIME || 'oldest'}: ${probes.length} probes; ` +
			`the old secret last verified on a delivery sent ${lastOldAccepted} ms after the change ` +
			`(${lastOldAccepted < 0 ? 'never' : 'then 401'}), the new one first ${firstNewAccepted} ms after it; ` +
			`bound ${SECRETS_HELD_MS} ms; ${pastBound.length} probes past the bound`,
	);

	// Every answer is a verdict on the signature: 200 (started) or 401 (refused).
	expect(probes.filter((p) => p.status !== 200 && p.status !== 401)).toEqual([]);
	expect(pastBound.filter((p) => p.secret === 'old').length).toBeGreaterThanOrEqual(3);
	expect(lastOldAccepted).toBeLessThan(SECRETS_HELD_MS);
	expect(pastBound.filter((p) => p.secret === 'old' && accepted(p))).toEqual([]);
	// The new secret: pairs are at least PROBE_INTERVAL_MS apart, so a probe sent REREAD_AFTER_REFUSAL_MS
	// after the last read makes the trigger read the credential again; from then on every one verifies.
	const newProbes = probes.filter((p) => p.secret === 'new');
	const refusedNew = newProbes.filter((p) => !accepted(p));
	expect(refusedNew.length).toBeLessThanOrEqual(
		Math.ceil(REREAD_AFTER_REFUSAL_MS / PROBE_INTERVAL_MS),
	);
	expect(newProbes.slice(refusedNew.length).every(accepted)).toBe(true);
	// One switch: the old secret never verifies again once the new one has.
	expect(lastOldAccepted).toBeLessThan(firstNewAccepted);
	expect(leakedSecrets(n8n.readLog(), { oldSecret, newSecret })).toEqual([]);
}, 240_000);
