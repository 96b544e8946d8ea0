/**
 * Spec 6 and 8: signatures checked by the independent `standardwebhooks` package, the retry schedule,
 * failure rules, group precedence, rotation, the legacy scheme and migration, duplicate / out-of-order.
 */
import { createHash, createHmac } from 'crypto';
import { Webhook } from 'standardwebhooks';

import { WEBHOOK_RETRY_DELAYS_SECONDS } from '../../nodes/shared/catalog';
import type { SubscriptionInput } from '../../sandbox';
import { DeliveryFaults } from '../../sandbox/webhooks/deliveryFaults';
import {
	caseBody,
	createCase,
	getCaseData,
	tokenFor,
	useReceiver,
	useSandboxClient,
	type ReceivedWebhook,
	type Receiver,
} from '../helpers/sandbox';

const DEADLINE_MS = 300;
const ALL_RETRIES_SECONDS = WEBHOOK_RETRY_DELAYS_SECONDS.reduce((sum, delay) => sum + delay, 0);

const client = useSandboxClient({ webhookDeadlineMs: DEADLINE_MS }, { signIn: false });
const receiver = useReceiver();
const other = useReceiver();

const subscribe = (target: Receiver, input: Omit<SubscriptionInput, 'url'> = {}) =>
	client.admin.createSubscription({ url: target.url, ...input });

/** What the standardwebhooks package makes of `hook` with `secret`: the payload, or a throw. */
function verify(secret: string, hook: ReceivedWebhook) {
	return new Webhook(secret).verify(hook.rawBody, {
		'webhook-id': String(hook.headers['webhook-id']),
		'webhook-timestamp': String(hook.headers['webhook-timestamp']),
		'webhook-signature': String(hook.headers['webhook-signature']),
	});
}

/** Creates a case for group `groupIndex` that stays at step 1, so exactly one event (step 1) is sent. */
async function oneEventFor(groupIndex = 0) {
	const body = caseBody();
	client.admin.scriptCandidate(String(body.email), { holdAtStep: 1 });
	const token = await tokenFor(client.sandbox, groupIndex);
	const created = await createCase(client.sandbox, token, body);
	await client.admin.idle();
	return created;
}

