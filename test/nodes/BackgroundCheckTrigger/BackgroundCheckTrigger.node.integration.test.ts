/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets, @n8n/community-nodes/no-restricted-globals, @typescript-eslint/no-require-imports -- repository tooling: runs in Node.js, never inside n8n; require() in jest.isolateModules loads the node afresh */
/**
 * The trigger's webhook and lifecycle methods with deliveries signed and sent by the sandbox, through a
 * receiver that handles each request as n8n's live webhooks do (test/helpers/webhookContext.ts).
 */
import type {
	ICredentialDataDecryptedObject,
	ICredentialTestFunctions,
	IDataObject,
	INodeType,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { BackgroundCheckTrigger } from '../../../nodes/BackgroundCheckTrigger/BackgroundCheckTrigger.node';
import { contentKey, eventKeyOf, parseEvent } from '../../../nodes/BackgroundCheckTrigger/event';
import {
	CLAIM_SECONDS,
	DUPLICATE_MEMORY_SIZE,
	MEMORY_KEY,
	hashKey,
} from '../../../nodes/BackgroundCheckTrigger/memory';
import { DEFAULT_TOLERANCE_SECONDS } from '../../../nodes/shared/webhookSignature';
import { HANDOFF, HANDOFF_PARAMETER } from '../../../nodes/BackgroundCheckTrigger/handoff';
import {
	startSandbox,
	type Sandbox,
	type Subscription,
	type SubscriptionInput,
} from '../../../sandbox';
import {
	TriggerHarness,
	startTriggerReceiver,
	type IncomingDelivery,
	type TriggerReceiver,
	type TriggerSetup,
} from '../../helpers/webhookContext';
import { caseCompletedBody, signedHeaders } from '../../helpers/deliveries';
import { CredentialStore } from '../../helpers/n8nCore';

jest.setTimeout(20_000);

let sandbox: Sandbox;
const receivers: TriggerReceiver[] = [];
let workflowCounter = 0;

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0, timeScale: 0 });
});

afterEach(async () => {
	jest.restoreAllMocks();
	await sandbox.admin.idle();
	await Promise.all(receivers.splice(0).map((receiver) => receiver.stop()));
	sandbox.admin.reset();
});

afterAll(async () => {
	await sandbox.stop();
});

const webhookCredential = (
	subscription: Subscription,
	extra: ICredentialDataDecryptedObject = {},
) => ({
	backgroundCheckWebhookApi:
		subscription.scheme === 'standard'
			? { signingSecret: subscription.secret, ...extra }
			: { legacySecret: subscription.secret, ...extra },
});

interface Scenario {
	harness: TriggerHarness;
	receiver: TriggerReceiver;
	subscription: Subscription;
}

/** The first demo group's API credential against the sandbox, as stored before its first exchange. */
const apiCredential = () =>
	CredentialStore.forSandbox(sandbox.url, sandbox.demoCredentials[0]).data;

/** The webhook credential plus the API credential (Fetch Latest Case, the watchdog). */
const withApiCredential = (subscription: Subscription) => ({
	...webhookCredential(subscription),
	backgroundCheckApi: apiCredential(),
});

/** A trigger node behind a receiver, subscribed in the sandbox, its credential holding the endpoint's secret. */
async function scenario(
	setup: Omit<TriggerSetup, 'credentials'> & {
		credentials?: (subscription: Subscription) => TriggerSetup['credentials'];
	},
	subscriptionInput: Omit<SubscriptionInput, 'url'> = {},
	receiverOptions: { rawBodyPresent?: boolean } = {},
): Promise<Scenario> {
	const harness = new TriggerHarness(new BackgroundCheckTrigger(), {
		...setup,
		credentials: {},
		workflowId: `workflow-${++workflowCounter}`,
	});
	const receiver = await startTriggerReceiver(harness, receiverOptions);
	receivers.push(receiver);
	const subscription = sandbox.admin.createSubscription({
		url: receiver.url,
		...subscriptionInput,
	});
	harness.setup.credentials = setup.credentials?.(subscription) ?? webhookCredential(subscription);
	harness.setup.webhookUrl = receiver.url;
	await harness.activate();
	return { harness, receiver, subscription };
}

async function bearerToken(): Promise<string> {
	const [credential] = sandbox.demoCredentials;
	const response = await fetch(`${sandbox.url}/auth/api`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({
			apiKey: credential.apiKey,
			clientAccessToken: credential.clientAccessToken,
		}),
	});
	return ((await response.json()) as { token: string }).token;
}

/** Creates a case (its first case.statuschange goes out at once) and waits for the deliveries. */
async function createCase(
	email = `candidate-${Date.now()}-${Math.random()}@example.com`,
): Promise<string> {
	const response = await fetch(`${sandbox.url}/case/create`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', authorization: `Bearer ${await bearerToken()}` },
		body: JSON.stringify({
			candidate: { firstName: 'Ada', lastName: 'Lovelace', email },
			services: [{ id: 'service-idv-id' }],
			apiTrackingCode: 'HR-42',
		}),
	});
	const created = (await response.json()) as { id: string };
	await sandbox.admin.idle();
	return created.id;
}

async function advance(caseId: string): Promise<void> {
	sandbox.admin.advanceCase(caseId);
	await sandbox.admin.idle();
}

async function runToCompletion(caseId: string): Promise<void> {
	while (sandbox.admin.getCase(caseId).caseStatus !== 'Complete') await advance(caseId);
}

const eventObjectOf = (items: IDataObject[] | undefined) => items?.[0]?.eventObject as IDataObject;
const contentKeyOf = (item: IDataObject) =>
	contentKey({ event: String(item.event), eventObject: item.eventObject as IDataObject });

/** A case.statuschange signed with the endpoint's secret now, as the provider sends it. */
function signedDelivery(subscription: Subscription, messageId: string, caseId: string) {
	const body = caseCompletedBody(messageId, caseId);
	return { headers: signedHeaders(subscription.secret, messageId, body), body };
}

/** The node as a new n8n process loads it: its module afresh, so no process memory. */
function loadNodeAfresh(): INodeType {
	let RestartedTrigger: typeof BackgroundCheckTrigger | undefined;
	jest.isolateModules(() => {
		({
			BackgroundCheckTrigger: RestartedTrigger,
		} = require('../../../nodes/BackgroundCheckTrigger/BackgroundCheckTrigger.node'));
	});
	expect(RestartedTrigger).not.toBe(BackgroundCheckTrigger);
	return new RestartedTrigger!() as INodeType;
}

/** A new n8n process: the node loaded afresh, the workflow activated from its saved state. */
async function restart(harness: TriggerHarness): Promise<void> {
	harness.nodeType = loadNodeAfresh();
	await harness.activate('init');
}

/** Delivers `delivery` to the harness directly, with the receiver's clock moved by `shiftMs`. */
async function deliverAt(harness: TriggerHarness, delivery: IncomingDelivery, shiftMs: number) {
	const realNow = Date.now();
	jest.spyOn(Date, 'now').mockReturnValue(realNow + shiftMs);
	try {
		return await harness.handle(delivery);
	} finally {
		jest.restoreAllMocks();
	}
}

/** Another n8n process (queue mode's main or a second main) over the same database, with its own memory. */
async function anotherProcess(harness: TriggerHarness): Promise<TriggerHarness> {
	const other = new TriggerHarness(harness.nodeType, harness.setup);
	(other as unknown as { store: unknown }).store = harness.store;
	await restart(other);
	return other;
}

/** The trigger's memory as last saved in static data. */
const savedMemory = (harness: TriggerHarness) =>
	String(harness.store.nodeData('Background Check Trigger')?.[MEMORY_KEY] ?? '');

const hashOf = (delivery: { body: string }) =>
	hashKey(contentKey(parseEvent(Buffer.from(delivery.body))!));

/** A gate a test opens: holds a request where n8n inserts and starts its execution. */
function gate(): { opened: Promise<void>; open: () => void } {
	let open!: () => void;
	const opened = new Promise<void>((resolve) => (open = resolve));
	return { opened, open };
}

/** Whether `promise` is still pending after other requests had `ms` to run. */
async function pendingAfter(promise: Promise<unknown>, ms: number): Promise<boolean> {
	let settled = false;
	void promise.then(() => (settled = true));
	await new Promise((resolve) => setTimeout(resolve, ms));
	return !settled;
}

describe('signed deliveries from the sandbox', () => {
	it('starts one execution for a signed case.statuschange and answers 2xx', async () => {
		const { harness, receiver } = await scenario({});
		const caseId = await createCase();

		expect(receiver.answers).toEqual([200]);
		expect(harness.runCount).toBe(1);
		const [item] = harness.executions[0];
		const delivery = sandbox.admin.deliveryLog({ caseId })[0];
		expect(delivery.outcome).toBe('succeeded');
		expect(item).toEqual({
			messageId: delivery.messageId,
			event: 'case.statuschange',
			apiTrackingCode: 'HR-42',
			apiTrackingUser: null,
			eventObject: expect.objectContaining({
				id: caseId,
				caseStatus: 'Pending',
				secondaryStatus: 'Waiting for Authorization',
				modStamp: expect.any(String),
			}),
			eventKey: eventKeyOf(parseEvent(Buffer.from(JSON.stringify(delivery.payload)))!),
			deliveryId: delivery.headers['webhook-id'],
			deliveryTimestamp: new Date(
				Number(delivery.headers['webhook-timestamp']) * 1000,
			).toISOString(),
			signatureScheme: 'standard',
			source: 'webhook',
		});
	});

	it('answers a tampered body with 401 and a short reason, and starts nothing', async () => {
		const { harness } = await scenario({});
		await createCase();
		const original = harness.received[0];
		const tampered = Buffer.from(
			original.body.toString().replace('Waiting for Authorization', 'Authorization in Progress'),
		);

		const answer = await harness.handle({ headers: original.headers, body: tampered });
		expect(answer).toEqual({
			statusCode: 401,
			body: { message: 'Webhook signature rejected: signature mismatch' },
		});
		expect(harness.runCount).toBe(1);
	});

	it('refuses a delivery replayed after the tolerance, and one from the future', async () => {
		const { harness } = await scenario({});
		await createCase();
		const delivery = harness.received[0];
		const toleranceMs = DEFAULT_TOLERANCE_SECONDS * 1000;

		expect(await deliverAt(harness, delivery, toleranceMs + 2000)).toEqual({
			statusCode: 401,
			body: { message: 'Webhook signature rejected: timestamp too old' },
		});
		expect(await deliverAt(harness, delivery, -(toleranceMs + 2000))).toEqual({
			statusCode: 401,
			body: { message: 'Webhook signature rejected: timestamp too far in the future' },
		});
		expect(harness.runCount).toBe(1);
	});

	it('uses a configured tolerance', async () => {
		const { harness } = await scenario({ parameters: { options: { toleranceSeconds: 30 } } });
		await createCase();
		const answer = await deliverAt(
			harness,
			{
				...harness.received[0],
				headers: { ...harness.received[0].headers, 'webhook-id': 'other' },
			},
			40_000,
		);
		expect(answer.statusCode).toBe(401);
	});

	it('reads the raw body when n8n has not kept it', async () => {
		const { harness, receiver } = await scenario({}, {}, { rawBodyPresent: false });
		await createCase();
		expect(receiver.answers).toEqual([200]);
		expect(harness.runCount).toBe(1);
	});

	it("refuses deliveries signed with another endpoint's secret, and the sandbox retries them", async () => {
		const { harness, receiver } = await scenario({
			credentials: () => ({
				backgroundCheckWebhookApi: { signingSecret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
			}),
		});
		const caseId = await createCase();
		expect(receiver.answers).toEqual([401]);
		expect(harness.runCount).toBe(0);
		expect(sandbox.admin.deliveryLog({ caseId })[0]).toMatchObject({
			outcome: 'failed',
			statusCode: 401,
		});
	});
});

describe('secret rotation', () => {
	it('accepts deliveries throughout a rotation done on both sides', async () => {
		const { harness, receiver, subscription } = await scenario({});
		const caseId = await createCase();

		// The provider rotates: it signs with the old and the new secret; the credential still has the old one.
		const rotated = sandbox.admin.rotateSubscriptionSecret(subscription.id);
		await advance(caseId);
		expect(harness.received[1].headers['webhook-signature']).toContain(' ');

		// The credential gets the new secret, the old one kept as previous.
		harness.setup.credentials = webhookCredential(rotated, {
			previousSigningSecret: subscription.secret,
		});
		await advance(caseId);

		// The provider stops signing with the old secret.
		sandbox.admin.endSecretRotation(subscription.id);
		await advance(caseId);

		expect(receiver.answers).toEqual(sandbox.admin.deliveryLog({ caseId }).map(() => 200));
		expect(harness.runCount).toBe(
			sandbox.admin.deliveryLog({ caseId, event: 'case.statuschange' }).length,
		);
		expect(harness.runCount).toBe(4);
	});

	it('refuses deliveries once only a secret the provider no longer uses is left', async () => {
		const { harness, receiver, subscription } = await scenario({});
		const caseId = await createCase();
		sandbox.admin.rotateSubscriptionSecret(subscription.id);
		sandbox.admin.endSecretRotation(subscription.id);
		await advance(caseId);
		expect(receiver.answers).toEqual([200, 401]);
		expect(harness.runCount).toBe(1);
	});
});

describe('legacy scheme and both schemes', () => {
	beforeEach(() => {
		sandbox.admin.updateWebhookSettings({
			legacyEnabled: true,
			standardEnabled: false,
			legacyHeaderName: 'acme-signature',
		});
	});

	it('verifies legacy deliveries and drops the username and password from the output', async () => {
		const { harness, receiver } = await scenario(
			{ parameters: { signatureScheme: 'legacy', legacyHeaderName: 'Acme-Signature' } },
			{ scheme: 'legacy', username: 'endpoint-user', password: 'endpoint-password' },
		);
		await createCase();

		expect(harness.received[0].body.toString()).toContain('endpoint-password');
		expect(receiver.answers).toEqual([200]);
		const [item] = harness.executions[0];
		expect(item).not.toHaveProperty('username');
		expect(item).not.toHaveProperty('password');
		expect(JSON.stringify(item)).not.toContain('endpoint-password');
		expect(item).toMatchObject({
			event: 'case.statuschange',
			signatureScheme: 'legacy',
			deliveryId: null,
		});
	});

	it('finds the legacy header without a configured name', async () => {
		const { harness } = await scenario(
			{ parameters: { signatureScheme: 'legacy' } },
			{ scheme: 'legacy' },
		);
		await createCase();
		expect(harness.runCount).toBe(1);
	});

	it('refuses a standard delivery when only Legacy is selected', async () => {
		sandbox.admin.updateWebhookSettings({ standardEnabled: true, legacyEnabled: false });
		const { harness, receiver } = await scenario(
			{
				parameters: { signatureScheme: 'legacy' },
				credentials: (subscription) => ({
					backgroundCheckWebhookApi: { signingSecret: subscription.secret, legacySecret: 'abc' },
				}),
			},
			{ scheme: 'standard' },
		);
		await createCase();
		expect(receiver.answers).toEqual([401]);
		expect(harness.runCount).toBe(0);
	});

	it('runs once for each event that arrives through both delivery systems', async () => {
		sandbox.admin.updateWebhookSettings({ standardEnabled: true, legacyEnabled: true });
		const { harness, receiver } = await scenario(
			{
				parameters: { signatureScheme: 'both', event: 'any' },
				// The provider's migration copies the legacy endpoint into the standard system with a new secret.
				credentials: (legacy) => {
					const [migrated] = sandbox.admin.migrateLegacySubscriptions().created;
					return {
						backgroundCheckWebhookApi: {
							signingSecret: migrated.secret,
							legacySecret: legacy.secret,
						},
					};
				},
			},
			{ scheme: 'legacy', username: 'u', password: 'p' },
		);

		const caseId = await createCase();
		await runToCompletion(caseId);

		const events = new Set(
			sandbox.admin.deliveryLog({ caseId }).map((attempt) => attempt.messageId),
		);
		expect(sandbox.admin.deliveryLog({ caseId })).toHaveLength(events.size * 2);
		expect(receiver.answers.every((status) => status === 200)).toBe(true);
		expect(harness.runCount).toBe(events.size);
		expect(new Set(harness.executions.map(([item]) => item.messageId)).size).toBe(events.size);
	});
});

describe('duplicates', () => {
	it('answers a second copy of a delivery with 2xx and starts nothing', async () => {
		const { harness, receiver } = await scenario({}, { quirks: { duplicate: true } });
		const caseId = await createCase();
		await advance(caseId);

		expect(receiver.answers).toEqual([200, 200, 200, 200]);
		expect(harness.runCount).toBe(2);
	});

	it('runs once when copies of one delivery arrive at the same moment', async () => {
		const { harness, receiver, subscription } = await scenario({});
		const delivery = signedDelivery(subscription, 'msg_concurrent', 'case-x');

		const statuses = await Promise.all(
			Array.from(
				{ length: 6 },
				async () => (await fetch(receiver.url, { method: 'POST', ...delivery })).status,
			),
		);
		expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
		expect(harness.runCount).toBe(1);
	});

	it('holds a copy arriving while the first is being started until it has started, then calls it a duplicate', async () => {
		const { harness, subscription } = await scenario({});
		const delivery = signedDelivery(subscription, 'msg_while_starting', 'case-while-starting');
		const starting = gate();
		const first = harness.handle(delivery, { startAfter: starting.opened });
		const copy = harness.handle(delivery);
		expect(await pendingAfter(copy, 100)).toBe(true);
		starting.open();
		expect((await first).statusCode).toBe(200);
		expect(await copy).toMatchObject({ statusCode: 200, body: { reason: 'duplicate' } });
		expect(harness.runCount).toBe(1);
	});

	it('runs the copy that waited when n8n could not start the first (it answered 500)', async () => {
		const { harness, subscription } = await scenario({});
		const delivery = signedDelivery(subscription, 'msg_first_failed', 'case-first-failed');
		const starting = gate();
		const first = harness.handle(delivery, { startAfter: starting.opened });
		const copy = harness.handle(delivery);
		expect(await pendingAfter(copy, 100)).toBe(true);
		harness.failStarts = 1;
		starting.open();
		expect((await first).statusCode).toBe(500);
		expect(await copy).toMatchObject({ statusCode: 200, items: [expect.anything()] });
		expect(harness.runCount).toBe(1);
		expect((await harness.handle(delivery)).body).toMatchObject({ reason: 'duplicate' });
	});

	it('answers a copy 503 when the first has not been started after 5 seconds, so that the provider delivers it again', async () => {
		const { harness, subscription } = await scenario({});
		const delivery = signedDelivery(subscription, 'msg_slow_start', 'case-slow-start');
		const starting = gate();
		const first = harness.handle(delivery, { startAfter: starting.opened });
		expect(await harness.handle(delivery)).toEqual({
			statusCode: 503,
			body: { message: 'A copy of this event is being started' },
		});
		starting.open();
		expect((await first).statusCode).toBe(200);
		expect(harness.runCount).toBe(1);
	});

	it('saves every delivery again with the next one started after concurrent requests saved in the wrong order', async () => {
		const { harness, subscription } = await scenario({});
		const first = signedDelivery(subscription, 'msg_first', 'case-1');
		const second = signedDelivery(subscription, 'msg_second', 'case-2');
		const third = signedDelivery(subscription, 'msg_third', 'case-3');

		// Both load the same static data; the first starts first but its save lands last.
		await Promise.all([harness.handle(first, { saveAfterMs: 50 }), harness.handle(second)]);
		expect(harness.runCount).toBe(2);
		await harness.handle(third);

		await restart(harness);
		for (const delivery of [first, second, third])
			expect((await harness.handle(delivery)).body).toMatchObject({ reason: 'duplicate' });
		expect(harness.runCount).toBe(3);
	});

	it('still suppresses a redelivery after n8n restarts', async () => {
		const { harness } = await scenario({});
		await createCase();
		const delivery = harness.received[0];

		await restart(harness);
		expect((await harness.handle(delivery)).body).toMatchObject({ reason: 'duplicate' });
		expect(harness.runCount).toBe(1);
	});

	it('keeps its memory when n8n removes the webhook and makes it again (deactivate and activate, republish): a retry of an event from before starts nothing', async () => {
		const { harness } = await scenario({});
		await createCase();
		const [delivery] = harness.received;
		for (const activation of ['update', 'activate'] as const) {
			await harness.deactivateTrigger();
			await harness.lifecycle('delete');
			expect(savedMemory(harness)).toContain(hashOf({ body: delivery.body.toString() }));
			await harness.activate(activation);
			expect((await harness.handle(delivery)).body).toMatchObject({ reason: 'duplicate' });
		}
		await restart(harness);
		expect((await harness.handle(delivery)).body).toMatchObject({ reason: 'duplicate' });
		expect(harness.runCount).toBe(1);
	});

	it('keeps the production memory when a test webhook of the same workflow is removed', async () => {
		const { harness } = await scenario({});
		await createCase();
		const testRun = new TriggerHarness(harness.nodeType, {
			...harness.setup,
			mode: 'manual',
			workflowActive: false,
		});
		await testRun.activate('manual');
		await testRun.lifecycle('delete');
		// With the saved static data gone, only the process memory can still know the delivery.
		harness.store.clear();
		expect((await harness.handle(harness.received[0])).body).toMatchObject({ reason: 'duplicate' });
	});

	it('does not suppress repeated test events ("listen for test event")', async () => {
		const { harness } = await scenario({ mode: 'manual', workflowActive: false });
		await createCase();
		await harness.handle(harness.received[0]);
		expect(harness.runCount).toBe(2);
	});
});

describe('out-of-order deliveries', () => {
	async function swappedPair(dropOutOfOrder: boolean) {
		const setup = await scenario(
			{ parameters: { options: { dropOutOfOrder } } },
			{ quirks: { outOfOrder: true } },
		);
		const caseId = await createCase(); // held back until the next message for the endpoint
		await sandbox.admin.advanceClock(10);
		await advance(caseId); // sent first, then the held one
		return setup;
	}

	it('with Ignore Older Events, skips the event older than one already received', async () => {
		const { harness, receiver } = await swappedPair(true);
		expect(receiver.answers).toEqual([200, 200]);
		expect(harness.runCount).toBe(1);
		expect(eventObjectOf(harness.executions[0]).secondaryStatus).toBe('Authorization in Progress');
		expect((await harness.handle(harness.received[1])).body).toMatchObject({
			reason: expect.stringContaining('older than'),
		});
		expect((await harness.handle(harness.received[0])).body).toMatchObject({ reason: 'duplicate' });
	});

	it('without it, runs both, in the order they arrived', async () => {
		const { harness } = await swappedPair(false);
		expect(harness.executions.map((items) => eventObjectOf(items).secondaryStatus)).toEqual([
			'Authorization in Progress',
			'Waiting for Authorization',
		]);
	});
});

describe('event and status filters', () => {
	it('runs only for the case status selected ("start onboarding when a case is Complete")', async () => {
		const { harness, receiver } = await scenario({ parameters: { caseStatus: 'Complete' } });
		const caseId = await createCase();
		await runToCompletion(caseId);

		expect(harness.runCount).toBe(1);
		expect(eventObjectOf(harness.executions[0])).toMatchObject({
			id: caseId,
			caseStatus: 'Complete',
		});
		expect(receiver.answers.every((status) => status === 200)).toBe(true);
	});

	it('selects by secondary status, "none" meaning no secondary status', async () => {
		const { harness } = await scenario({
			parameters: { caseStatus: 'pending', secondaryStatus: 'none' },
		});
		const caseId = await createCase();
		await runToCompletion(caseId);
		expect(harness.executions.map((items) => eventObjectOf(items).secondaryStatus)).toEqual([null]);
	});

	it('runs only for the event type selected, and for every type with Any Event', async () => {
		const dataOnly = await scenario({ parameters: { event: 'casedata.statuschange' } });
		const any = await scenario({ parameters: { event: 'any' } });
		const caseId = await createCase();
		await runToCompletion(caseId);

		expect(dataOnly.harness.executions.map(([item]) => item.event)).toEqual([
			'casedata.statuschange',
		]);
		expect(any.harness.runCount).toBe(
			sandbox.admin.deliveryLog({ subscriptionId: any.subscription.id }).length,
		);
		expect(new Set(any.harness.executions.map(([item]) => item.event))).toEqual(
			new Set(['case.statuschange', 'casedata.statuschange']),
		);
	});

	it('does not hold back a filtered-out event from running once it is wanted', async () => {
		const { harness } = await scenario({ parameters: { caseStatus: 'Complete' } });
		await createCase();
		harness.setup.parameters = { caseStatus: '' };
		await harness.handle(harness.received[0]);
		expect(harness.runCount).toBe(1);
	});
});

describe('Fetch Latest Case', () => {
	const withApi = async (runtime?: 'oldest' | 'newest') =>
		await scenario({
			runtime,
			parameters: { fetchLatestCase: true },
			credentials: withApiCredential,
		});
	const caseRequests = (caseId: string) =>
		sandbox.admin.requestLog().filter((entry) => entry.path === `/case/id/${caseId}`);

	it('adds the case as the API returns it, in the execution', async () => {
		const { harness } = await withApi();
		const caseId = await createCase();
		await harness.idle();
		const [item] = harness.executions[0];
		expect(item.latestCase).toMatchObject({
			id: caseId,
			caseStatus: 'Pending',
			apiTrackingCode: 'HR-42',
		});
		expect(item).not.toHaveProperty('latestCaseError');
		expect(caseRequests(caseId)).toHaveLength(1);
	});

	it('answers the delivery before it calls the API: a slow API delays the execution, not the answer', async () => {
		const { harness, receiver } = await withApi();
		sandbox.admin.injectFault({
			kind: 'latency',
			latencyMs: 1500,
			method: 'GET',
			pathPrefix: '/case/id/',
		});
		const caseId = await createCase();
		// The sandbox has its answer (2xx) and the execution has started, while the API has not answered yet.
		expect(receiver.answers).toEqual([200]);
		expect(sandbox.admin.deliveryLog({ caseId })[0]).toMatchObject({
			outcome: 'succeeded',
			attempt: 1,
		});
		expect(harness.runCount).toBe(1);
		expect(caseRequests(caseId)).toHaveLength(0);
		expect(harness.executions[0][0]).not.toHaveProperty('latestCase');

		await harness.idle();
		expect(caseRequests(caseId)).toHaveLength(1);
		expect(harness.executions[0][0].latestCase).toMatchObject({ id: caseId });
	});

	it('runs the event once, with latestCaseError saying why, when the API fails; the provider does not retry', async () => {
		const { harness, receiver } = await withApi();
		sandbox.admin.injectFault({
			kind: 'status',
			status: 503,
			method: 'GET',
			pathPrefix: '/case/id/',
		});
		const caseId = await createCase();
		await harness.idle();
		expect(receiver.answers).toEqual([200]);
		expect(harness.failedExecutions).toEqual([]);
		expect(harness.runCount).toBe(1);
		expect(harness.executions[0][0]).toMatchObject({
			eventObject: { id: caseId },
			latestCase: null,
			latestCaseError: expect.stringMatching(/GET \/case\/id\/.*HTTP 503/),
		});
		expect(sandbox.admin.deliveryLog({ caseId })).toEqual([
			expect.objectContaining({ outcome: 'succeeded', nextAttemptAt: null }),
		]);
	});

	it('runs the event with latestCaseError when the credential cannot be exchanged for a token', async () => {
		const { harness } = await scenario({
			parameters: { fetchLatestCase: true },
			credentials: (subscription) => ({
				...webhookCredential(subscription),
				backgroundCheckApi: { ...apiCredential(), apiKey: 'revoked-partner-key' },
			}),
		});
		const caseId = await createCase();
		await harness.idle();
		expect(harness.runCount).toBe(1);
		expect(harness.executions[0][0]).toMatchObject({
			eventObject: { id: caseId },
			latestCase: null,
			latestCaseError: expect.any(String),
		});
		expect(String(harness.executions[0][0].latestCaseError)).not.toContain('revoked-partner-key');
	});

	it('never runs an event zero times: a copy arriving while the first is being handled is a duplicate, and the first still runs', async () => {
		const { harness, subscription } = await withApi();
		sandbox.admin.injectFault({
			kind: 'latency',
			latencyMs: 500,
			method: 'GET',
			pathPrefix: '/case/id/',
			times: 1,
		});
		const delivery = signedDelivery(subscription, 'msg_while_pending', 'case-missing');
		expect((await harness.handle(delivery)).statusCode).toBe(200);
		expect((await harness.handle(delivery)).body).toMatchObject({ reason: 'duplicate' });
		await harness.idle();
		expect(harness.runCount).toBe(1);
		expect(harness.executions[0][0]).toMatchObject({
			latestCase: null,
			latestCaseError: expect.stringContaining('Invalid case'),
		});
	});
});

describe.each(['oldest', 'newest'] as const)('the saved memory, on n8n %s', (runtime) => {
	it('holds every accepted delivery once its answer is sent: after a restart even the last one before a quiet spell is a duplicate', async () => {
		const { harness, subscription } = await scenario({ runtime });
		const deliveries = Array.from({ length: 30 }, (_, index) =>
			signedDelivery(subscription, `msg_quiet_${index}`, `case-quiet-${index}`),
		);
		for (const delivery of deliveries) {
			const savesBefore = harness.store.saves;
			expect((await harness.handle(delivery)).statusCode).toBe(200);
			expect(harness.store.saves).toBe(savesBefore + 1);
			// A restart right after this answer: the delivery is already in what n8n saved.
			const restarted = new TriggerHarness(harness.nodeType, harness.setup);
			(restarted as unknown as { store: unknown }).store = harness.store;
			await restart(restarted);
			expect((await restarted.handle(delivery)).body).toMatchObject({ reason: 'duplicate' });
		}
		expect(harness.runCount).toBe(30);
	}, 120_000);

	it('answers none of the deliveries arriving together before a save holding it has been made', async () => {
		const { harness, subscription } = await scenario({ runtime });
		const deliveries = Array.from({ length: 12 }, (_, index) =>
			signedDelivery(subscription, `msg_together_${index}`, `case-together-${index}`),
		);
		const savedWhenAnswered = await Promise.all(
			deliveries.map(async (delivery) => {
				expect((await harness.handle(delivery)).statusCode).toBe(200);
				return savedMemory(harness);
			}),
		);
		expect(harness.runCount).toBe(12);
		deliveries.forEach((delivery, index) => {
			expect({ index, saved: savedWhenAnswered[index].includes(hashOf(delivery)) }).toEqual({
				index,
				saved: true,
			});
		});
		await restart(harness);
		for (const delivery of deliveries)
			expect((await harness.handle(delivery)).body).toMatchObject({ reason: 'duplicate' });
	});

	it('never saves an event whose execution has not started: a delivery started meanwhile saves without it', async () => {
		const { harness, subscription } = await scenario({ runtime });
		const started = signedDelivery(subscription, 'msg_started', 'case-started');
		const notYet = signedDelivery(subscription, 'msg_not_yet', 'case-not-yet');
		const starting = gate();
		const pending = harness.handle(notYet, { startAfter: starting.opened });
		expect((await harness.handle(started)).statusCode).toBe(200);
		expect(savedMemory(harness)).toContain(hashOf(started));
		expect(savedMemory(harness)).not.toContain(hashOf(notYet));
		// n8n then fails to start it: no save ever held it, and the provider's next delivery runs it.
		harness.failStarts = 1;
		starting.open();
		expect((await pending).statusCode).toBe(500);
		expect(savedMemory(harness)).not.toContain(hashOf(notYet));
		await restart(harness);
		expect((await harness.handle(notYet)).statusCode).toBe(200);
		expect(savedMemory(harness)).toContain(hashOf(notYet));
		expect(harness.executions.map(([item]) => item.messageId)).toEqual([
			'msg_started',
			'msg_not_yet',
		]);
	});

	it("releases an event when n8n answers 500 without starting its execution: the provider's retry runs it, once", async () => {
		const { harness, receiver } = await scenario({ runtime });
		harness.failStarts = 1;
		const caseId = await createCase();
		expect(receiver.answers).toEqual([500]);
		expect(harness.runCount).toBe(0);
		await sandbox.admin.advanceClock(5);
		expect(receiver.answers).toEqual([500, 200]);
		expect(sandbox.admin.deliveryLog({ caseId }).map((attempt) => attempt.outcome)).toEqual([
			'failed',
			'succeeded',
		]);
		expect(harness.runCount).toBe(1);
		expect((await harness.handle(harness.received[1])).body).toMatchObject({
			reason: 'duplicate',
		});
	});

	it('writes nothing for a duplicate when the saved copy already holds everything', async () => {
		const { harness, subscription } = await scenario({ runtime });
		const delivery = signedDelivery(subscription, 'msg_once', 'case-once');
		await harness.handle(delivery);
		const savesBefore = harness.store.saves;
		expect((await harness.handle(delivery)).body).toMatchObject({ reason: 'duplicate' });
		expect(harness.store.saves).toBe(savesBefore);
	});

	it("saves nothing from an execution in a process that never read the saved memory (a queue-mode worker): it would replace the webhook process's later saves", async () => {
		const { harness, subscription } = await scenario({ runtime });
		const first = signedDelivery(subscription, 'msg_worker_first', 'case-worker-first');
		const second = signedDelivery(subscription, 'msg_worker_second', 'case-worker-second');
		const copyAtCreation = harness.store.copy();
		await harness.handle(first);
		await harness.handle(second);
		await harness.idle();
		const savesBefore = harness.store.saves;
		await harness.executeOnWorker(
			loadNodeAfresh(),
			[{ json: harness.executions[0][0] }],
			copyAtCreation,
		);
		expect(harness.store.saves).toBe(savesBefore);
		expect(savedMemory(harness)).toContain(hashOf(first));
		expect(savedMemory(harness)).toContain(hashOf(second));
	});

	it('puts back what another process saved over, with the next request, a duplicate included', async () => {
		const { harness, subscription } = await scenario({ runtime });
		const first = signedDelivery(subscription, 'msg_overwritten', 'case-overwritten');
		const second = signedDelivery(subscription, 'msg_other_process', 'case-other-process');
		const other = await anotherProcess(harness);
		// Both read the saved memory before either saved; the other process's save lands last.
		await Promise.all([harness.handle(first), other.handle(second, { saveAfterMs: 50 })]);
		expect(savedMemory(harness)).not.toContain(hashOf(first));
		const savesBefore = harness.store.saves;
		expect((await harness.handle(first)).body).toMatchObject({ reason: 'duplicate' });
		expect(harness.store.saves).toBe(savesBefore + 1);
		await restart(harness);
		expect((await harness.handle(first)).body).toMatchObject({ reason: 'duplicate' });
		expect((await harness.handle(second)).body).toMatchObject({ reason: 'duplicate' });
	});
});

describe('Duplicate Memory Size', () => {
	const harnessWithSize = (duplicateMemorySize: unknown) =>
		new TriggerHarness(new BackgroundCheckTrigger(), {
			workflowId: `workflow-${++workflowCounter}`,
			parameters: { options: { duplicateMemorySize } },
			credentials: {
				backgroundCheckWebhookApi: { signingSecret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
			},
		});

	it.each([0, '', -5, 'abc', 99, 150.5, 20_001, null])(
		'refuses %p at activation, naming the field',
		async (size) => {
			await expect(harnessWithSize(size).activate()).rejects.toThrow(
				/^Duplicate Memory Size must be a whole number from 100 to 20,000/,
			);
		},
	);

	it.each([100, '2500', 20_000])('accepts %p', async (size) => {
		await expect(harnessWithSize(size).activate()).resolves.toBeUndefined();
	});

	it('keeps suppressing duplicates with the default when an expression turns bad after activation', async () => {
		const { harness, subscription } = await scenario({
			parameters: { options: { duplicateMemorySize: 500 } },
		});
		harness.setup.parameters = { options: { duplicateMemorySize: 'abc' } };
		const delivery = signedDelivery(subscription, 'msg_bad_size', 'case-bad-size');
		await harness.handle(delivery);
		expect((await harness.handle(delivery)).body).toMatchObject({ reason: 'duplicate' });
		expect(
			harness.logs.some(
				(line) => line.level === 'warn' && line.message.includes('Duplicate Memory Size'),
			),
		).toBe(true);
	});
});

describe('Reconcile Missed Events (the watchdog)', () => {
	const watched = async (parameters: IDataObject = {}, runtime?: 'oldest' | 'newest') =>
		await scenario({
			runtime,
			parameters: { event: 'any', reconcile: true, reconcileEvery: '10s', ...parameters },
			credentials: withApiCredential,
		});
	/** The messages of a case published since `after` attempts, by ID. */
	const messagesOf = (caseId: string) => [
		...new Set(sandbox.admin.deliveryLog({ caseId }).map((attempt) => attempt.messageId)),
	];
	const itemsBySource = (harness: TriggerHarness, source: string) =>
		harness.executions.flatMap(([item]) => (item?.source === source ? [item] : []));

	it("registers a look with n8n's scheduler at the chosen interval, and records the cases at activation without running them", async () => {
		const caseId = await createCase();
		await advance(caseId);
		const { harness } = await watched();
		expect(harness.schedules).toEqual(['*/10 * * * * *']);
		const webhookRuns = harness.runCount;
		await harness.tick();
		expect(harness.runCount).toBe(webhookRuns);
		expect(harness.failedTriggerRuns).toEqual([]);
	});

	it('runs a change whose delivery never arrives once, at the next look, in the trigger\'s output shape with source "reconciliation"', async () => {
		const { harness, subscription } = await watched({ fetchLatestCase: true });
		const caseId = await createCase();
		sandbox.admin.injectDeliveryFault({ subscriptionId: subscription.id, dropRate: 1 });
		await advance(caseId);
		const [, missed] = messagesOf(caseId);
		expect(sandbox.admin.deliveryLog({ messageId: missed })[0]).toMatchObject({
			outcome: 'failed',
		});

		await harness.tick();
		await harness.idle();
		const [reconciled] = itemsBySource(harness, 'reconciliation');
		const payload = sandbox.admin.deliveryLog({ messageId: missed })[0].payload as IDataObject;
		expect(reconciled).toEqual({
			event: 'case.statuschange',
			messageId: null,
			apiTrackingCode: 'HR-42',
			apiTrackingUser: null,
			eventObject: payload.eventObject,
			eventKey: eventKeyOf(parseEvent(Buffer.from(JSON.stringify(payload)))!),
			deliveryId: null,
			deliveryTimestamp: null,
			signatureScheme: null,
			source: 'reconciliation',
			latestCase: expect.objectContaining({
				id: caseId,
				secondaryStatus: 'Authorization in Progress',
			}),
		});
		expect(itemsBySource(harness, 'webhook')).toHaveLength(1);
		await harness.tick();
		expect(harness.runCount).toBe(2);
	});

	it('runs a change seen both ways once, whichever comes first', async () => {
		const { harness, subscription } = await watched();
		const caseId = await createCase();
		// Delivered first: the look finds nothing new.
		await advance(caseId);
		await harness.tick();
		expect(itemsBySource(harness, 'reconciliation')).toEqual([]);
		// Found first: the provider's retry, once the endpoint works again, is a duplicate.
		const fault = sandbox.admin.injectDeliveryFault({
			subscriptionId: subscription.id,
			dropRate: 1,
		});
		await advance(caseId);
		await harness.tick();
		expect(itemsBySource(harness, 'reconciliation')).toHaveLength(1);
		sandbox.admin.removeDeliveryFault(fault.id);
		await sandbox.admin.advanceClock(5);
		const [, , late] = messagesOf(caseId);
		expect(
			sandbox.admin.deliveryLog({ messageId: late }).map((attempt) => attempt.outcome),
		).toEqual(['failed', 'succeeded']);
		expect(harness.runCount).toBe(3);
		expect(new Set(harness.executions.map(([item]) => contentKeyOf(item))).size).toBe(3);
	});

	it("after n8n's Update of the package, a delivered change the old version's watchdog finds again runs nothing past the trigger; an undelivered one runs once", async () => {
		const { harness, subscription } = await watched();
		const caseId = await createCase();
		// n8n's Update loads the new version beside the one that activated the workflow: deliveries and
		// executions run the new code, while the old version's watchdog keeps looking with its own memory.
		harness.nodeType = loadNodeAfresh();
		await advance(caseId);
		await harness.tick();
		await harness.idle();
		const [delivered] = itemsBySource(harness, 'webhook').slice(-1);
		expect(itemsBySource(harness, 'reconciliation')).toEqual([]);
		// The old watchdog's emit of the delivered change: an execution whose first step outputs nothing.
		expect(harness.executions.filter((items) => items.length === 0)).toHaveLength(1);
		// n8n saved the old watchdog's memory when it emitted; that execution saved the new one's again.
		expect(savedMemory(harness)).toContain(hashKey(contentKeyOf(delivered)));

		sandbox.admin.injectDeliveryFault({ subscriptionId: subscription.id, dropRate: 1 });
		await advance(caseId);
		await harness.tick();
		await harness.idle();
		const found = itemsBySource(harness, 'reconciliation');
		expect(found).toHaveLength(1);
		expect(contentKeyOf(found[0])).not.toBe(contentKeyOf(delivered));
		// Learnt from its execution: the next look hands nothing over again.
		await harness.tick();
		await harness.idle();
		expect(harness.runCount).toBe(4);
	});

	it('applies the event and status filters to what it finds', async () => {
		const { harness, subscription } = await watched({
			event: 'case.statuschange',
			caseStatus: 'Complete',
		});
		const caseId = await createCase();
		sandbox.admin.injectDeliveryFault({ subscriptionId: subscription.id, dropRate: 1 });
		await runToCompletion(caseId);
		await harness.tick();
		expect(
			harness.executions.map(([item]) => [
				item.event,
				(item.eventObject as IDataObject).caseStatus,
				item.source,
			]),
		).toEqual([['case.statuschange', 'Complete', 'reconciliation']]);
	});

	it('keeps its record across a restart: a change made while n8n was down runs at the first look after it', async () => {
		const { harness, subscription } = await watched();
		const caseId = await createCase();
		sandbox.admin.injectDeliveryFault({ subscriptionId: subscription.id, dropRate: 1 });
		await restart(harness);
		await advance(caseId);
		await restart(harness);
		await harness.tick();
		expect(
			itemsBySource(harness, 'reconciliation').map(
				(item) => (item.eventObject as IDataObject).secondaryStatus,
			),
		).toEqual(['Authorization in Progress']);
	});

	it("runs a change the watchdog found once, even when the provider's late retry carries an older modStamp (the case was edited without a status change)", async () => {
		const { harness, subscription } = await watched();
		const caseId = await createCase();
		const fault = sandbox.admin.injectDeliveryFault({
			subscriptionId: subscription.id,
			dropRate: 1,
		});
		await advance(caseId);
		const [, missed] = messagesOf(caseId);
		const delivered = sandbox.admin.deliveryLog({ messageId: missed })[0].payload as IDataObject;
		await sandbox.admin.advanceClock(2);
		const edited = await fetch(`${sandbox.url}/case/id/${caseId}/candidate`, {
			method: 'PUT',
			headers: {
				'content-type': 'application/json',
				authorization: `Bearer ${await bearerToken()}`,
			},
			body: JSON.stringify({ candidate: { firstName: 'Augusta' } }),
		});
		expect(edited.status).toBe(200);
		await harness.tick();
		await harness.idle();
		const [found] = itemsBySource(harness, 'reconciliation');
		const oldStamp = (delivered.eventObject as IDataObject).modStamp as string;
		const foundStamp = (found.eventObject as IDataObject).modStamp as string;
		expect(Date.parse(foundStamp)).toBeGreaterThan(Date.parse(oldStamp));
		expect(found.eventObject).toMatchObject({
			secondaryStatus: (delivered.eventObject as IDataObject).secondaryStatus,
		});

		sandbox.admin.removeDeliveryFault(fault.id);
		await sandbox.admin.advanceClock(5);
		expect(
			sandbox.admin.deliveryLog({ messageId: missed }).map((attempt) => attempt.outcome),
		).toEqual(['failed', 'succeeded']);
		expect(harness.runCount).toBe(2);
		await harness.tick();
		expect(harness.runCount).toBe(2);
	});

	it('does not let an older delivery arriving after a newer one make the next look run anything', async () => {
		const { harness } = await scenario(
			{
				parameters: { event: 'any', reconcile: true, reconcileEvery: '10s' },
				credentials: withApiCredential,
			},
			{ quirks: { outOfOrder: true } },
		);
		const caseId = await createCase(); // held back until the next message for the endpoint
		await sandbox.admin.advanceClock(10);
		await advance(caseId); // sent first, then the held one
		expect(harness.executions.map(([item]) => eventObjectOf([item]).secondaryStatus)).toEqual([
			'Authorization in Progress',
			'Waiting for Authorization',
		]);
		const requestsBefore = sandbox.admin.requestLog().length;
		await harness.tick();
		expect(harness.runCount).toBe(2);
		// The list says the case is where the newer delivery left it: nothing to read.
		expect(
			sandbox.admin
				.requestLog()
				.slice(requestsBefore)
				.map((entry) => entry.path),
		).toEqual(['/case/list']);
	});

	it("finds a change again when n8n could not run the execution the look emitted (runWorkflow failed), once that look's claim has lapsed", async () => {
		const { harness, subscription } = await watched();
		const caseId = await createCase();
		sandbox.admin.injectDeliveryFault({ subscriptionId: subscription.id, dropRate: 1 });
		await advance(caseId);
		harness.failRunWorkflows = 1;
		await harness.tick();
		await harness.idle();
		expect(itemsBySource(harness, 'reconciliation')).toEqual([]);
		// n8n never settles the emit's donePromise then; the claim holds back copies for CLAIM_SECONDS.
		jest.spyOn(Date, 'now').mockReturnValue(Date.now() + (CLAIM_SECONDS + 1) * 1000);
		await harness.tick();
		await harness.idle();
		expect(
			itemsBySource(harness, 'reconciliation').map(
				(item) => (item.eventObject as IDataObject).secondaryStatus,
			),
		).toEqual(['Authorization in Progress']);
		await harness.tick();
		expect(itemsBySource(harness, 'reconciliation')).toHaveLength(1);
	});

	it('saves a failed look as a failed execution and finds the change at the next one', async () => {
		const { harness, subscription } = await watched();
		const caseId = await createCase();
		sandbox.admin.injectDeliveryFault({ subscriptionId: subscription.id, dropRate: 1 });
		await advance(caseId);
		sandbox.admin.injectFault({
			kind: 'status',
			status: 503,
			method: 'GET',
			pathPrefix: '/case/list',
			times: 1,
		});
		await harness.tick();
		expect(harness.failedTriggerRuns.map((error) => error.message)).toEqual([
			expect.stringMatching(/^The watchdog could not list the cases: .*503/),
		]);
		await harness.tick();
		expect(itemsBySource(harness, 'reconciliation')).toHaveLength(1);
	});

	it('refuses activation when it cannot list the cases, but not a restart (the first look records them then)', async () => {
		sandbox.admin.injectFault({
			kind: 'status',
			status: 500,
			method: 'GET',
			pathPrefix: '/case/list',
			times: 1,
		});
		await expect(watched()).rejects.toThrow(
			/^The watchdog could not list the cases of the credential's group: .*500/,
		);
		const { harness } = await watched();
		// A start without a saved record (static data from before Reconcile Missed Events was on).
		await harness.deactivateTrigger();
		harness.store.clear();
		sandbox.admin.injectFault({
			kind: 'status',
			status: 500,
			method: 'GET',
			pathPrefix: '/case/list',
			times: 1,
		});
		await expect(restart(harness)).resolves.toBeUndefined();
		expect(
			harness.logs.some((line) => line.level === 'warn' && line.message.includes('could not list')),
		).toBe(true);
		await createCase();
		await harness.tick();
		expect(itemsBySource(harness, 'reconciliation')).toEqual([]);
	});

	it('when off, schedules nothing and drops the record an earlier watchdog saved', async () => {
		await createCase();
		const { harness } = await watched();
		expect(savedMemory(harness)).toMatch(/^m1 1\n[^]*\nw\t/);
		harness.setup.parameters = { ...harness.setup.parameters, reconcile: false };
		await harness.activate('update');
		expect(harness.schedules).toEqual([]);
		expect(savedMemory(harness)).toMatch(/^m1 0(\n|$)/);
		expect(savedMemory(harness)).not.toMatch(/\nw\t/);
	});

	it('keeps its record when n8n republishes the workflow (webhook removed and made again): a change made meanwhile runs at the next look', async () => {
		const { harness, subscription } = await watched();
		const caseId = await createCase();
		sandbox.admin.injectDeliveryFault({ subscriptionId: subscription.id, dropRate: 1 });
		await harness.deactivateTrigger();
		await harness.lifecycle('delete');
		await advance(caseId);
		await harness.activate('update');
		await harness.tick();
		expect(
			itemsBySource(harness, 'reconciliation').map(
				(item) => (item.eventObject as IDataObject).secondaryStatus,
			),
		).toEqual(['Authorization in Progress']);
	});

	it('makes a new record when a user activates the workflow again: changes made while it was inactive are not replayed', async () => {
		const { harness, subscription } = await watched();
		const caseId = await createCase();
		sandbox.admin.injectDeliveryFault({ subscriptionId: subscription.id, dropRate: 1 });
		await harness.deactivateTrigger();
		await harness.lifecycle('delete');
		await advance(caseId);
		await harness.activate('activate');
		await harness.tick();
		expect(itemsBySource(harness, 'reconciliation')).toEqual([]);
	});
});

describe('Reconcile Missed Events handed to the webhook URL (queue mode)', () => {
	/**
	 * Queue mode's two roles over one database: `owner` receives every delivery (a webhook process), `main`
	 * runs the watchdog and never sees a delivery (n8n's main process, its own memory).
	 */
	async function queueMode(parameters: IDataObject = {}) {
		const {
			harness: owner,
			receiver,
			subscription,
		} = await scenario({
			parameters: {
				event: 'any',
				reconcile: true,
				reconcileEvery: '10s',
				reconcileHandoff: 'webhook',
				...parameters,
			},
			credentials: withApiCredential,
		});
		const main = await anotherProcess(owner);
		return { owner, main, receiver, subscription };
	}
	const sources = (harness: TriggerHarness) => harness.executions.map(([item]) => item.source);

	it('hands a change whose delivery never arrived to the webhook URL: the receiving process runs it once', async () => {
		const { owner, main, subscription } = await queueMode();
		const caseId = await createCase();
		sandbox.admin.injectDeliveryFault({ subscriptionId: subscription.id, dropRate: 1 });
		await advance(caseId);

		const savesBefore = owner.store.saves;
		await main.tick();
		await owner.idle();
		expect(main.failedTriggerRuns).toEqual([]);
		expect(main.runCount).toBe(0);
		expect(sources(owner)).toEqual(['webhook', 'reconciliation']);
		const [, [found]] = owner.executions;
		expect(found).toMatchObject({
			eventObject: { id: caseId, secondaryStatus: 'Authorization in Progress' },
			deliveryId: expect.stringMatching(/^watchdog_/),
			signatureScheme: 'standard',
		});
		// Only the receiving process saved (once, for the run); the main process learnt it in its own memory.
		expect(owner.store.saves).toBe(savesBefore + 1);
		await main.tick();
		await owner.idle();
		expect(owner.runCount).toBe(2);
		expect(owner.received).toHaveLength(2);
	});

	it('runs a change that was delivered and also found by a look once: the main process never saw the delivery', async () => {
		const { owner, main } = await queueMode();
		const caseId = await createCase();
		await runToCompletion(caseId);
		const delivered = owner.runCount;
		expect(delivered).toBeGreaterThan(2);

		await main.tick();
		await owner.idle();
		// Every change was handed over again and answered as a duplicate: nothing ran twice.
		expect(owner.received.length).toBeGreaterThan(delivered);
		expect(owner.runCount).toBe(delivered);
		expect(new Set(owner.executions.map(([item]) => contentKeyOf(item))).size).toBe(delivered);
		// Learnt from the answers: the next look hands nothing over.
		const handed = owner.received.length;
		await main.tick();
		expect(owner.received).toHaveLength(handed);
	});

	it('finds a change again when the webhook URL did not take it, and runs it once then', async () => {
		const { owner, main, subscription } = await queueMode();
		const caseId = await createCase();
		sandbox.admin.injectDeliveryFault({ subscriptionId: subscription.id, dropRate: 1 });
		await advance(caseId);

		owner.failStarts = 1;
		await main.tick();
		expect(main.failedTriggerRuns.map((error) => error.message)).toEqual([
			'The watchdog could not hand 1 change(s) to the webhook URL; the next look finds them again',
		]);
		expect(owner.runCount).toBe(1);
		await main.tick();
		await owner.idle();
		expect(sources(owner)).toEqual(['webhook', 'reconciliation']);
	});

	it('finds, after every process was down, the changes made meanwhile', async () => {
		const { owner, subscription } = await queueMode();
		const caseId = await createCase();
		sandbox.admin.injectDeliveryFault({ subscriptionId: subscription.id, dropRate: 1 });
		await advance(caseId);
		// n8n starts again: a new main process over what the receiving process saved.
		const main = await anotherProcess(owner);
		await main.tick();
		await owner.idle();
		expect(sources(owner)).toEqual(['webhook', 'reconciliation']);
	});

	it('refuses activation when the watchdog could not sign what it hands over', async () => {
		const harness = new TriggerHarness(new BackgroundCheckTrigger(), {
			parameters: {
				reconcile: true,
				reconcileHandoff: 'webhook',
				signatureScheme: 'legacy',
				legacyHeaderName: 'x-signature',
			},
			credentials: {
				backgroundCheckWebhookApi: { legacySecret: 'a-legacy-secret-of-some-length' },
				backgroundCheckApi: apiCredential(),
			},
			workflowId: `workflow-${++workflowCounter}`,
		});
		await expect(harness.activate()).rejects.toThrow(
			'Handing found changes to the webhook URL needs the Standard Webhooks scheme',
		);
	});
});

describe('lifecycle', () => {
	const harnessWith = (credential: ICredentialDataDecryptedObject, parameters: IDataObject = {}) =>
		new TriggerHarness(new BackgroundCheckTrigger(), {
			workflowId: `workflow-${++workflowCounter}`,
			parameters,
			credentials: { backgroundCheckWebhookApi: credential },
		});

	it('refuses to activate with a signing secret that is not whsec_ base64', async () => {
		const harness = harnessWith({ signingSecret: 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' });
		const activation = harness.activate();
		await expect(activation).rejects.toBeInstanceOf(NodeOperationError);
		await expect(harness.activate()).rejects.toThrow('The Signing Secret is not a whsec_ secret');
		expect(harness.store.nodeData('Background Check Trigger')).toBeUndefined();
	});

	it('refuses to activate Legacy without a legacy secret, and lists every problem', async () => {
		await expect(
			harnessWith({ signingSecret: '' }, { signatureScheme: 'legacy' }).activate(),
		).rejects.toThrow('no Legacy Secret');
		const error = await harnessWith({ signingSecret: 'nope' }, { signatureScheme: 'both' })
			.activate()
			.catch((caught: NodeOperationError) => caught);
		expect((error as NodeOperationError).description).toContain('no Legacy Secret');
	});

	it('sets up its local state on activation, keeps it on restart and clears it on deactivation', async () => {
		const harness = harnessWith({ signingSecret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' });
		expect(await harness.lifecycle('checkExists')).toBe(false);
		expect(await harness.lifecycle('create')).toBe(true);
		expect(harness.store.nodeData('Background Check Trigger')).toEqual({
			activatedAt: expect.any(String),
		});
		expect(await harness.lifecycle('checkExists', 'init')).toBe(true);
		expect(await harness.lifecycle('delete')).toBe(true);
		expect(await harness.lifecycle('checkExists')).toBe(false);
	});

	it('checks the configuration again on every start, not only the first activation', async () => {
		const harness = harnessWith({ signingSecret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' });
		await harness.activate();
		harness.setup.credentials = { backgroundCheckWebhookApi: { signingSecret: 'whsec_???' } };
		await expect(harness.activate('init')).rejects.toThrow('not a whsec_ secret');
	});
});

describe('node description and credential test', () => {
	const trigger = new BackgroundCheckTrigger();
	const testSecrets = (data: ICredentialDataDecryptedObject) =>
		trigger.methods.credentialTest.checkWebhookSecrets.call({} as ICredentialTestFunctions, {
			id: '1',
			name: 'webhook',
			type: 'backgroundCheckWebhookApi',
			data,
		});

	it('describes a POST webhook trigger with the notice about where the URL and secret go', () => {
		const { description } = trigger;
		expect(description).toMatchObject({
			name: 'backgroundCheckTrigger',
			displayName: 'Background Check Trigger',
			inputs: [],
			group: ['trigger'],
		});
		expect(description.webhooks).toEqual([
			expect.objectContaining({ httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' }),
		]);
		const notice = description.properties.find((property) => property.type === 'notice');
		expect(notice?.displayName).toMatch(/Production URL.*signing secret \(whsec_/);
	});

	it('has option defaults equal to the constants the code uses', () => {
		const options = trigger.description.properties.find((property) => property.name === 'options')
			?.options as unknown as IDataObject[];
		expect(options.find((option) => option.name === 'toleranceSeconds')?.default).toBe(
			DEFAULT_TOLERANCE_SECONDS,
		);
		expect(options.find((option) => option.name === 'duplicateMemorySize')).toMatchObject({
			default: DUPLICATE_MEMORY_SIZE.default,
			typeOptions: { minValue: DUPLICATE_MEMORY_SIZE.min, maxValue: DUPLICATE_MEMORY_SIZE.max },
		});
		const handoff = trigger.description.properties.find(
			(property) => property.name === HANDOFF_PARAMETER,
		);
		expect(handoff?.default).toBe(HANDOFF.process);
		expect(handoff?.options?.map((option) => (option as { value: string }).value).sort()).toEqual(
			Object.values(HANDOFF).sort(),
		);
	});

	it('checks the form of the secrets and says that only a delivery proves them', async () => {
		expect(await testSecrets({ signingSecret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' })).toEqual({
			status: 'OK',
			message: expect.stringContaining('Send a test event'),
		});
		expect(await testSecrets({ legacySecret: 'abc' })).toMatchObject({ status: 'OK' });
		expect(await testSecrets({ signingSecret: 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' })).toMatchObject({
			status: 'Error',
		});
		expect(
			await testSecrets({
				signingSecret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
				previousSigningSecret: 'old',
			}),
		).toMatchObject({
			status: 'Error',
		});
		expect(await testSecrets({})).toMatchObject({ status: 'Error' });
	});
});

it.each([
	['Fetch Latest Case', { fetchLatestCase: true }],
	['Reconcile Missed Events', { reconcile: true }],
])('%s needs the Background Check API credential at activation', async (_option, parameters) => {
	const harness = new TriggerHarness(new BackgroundCheckTrigger(), {
		parameters,
		credentials: {
			backgroundCheckWebhookApi: { signingSecret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
		},
	});
	await expect(harness.activate()).rejects.toThrow(
		'Fetch Latest Case and the watchdog need a Background Check API credential',
	);
});