describe('standard delivery (6.2, 6.3)', () => {
	it('signs each delivery so the standardwebhooks package verifies it, with the payload of 6.2', async () => {
		const subscription = subscribe(receiver);
		expect(subscription.secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
		const created = await oneEventFor();

		expect(receiver.received).toHaveLength(1);
		const [hook] = receiver.received;
		expect(verify(subscription.secret, hook)).toEqual({
			messageId: hook.headers['webhook-id'],
			event: 'case.statuschange',
			apiTrackingCode: null,
			apiTrackingUser: null,
			eventObject: {
				id: created.id,
				caseStatus: 'Pending',
				caseStatusId: created.caseStatusId,
				secondaryStatus: 'Waiting for Authorization',
				secondaryCaseStatusId: created.secondaryCaseStatusId,
				resultType: created.resultType,
				candidateId: created.candidateId,
				packageId: created.packageId,
				groupProfileId: created.groupProfileId,
				modStamp: created.modStamp,
			},
		});
		expect(hook.headers['content-type']).toBe('application/json');
		const otherSecret = subscribe(other).secret;
		expect(() => verify(otherSecret, hook)).toThrow();
	});

	it('carries apiTrackingCode / apiTrackingUser from the case and sends casedata.statuschange', async () => {
		subscribe(receiver, { eventTypes: ['casedata.statuschange'] });
		const body = caseBody({ apiTrackingCode: 'REQ-7', apiTrackingUser: 'ats-user-1' });
		const token = await tokenFor(client.sandbox);
		const created = await createCase(client.sandbox, token, body);
		for (let step = 0; step < 3; step++) client.admin.advanceCase(created.id);
		await client.admin.idle();

		expect(receiver.received.map((hook) => hook.json.event)).toEqual(['casedata.statuschange']);
		const [caseData] = await getCaseData(client.sandbox, token, created.id);
		expect(receiver.received[0].json).toMatchObject({
			apiTrackingCode: 'REQ-7',
			apiTrackingUser: 'ats-user-1',
			eventObject: {
				id: caseData.id,
				caseId: created.id,
				groupProfileId: created.groupProfileId,
				serviceId: caseData.serviceId,
				serviceName: caseData.serviceName,
				serviceTypeId: caseData.serviceTypeId,
				status: 'clear',
				statusId: caseData.statusId,
				pendingStatus: null,
				pendingStatusId: null,
				modStamp: caseData.modStamp,
			},
		});
		expect(Object.keys(receiver.received[0].json.eventObject)).toHaveLength(11);
	});
});

describe('retries (6.5, 8)', () => {
	it('makes 8 attempts with the delays of section 8, same webhook-id, re-signed each time', async () => {
		receiver.respondWith(() => 500);
		const subscription = subscribe(receiver);
		await oneEventFor();

		await client.admin.advanceClock(ALL_RETRIES_SECONDS + 24 * 3600);

		const attempts = client.admin.deliveryLog({ subscriptionId: subscription.id });
		expect(attempts.map((attempt) => attempt.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
		const gapsSeconds = attempts
			.slice(1)
			.map((attempt, index) => (Date.parse(attempt.at) - Date.parse(attempts[index].at)) / 1000);
		expect(gapsSeconds).toEqual([5, 300, 1800, 7200, 18000, 36000, 36000]);
		expect(
			attempts.every((attempt) => attempt.outcome === 'failed' && attempt.statusCode === 500),
		).toBe(true);
		expect(attempts.map((attempt) => attempt.nextAttemptAt)).toEqual([
			...attempts.slice(1).map((attempt) => attempt.at),
			null,
		]);

		expect(receiver.received).toHaveLength(8);
		expect(new Set(receiver.received.map((hook) => hook.headers['webhook-id'])).size).toBe(1);
		for (const hook of receiver.received) {
			expect(() => verify(subscription.secret, hook)).not.toThrow();
		}
	});

	it('stops retrying after the first 2xx', async () => {
		receiver.respondWith((_hook, index) => (index < 2 ? 503 : 204));
		const subscription = subscribe(receiver);
		await oneEventFor();
		await client.admin.advanceClock(3 * 24 * 3600);

		const attempts = client.admin.deliveryLog({ subscriptionId: subscription.id });
		expect(attempts.map((attempt) => attempt.outcome)).toEqual(['failed', 'failed', 'succeeded']);
	});

	it('counts a 3xx, a missed deadline and a refused connection as failures', async () => {
		const redirecting = subscribe(receiver);
		receiver.respondWith(() => 302);
		const hanging = subscribe(other);
		other.respondWith(() => 'hang');
		const refused = client.admin.createSubscription({ url: 'http://127.0.0.1:9/unreachable' });

		await oneEventFor();

		const first = (subscriptionId: string) => client.admin.deliveryLog({ subscriptionId })[0];
		for (const [subscription, failure] of [
			[redirecting, { statusCode: 302, failure: expect.stringMatching(/redirect/) }],
			[hanging, { statusCode: null, failure: `no response within ${DEADLINE_MS} ms` }],
			[refused, { failure: expect.stringMatching(/connection failed/) }],
		] as const) {
			expect(first(subscription.id)).toMatchObject({ outcome: 'failed', ...failure });
			expect(first(subscription.id).nextAttemptAt).not.toBeNull();
		}
	});
});

describe('subscriptions (6.1)', () => {
	it("sends a group's events only to its group subscription when it has one", async () => {
		const company = subscribe(receiver);
		const east = subscribe(other, { groupProfileId: '4e0c2a8e-5b1f-4d3c-9a7e-2f6b1c8d3e01' });

		const eastCase = await oneEventFor(0);
		const westCase = await oneEventFor(1);

		const caseIds = (target: Receiver) => target.received.map((hook) => hook.json.eventObject.id);
		expect(caseIds(receiver)).toEqual([westCase.id]);
		expect(caseIds(other)).toEqual([eastCase.id]);
		const subscriptionIds = (caseId: string) =>
			client.admin.deliveryLog({ caseId }).map((attempt) => attempt.subscriptionId);
		expect(subscriptionIds(eastCase.id)).toEqual([east.id]);
		expect(subscriptionIds(westCase.id)).toEqual([company.id]);
	});

	it('delivers to several endpoints, each signing with its own secret, filtered by event type', async () => {
		const first = subscribe(receiver);
		const second = subscribe(other, { eventTypes: ['case.statuschange'] });
		subscribe(other, { eventTypes: ['casedata.statuschange'] });
		expect(first.secret).not.toBe(second.secret);

		await oneEventFor();

		expect(receiver.received).toHaveLength(1);
		expect(other.received).toHaveLength(1);
		verify(first.secret, receiver.received[0]);
		verify(second.secret, other.received[0]);
	});
});

describe('secret rotation (6.3)', () => {
	it('signs with old and new secret until the rotation ends', async () => {
		const created = subscribe(receiver);
		const rotated = client.admin.rotateSubscriptionSecret(created.id);
		expect(rotated.secret).not.toBe(created.secret);
		expect(rotated.previousSecrets.map((previous) => previous.secret)).toEqual([created.secret]);

		await oneEventFor();
		const [during] = receiver.received;
		expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
		for (const secret of [created.secret, rotated.secret]) {
			expect(() => verify(secret, during)).not.toThrow();
		}

		client.admin.endSecretRotation(created.id);
		await oneEventFor();
		const after = receiver.received[1];
		expect(() => verify(rotated.secret, after)).not.toThrow();
		expect(() => verify(created.secret, after)).toThrow();
	});

	it('drops the old secret by itself after 24 hours of sandbox time', async () => {
		const created = subscribe(receiver);
		client.admin.rotateSubscriptionSecret(created.id);
		await client.admin.advanceClock(24 * 3600 + 1);
		expect(client.admin.listSubscriptions()[0].previousSecrets).toEqual([]);
	});
});

describe('legacy delivery (6.6)', () => {
	function verifyLegacy(hook: ReceivedWebhook, secret: string, headerName: string) {
		const match = /^t=(\d+),v1=([0-9a-f]+)$/.exec(String(hook.headers[headerName]));
		expect(match).not.toBeNull();
		const [, timestampMs, signature] = match!;
		const bodyHash = createHash('sha256').update(hook.rawBody).digest('hex');
		expect(createHmac('sha256', secret).update(`${timestampMs}.${bodyHash}`).digest('hex')).toBe(
			signature,
		);
		expect(Math.abs(Number(timestampMs) - Date.now())).toBeLessThan(60_000);
	}

	it('is off by default; when on, signs with the legacy header and carries username / password in the body', async () => {
		const credentials = { username: 'hook-user', password: 'hook-pass' };
		const legacy = subscribe(receiver, { scheme: 'legacy', ...credentials });
		expect(legacy.secret).not.toMatch(/^whsec_/);
		await oneEventFor();
		expect(receiver.received).toHaveLength(0);

		client.admin.updateWebhookSettings({ legacyEnabled: true });
		await oneEventFor();
		const [hook] = receiver.received;
		verifyLegacy(hook, legacy.secret, 'sandbox-signature');
		expect(hook.headers['webhook-signature']).toBeUndefined();
		expect(hook.json).toMatchObject({ event: 'case.statuschange', ...credentials });
		expect(JSON.stringify(client.admin.deliveryLog())).not.toContain('hook-pass');

		client.admin.updateWebhookSettings({ legacyHeaderName: 'acme-signature' });
		await oneEventFor();
		verifyLegacy(receiver.received[1], legacy.secret, 'acme-signature');
	});

	it('migrates legacy endpoints once; with both systems on each event arrives twice', async () => {
		const legacy = subscribe(receiver, { scheme: 'legacy', password: 'p' });
		const migration = client.admin.migrateLegacySubscriptions();
		expect(migration.created).toHaveLength(1);
		expect(migration.created[0]).toMatchObject({
			scheme: 'standard',
			url: legacy.url,
			migratedFromId: legacy.id,
			password: null,
		});
		expect(migration.created[0].secret).toMatch(/^whsec_/);
		expect(client.admin.migrateLegacySubscriptions()).toEqual({ created: [], alreadyMigrated: 1 });
		expect(client.admin.listSubscriptions()).toHaveLength(2);

		client.admin.updateWebhookSettings({ legacyEnabled: true, standardEnabled: true });
		await oneEventFor();
		expect(receiver.received).toHaveLength(2);
		const standard = receiver.received.find((hook) => hook.headers['webhook-signature'])!;
		const old = receiver.received.find((hook) => hook.headers['sandbox-signature'])!;
		verify(migration.created[0].secret, standard);
		verifyLegacy(old, legacy.secret, 'sandbox-signature');
		expect(standard.json.messageId).toBe(old.json.messageId);
		expect(standard.json.password).toBeUndefined();

		client.admin.updateWebhookSettings({ standardEnabled: false });
		await oneEventFor();
		expect(
			receiver.received.slice(2).map((hook) => Boolean(hook.headers['sandbox-signature'])),
		).toEqual([true]);
	});
});

describe('delivery quirks (6.5)', () => {
	it('duplicate: a successful delivery arrives twice with the same webhook-id', async () => {
		subscribe(receiver, { quirks: { duplicate: true } });
		await oneEventFor();
		expect(receiver.received).toHaveLength(2);
		const [delivery, again] = receiver.received;
		expect(delivery.headers['webhook-id']).toBe(again.headers['webhook-id']);
		expect(client.admin.deliveryLog().map((attempt) => attempt.duplicate)).toEqual([false, true]);
	});

	it('out of order: each message is delivered after the one that follows it', async () => {
		const subscription = subscribe(receiver, { eventTypes: ['case.statuschange'] });
		client.admin.updateSubscription(subscription.id, { quirks: { outOfOrder: true } });
		const created = await oneEventFor();
		expect(receiver.received).toHaveLength(0);

		client.admin.advanceCase(created.id);
		await client.admin.idle();
		expect(receiver.received.map((hook) => hook.json.eventObject.secondaryStatus)).toEqual([
			'Authorization in Progress',
			'Waiting for Authorization',
		]);

		client.admin.advanceCase(created.id);
		await client.admin.advanceClock(60);
		expect(receiver.received.at(-1)!.json.eventObject.secondaryStatus).toBeNull();
	});
});

describe('deliveries that never arrive (6.5: missed events)', () => {
	it('fails every attempt of a chosen message without reaching the endpoint, retries included', async () => {
		const subscription = subscribe(receiver);
		const first = await oneEventFor();
		const [delivered] = client.admin.deliveryLog({ caseId: first.id });
		expect(delivered.outcome).toBe('succeeded');

		client.admin.injectDeliveryFault({ subscriptionId: subscription.id, dropRate: 1 });
		const missed = await oneEventFor();
		await client.admin.advanceClock(ALL_RETRIES_SECONDS + 3600);

		const attempts = client.admin.deliveryLog({ caseId: missed.id });
		expect(attempts.map((attempt) => attempt.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
		expect(
			attempts.every(
				(attempt) =>
					attempt.outcome === 'failed' && /dropped by delivery fault/.test(attempt.failure ?? ''),
			),
		).toBe(true);
		expect(attempts.at(-1)!.nextAttemptAt).toBeNull();
		expect(receiver.received).toHaveLength(1);
	});

	it('picks the same share of messages for every attempt, by message ID, and only for the subscription named', async () => {
		const faults = new DeliveryFaults();
		const rule = faults.add({ dropRate: 0.2, seed: 'fixed', subscriptionId: 'sub_a' });
		const ids = Array.from({ length: 2000 }, (_, index) => `msg_${index}`);
		const dropped = ids.filter((id) => faults.dropping('sub_a', id));
		expect(dropped.length / ids.length).toBeGreaterThan(0.17);
		expect(dropped.length / ids.length).toBeLessThan(0.23);
		expect(ids.filter((id) => faults.dropping('sub_a', id))).toEqual(dropped);
		expect(ids.filter((id) => faults.dropping('sub_b', id))).toEqual([]);
		faults.remove(rule.id);
		expect(faults.list()).toEqual([]);
	});

	it('drops named messages; refuses rules without a choice or with a bad rate; is managed over HTTP', async () => {
		const named = client.admin.injectDeliveryFault({ messageIds: ['msg_x'] });
		expect(named).toMatchObject({ dropRate: 0, messageIds: ['msg_x'], subscriptionId: null });
		expect(() => client.admin.injectDeliveryFault({})).toThrow(/dropRate or messageIds/);
		expect(() => client.admin.injectDeliveryFault({ dropRate: 2 })).toThrow(
			/dropRate must be a number from 0 to 1/,
		);
		const overHttp = await client.adminCall('POST', '/webhooks/faults', { dropRate: 0.5 });
		expect(overHttp.status).toBe(200);
		expect((await client.adminCall('GET', '/webhooks/faults')).body).toHaveLength(2);
		await client.adminCall('DELETE', '/webhooks/faults');
		expect(client.admin.listDeliveryFaults()).toEqual([]);
	});
});

describe('admin HTTP interface', () => {
	it('creates a subscription, advances the clock and reads the delivery log over HTTP', async () => {
		receiver.respondWith(() => 500);
		const subscription = (
			await client.adminCall('POST', '/webhooks/subscriptions', { url: receiver.url })
		).body;
		expect(subscription.secret).toMatch(/^whsec_/);
		await oneEventFor();
		await client.adminCall('POST', '/clock/advance', { seconds: 5 });

		const log = (
			await client.adminCall('GET', `/webhooks/deliveries?subscriptionId=${subscription.id}`)
		).body;
		expect(log.map((attempt: { attempt: number }) => attempt.attempt)).toEqual([1, 2]);
	});
});
