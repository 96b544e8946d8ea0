/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @typescript-eslint/no-require-imports -- repository tooling: runs in Node.js, never inside n8n; require() in jest.isolateModules loads the node afresh */
/**
 * The trigger's webhook and lifecycle methods with deliveries signed and sent by the sandbox, through a
 * receiver that handles each request as n8n's live webhooks do (test/helpers/n8nModel.ts).
 */
import * as http from 'http';
import type { AddressInfo } from 'net';

import type { ICredentialTestFunctions, IDataObject } from 'n8n-workflow';
import * as nodeWorkflow from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { BackgroundCheckTrigger } from '../../../nodes/BackgroundCheckTrigger/BackgroundCheckTrigger.node';
import {
	CLAIM_TOKEN_FIELD,
	caseStatusOf,
	eventKeyOf,
	outputEventKey,
	parseEvent,
} from '../../../nodes/BackgroundCheckTrigger/event';
import {
	CLAIM_SECONDS,
	DUPLICATE_MEMORY_SIZE,
	MEMORY_KEY,
	TriggerMemory,
	shortHash,
} from '../../../nodes/BackgroundCheckTrigger/memory';
import { DEFAULT_TOLERANCE_SECONDS } from '../../../nodes/shared/webhookSignature';
import { HANDOFF, HANDOFF_PARAMETER } from '../../../nodes/BackgroundCheckTrigger/handoff';
import { startSandbox } from '../../../sandbox';
import type { DeliveryLogFilter, Sandbox, Subscription, SubscriptionInput } from '../../../sandbox';
import { N8nModel, startTriggerReceiver } from '../../helpers/n8nModel';
import type { IncomingDelivery, TriggerReceiver, TriggerSetup } from '../../helpers/n8nModel';
import { caseCompletedBody, signedHeaders } from '../../helpers/deliveries';
import { CredentialStore } from '../../helpers/n8nCore';
import { caseOrder } from '../../helpers/sandboxCaseApi';

jest.setTimeout(20_000);

/** A signing secret of the right form that no sandbox endpoint signs with, and its base64 without the prefix. */
const SECRET_BASE64 = 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const SECRET = `whsec_${SECRET_BASE64}`;

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

afterAll(async () => await sandbox.stop());

type CredentialData = NonNullable<TriggerSetup['credentials']>[string];
const webhookCredential = (subscription: Subscription, extra: CredentialData = {}) => {
	const secretField = subscription.scheme === 'standard' ? 'signingSecret' : 'legacySecret';
	return { backgroundCheckWebhookApi: { [secretField]: subscription.secret, ...extra } };
};
/** The first demo group's API credential against the sandbox, as stored before its first exchange. */
const apiCredential = () =>
	CredentialStore.forSandbox(sandbox.url, sandbox.demoCredentials[0]).data;
/** The webhook credential plus the API credential (Fetch Latest Case, the watchdog), `api` changed in it. */
const withApiCredential = (subscription: Subscription, api: CredentialData = {}) => ({
	...webhookCredential(subscription),
	backgroundCheckApi: { ...apiCredential(), ...api },
});

const newHarness = (setup: TriggerSetup) =>
	new N8nModel(new BackgroundCheckTrigger(), {
		...setup,
		workflowId: `workflow-${++workflowCounter}`,
	});

/** A trigger node behind no receiver, for what activation checks. */
const bareHarness = (
	parameters: IDataObject = {},
	webhookApi: CredentialData = { signingSecret: SECRET },
	others: TriggerSetup['credentials'] = {},
) => newHarness({ parameters, credentials: { backgroundCheckWebhookApi: webhookApi, ...others } });

type ScenarioSetup = Omit<TriggerSetup, 'credentials'> & {
	credentials?: (subscription: Subscription) => TriggerSetup['credentials'];
};
/** Reconcile Missed Events on (the watchdog). */
const watchSetup = (parameters: IDataObject = {}): ScenarioSetup => ({
	parameters: { event: 'any', reconcile: true, reconcileEvery: '10s', ...parameters },
	credentials: withApiCredential,
});

/** A trigger node behind a receiver, subscribed in the sandbox, its credential holding the endpoint's secret. */
async function scenario(
	setup: ScenarioSetup = {},
	endpoint: Omit<SubscriptionInput, 'url'> = {},
	receiverOptions: { rawBodyPresent?: boolean } = {},
) {
	const harness = newHarness({ ...setup, credentials: {} });
	const receiver = await startTriggerReceiver(harness, receiverOptions);
	receivers.push(receiver);
	const subscription = sandbox.admin.createSubscription({ url: receiver.url, ...endpoint });
	harness.setup.credentials = setup.credentials?.(subscription) ?? webhookCredential(subscription);
	harness.setup.webhookUrl = receiver.url;
	await harness.activate();
	return { harness, receiver, subscription };
}

/** `setup` once a new case was created: `delivery` is the case's first delivery, as the trigger received it. */
async function withNewCase<T extends { harness: N8nModel }>(setup: T) {
	const caseId = await createCase();
	return { ...setup, caseId, delivery: setup.harness.received[0] };
}

/** The node as a new n8n process loads it: its module afresh, so no process memory. */
function loadNodeAfresh(): BackgroundCheckTrigger {
	let RestartedTrigger: typeof BackgroundCheckTrigger | undefined;
	jest.isolateModules(() => {
		({
			BackgroundCheckTrigger: RestartedTrigger,
		} = require('../../../nodes/BackgroundCheckTrigger/BackgroundCheckTrigger.node'));
	});
	expect(RestartedTrigger).not.toBe(BackgroundCheckTrigger);
	return new RestartedTrigger!();
}

/** A new n8n process: the node loaded afresh, the workflow activated from its saved state. */
async function restart(harness: N8nModel): Promise<void> {
	harness.nodeType = loadNodeAfresh();
	await harness.activate('init');
}

/** Another n8n process (queue mode's main or a second main) over the same database, with its own memory. */
async function anotherProcess(harness: N8nModel): Promise<N8nModel> {
	const other = new N8nModel(harness.nodeType, harness.setup);
	(other as unknown as { store: unknown }).store = harness.store;
	await restart(other);
	return other;
}

/** A JSON request to the sandbox's API, as the first demo group (a new bearer token) unless `anonymous`. */
async function apiRequest(method: string, path: string, body: unknown, anonymous = false) {
	const headers: Record<string, string> = { 'content-type': 'application/json' };
	if (!anonymous) headers.authorization = `Bearer ${await bearerToken()}`;
	return await fetch(`${sandbox.url}${path}`, { method, headers, body: JSON.stringify(body) });
}

async function bearerToken(): Promise<string> {
	const [{ apiKey, clientAccessToken }] = sandbox.demoCredentials;
	const response = await apiRequest('POST', '/auth/api', { apiKey, clientAccessToken }, true);
	return ((await response.json()) as { token: string }).token;
}

/** The case every test creates: one service, finished by the first transition of processing. */
const ORDER = caseOrder(1);

/** Creates a case (its first case.statuschange goes out at once) and waits for the deliveries. */
async function createCase(): Promise<string> {
	const email = `candidate-${Date.now()}-${Math.random()}@example.com`;
	const { packageId, excludeServices } = ORDER;
	const response = await apiRequest('POST', '/case/create', {
		packageId,
		email,
		givenName: 'Ada',
		familyName: 'Lovelace',
		...(excludeServices.length > 0 && { excludeServices }),
		apiTrackingCode: 'HR-42',
	});
	expect(response.status).toBe(200);
	const { caseId } = (await response.json()) as { caseId: string };
	await sandbox.admin.idle();
	return caseId;
}

async function advance(caseId: string): Promise<void> {
	sandbox.admin.advanceCase(caseId);
	await sandbox.admin.idle();
}

async function runToCompletion(caseId: string): Promise<void> {
	while (sandbox.admin.getCase(caseId).caseStatus !== 'Complete') await advance(caseId);
}

/** Drops every delivery to the endpoint until the fault is removed. */
const dropDeliveries = (subscription: Subscription) =>
	sandbox.admin.injectDeliveryFault({ subscriptionId: subscription.id, dropRate: 1 });
/** GET requests under `pathPrefix` fail with `status`, or answer `latencyMs` late (`times` times, or always). */
const failGets = (pathPrefix: string, status: number, times?: number) =>
	sandbox.admin.injectFault({ kind: 'status', status, method: 'GET', pathPrefix, times });
const slowGets = (pathPrefix: string, latencyMs: number, times?: number) =>
	sandbox.admin.injectFault({ kind: 'latency', latencyMs, method: 'GET', pathPrefix, times });

/**
 * A new case whose first change was delivered, and whose next change's delivery (`missed`) was dropped;
 * `deliverLate()` lets the provider's retry of it through.
 */
async function missChange<T extends { subscription: Subscription }>(setup: T) {
	const caseId = await createCase();
	const fault = dropDeliveries(setup.subscription);
	await advance(caseId);
	const [, missed] = messagesOf(caseId);
	const deliverLate = async () => {
		sandbox.admin.removeDeliveryFault(fault.id);
		await sandbox.admin.advanceClock(5);
		expect(outcomesOf({ messageId: missed })).toEqual(['failed', 'succeeded']);
	};
	return { ...setup, caseId, missed, deliverLate };
}

/**
 * `missChange`, then the case edited without a status change (a service added at its first status: a newer
 * modStamp than the missed delivery's), so that the late retry carries an older modStamp than the case.
 */
async function missChangeThenEdit<T extends { subscription: Subscription }>(setup: T) {
	const missedChange = await missChange(setup);
	await sandbox.admin.advanceClock(2);
	const services = [{ id: ORDER.spare[0] }];
	const edited = await apiRequest('POST', `/case/id/${missedChange.caseId}/add/services`, {
		services,
	});
	expect(edited.status).toBe(200);
	return missedChange;
}

/** Two changes of a new case delivered in swapped order: the newer one first, then the older one. */
async function swappedPair(setup: ScenarioSetup) {
	const swapped = await scenario(setup, { quirks: { outOfOrder: true } });
	const caseId = await createCase(); // held back until the next message for the endpoint
	await sandbox.admin.advanceClock(10);
	await advance(caseId); // sent first, then the held one
	return swapped;
}
/** The secondary statuses of a swapped pair, in the order they arrive. */
const ARRIVAL_ORDER = ['Authorization in Progress', 'Waiting for Authorization'];

/** A watchdog run, then the executions it started run to their end (in `runner`, when handed over). */
async function watchdogRun(watcher: N8nModel, runner = watcher): Promise<void> {
	await watcher.tick();
	await runner.idle();
}

/** A case.statuschange signed with the endpoint's secret now, as the provider sends it. */
function providerDelivery(
	subscription: Subscription,
	messageId: string,
	caseId: string,
	modStamp?: string,
) {
	const body = caseCompletedBody(messageId, caseId, modStamp);
	return { headers: signedHeaders(subscription.secret, messageId, body), body };
}

/** One signed delivery per name: message `msg_<name>` about case `case-<name>` (`_` written `-`). */
const signedDeliveries = (subscription: Subscription, ...names: string[]) =>
	names.map((id) => providerDelivery(subscription, `msg_${id}`, `case-${id.replace(/_/g, '-')}`));

/** Delivers `delivery` to the harness directly, with the receiver's clock moved by `shiftMs`. */
async function deliverAt(harness: N8nModel, delivery: IncomingDelivery, shiftMs: number) {
	const realNow = Date.now();
	jest.spyOn(Date, 'now').mockReturnValue(realNow + shiftMs);
	return await harness.handle(delivery).finally(() => jest.restoreAllMocks());
}

/** Handles `delivery` with its execution held where n8n inserts and starts it, until `open()`. */
function handleHeld(harness: N8nModel, delivery: IncomingDelivery) {
	let open!: () => void;
	const opened = new Promise<void>((resolve) => (open = resolve));
	return { answer: harness.handle(delivery, { startAfter: opened }), open };
}

/** "Listen for test event" in the workflow of `harness`: a test webhook beside its production one. */
async function testRunOf(harness: N8nModel): Promise<N8nModel> {
	const testSetup: TriggerSetup = { ...harness.setup, mode: 'manual', workflowActive: false };
	const testRun = new N8nModel(harness.nodeType, testSetup);
	await testRun.activate('manual');
	return testRun;
}

/** The status the saved memory knows case `caseId` at (memory.ts), as the watchdog compares it. */
function savedCaseStatus(harness: N8nModel, caseId: string): string | undefined {
	const memory = new TriggerMemory();
	memory.mergeSaved(savedMemory(harness), Math.floor(Date.now() / 1000));
	return memory.statusOf(`case:${caseId}`);
}

/** The paths the API was asked for since `requestsBefore` requests. */
const requestPaths = (requestsBefore: number) =>
	sandbox.admin
		.requestLog()
		.slice(requestsBefore)
		.map((entry) => entry.path);

/** A watchdog run's reads of the data of a case of {@link ORDER}: its services (unless known), then each type. */
const caseReads = (caseId: string, services = true) => [
	...(services ? [`/case/id/${caseId}/services`] : []),
	...ORDER.serviceTypeIds.map((type) => `/case/id/${caseId}/data/${type}`),
];

/** The API's requests for case `caseId` so far. */
const caseRequests = (caseId: string) =>
	sandbox.admin.requestLog().filter((entry) => entry.path === `/case/id/${caseId}`);

/** Whether `promise` is still pending after other requests had `ms` to run. */
async function pendingAfter(promise: Promise<unknown>, ms: number): Promise<boolean> {
	let settled = false;
	void promise.then(() => (settled = true));
	await new Promise((resolve) => setTimeout(resolve, ms));
	return !settled;
}

async function expectDuplicate(harness: N8nModel, delivery: IncomingDelivery): Promise<void> {
	const body = { received: true, workflowStarted: false, reason: 'duplicate' };
	expect(await harness.handle(delivery)).toEqual({ statusCode: 200, body });
}
const rejected = (reason: string) => ({
	statusCode: 401,
	body: { message: `Webhook signature rejected: ${reason}` },
});

const eventObjectOf = (items: IDataObject[] | undefined) => items?.[0]?.eventObject as IDataObject;
const itemFields = (harness: N8nModel, field: string) =>
	harness.executions.map(([item]) => item[field]);
const caseFields = (harness: N8nModel, field: string) =>
	harness.executions.map((items) => eventObjectOf(items)[field]);
const eventKeyOfItem = (item: IDataObject) =>
	eventKeyOf({ event: String(item.event), eventObject: item.eventObject as IDataObject });
const hashOf = (delivery: IncomingDelivery) =>
	shortHash(eventKeyOf(parseEvent(Buffer.from(delivery.body))!));
/** The IDs of the messages published about a case, in order. */
const messagesOf = (caseId: string) =>
	Array.from(new Set(sandbox.admin.deliveryLog({ caseId }).map((attempt) => attempt.messageId)));
const outcomesOf = (filter: DeliveryLogFilter) =>
	sandbox.admin.deliveryLog(filter).map((attempt) => attempt.outcome);
const warned = (harness: N8nModel, text: string) =>
	harness.logs.some((line) => line.level === 'warn' && line.message.includes(text));
/** The node's static data as last saved, and the trigger's memory in it. */
const nodeData = (harness: N8nModel) => harness.store.nodeData('Background Check Trigger');
const savedMemory = (harness: N8nModel) => String(nodeData(harness)?.[MEMORY_KEY] ?? '');

describe('signed deliveries from the sandbox', () => {
	it('starts one execution for a signed case.statuschange and answers 2xx', async () => {
		const { harness, receiver, caseId } = await withNewCase(await scenario());
		expect(receiver.answers).toEqual([200]);
		expect(harness.runCount).toBe(1);
		const [item] = harness.executions[0];
		const [delivery] = sandbox.admin.deliveryLog({ caseId });
		const sentAt = Number(delivery.headers['webhook-timestamp']) * 1000;
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
			eventKey: outputEventKey(parseEvent(Buffer.from(JSON.stringify(delivery.payload)))!),
			deliveryId: delivery.headers['webhook-id'],
			deliveryTimestamp: new Date(sentAt).toISOString(),
			signatureScheme: 'standard',
			source: 'webhook',
		});
	});

	it('answers a tampered body with 401 and a short reason, and starts nothing', async () => {
		const { harness, delivery } = await withNewCase(await scenario());
		const tampered = Buffer.from(
			delivery.body.toString().replace('Waiting for Authorization', 'Authorization in Progress'),
		);
		const answer = await harness.handle({ headers: delivery.headers, body: tampered });
		expect(answer).toEqual(rejected('signature mismatch'));
		const refusal = 'Background Check Trigger refused a delivery: signature mismatch';
		expect(harness.logs).toContainEqual({ level: 'debug', message: refusal });
		expect(harness.runCount).toBe(1);
	});

	it('refuses a delivery replayed after the tolerance, and one from the future', async () => {
		const { harness, delivery } = await withNewCase(await scenario());
		const shift = DEFAULT_TOLERANCE_SECONDS * 1000 + 2000;
		expect(await deliverAt(harness, delivery, shift)).toEqual(rejected('timestamp too old'));
		const fromTheFuture = await deliverAt(harness, delivery, -shift);
		expect(fromTheFuture).toEqual(rejected('timestamp too far in the future'));
		expect(harness.runCount).toBe(1);
	});

	it('uses a configured tolerance', async () => {
		const setup = await scenario({ parameters: { options: { toleranceSeconds: 30 } } });
		const { harness, delivery } = await withNewCase(setup);
		// A copy 20 s later is checked and found a duplicate; 40 s later it is refused (the default is 300 s).
		expect((await deliverAt(harness, delivery, 20_000)).statusCode).toBe(200);
		expect((await deliverAt(harness, delivery, 40_000)).statusCode).toBe(401);
		expect(harness.runCount).toBe(1);
	});

	it('answers 400 to a signed body that is not a JSON object or could not be read, and starts nothing', async () => {
		const { harness, subscription } = await scenario();
		const [delivery] = signedDeliveries(subscription, 'json');
		// The provider ignores response bodies (spec 6.5): a started delivery gets an empty 200.
		expect(await harness.handle(delivery)).toMatchObject({ statusCode: 200, body: '' });
		for (const body of ['[1, 2]', 'not json']) {
			const answer = await harness.handle({
				headers: signedHeaders(subscription.secret, 'msg_x', body),
				body,
			});
			expect(answer).toEqual({
				statusCode: 400,
				body: { message: 'The body is not a JSON object' },
			});
		}
		const unread = await harness.handle(
			{ ...delivery, rawBodyPresent: false },
			{ readStream: async () => undefined as unknown as Buffer },
		);
		expect(unread).toEqual({
			statusCode: 400,
			body: { message: 'The request body could not be read' },
		});
		expect(harness.runCount).toBe(1);
	});

	it('reads the raw body when n8n has not kept it', async () => {
		const setup = await scenario({}, {}, { rawBodyPresent: false });
		const { harness, receiver } = await withNewCase(setup);
		expect(receiver.answers).toEqual([200]);
		expect(harness.runCount).toBe(1);
	});

	it("refuses deliveries signed with another endpoint's secret, and the sandbox retries them", async () => {
		const otherSecret = () => ({ backgroundCheckWebhookApi: { signingSecret: SECRET } });
		const setup = await scenario({ credentials: otherSecret });
		const { harness, receiver, caseId } = await withNewCase(setup);
		expect(receiver.answers).toEqual([401]);
		expect(harness.runCount).toBe(0);
		const [attempt] = sandbox.admin.deliveryLog({ caseId });
		expect(attempt).toMatchObject({ outcome: 'failed', statusCode: 401 });
	});
});

describe('secret rotation', () => {
	it('accepts deliveries throughout a rotation done on both sides', async () => {
		const { harness, receiver, subscription, caseId } = await withNewCase(await scenario());

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
		const { harness, receiver, subscription, caseId } = await withNewCase(await scenario());
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
		const setup = await scenario(
			{ parameters: { signatureScheme: 'legacy', legacyHeaderName: 'Acme-Signature' } },
			{ scheme: 'legacy', username: 'endpoint-user', password: 'endpoint-password' },
		);
		const { harness, receiver, delivery } = await withNewCase(setup);
		expect(delivery.body.toString()).toContain('endpoint-password');
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
		const setup = await scenario(
			{ parameters: { signatureScheme: 'legacy' } },
			{ scheme: 'legacy' },
		);
		const { harness } = await withNewCase(setup);
		expect(harness.runCount).toBe(1);
	});

	it('refuses a standard delivery when only Legacy is selected', async () => {
		sandbox.admin.updateWebhookSettings({ standardEnabled: true, legacyEnabled: false });
		const credentials = (subscription: Subscription) => ({
			backgroundCheckWebhookApi: { signingSecret: subscription.secret, legacySecret: 'abc' },
		});
		const legacyOnly = { parameters: { signatureScheme: 'legacy' }, credentials };
		const { harness, receiver } = await scenario(legacyOnly, { scheme: 'standard' });
		await createCase();
		expect(receiver.answers).toEqual([401]);
		expect(harness.runCount).toBe(0);
	});

	it('runs once for each event that arrives through both delivery systems', async () => {
		sandbox.admin.updateWebhookSettings({ standardEnabled: true, legacyEnabled: true });
		// The provider's migration copies the legacy endpoint into the standard system with a new secret.
		const credentials = (legacy: Subscription) => {
			const [{ secret }] = sandbox.admin.migrateLegacySubscriptions().created;
			return { backgroundCheckWebhookApi: { signingSecret: secret, legacySecret: legacy.secret } };
		};
		const both = { parameters: { signatureScheme: 'both', event: 'any' }, credentials };
		const legacyEndpoint = { scheme: 'legacy', username: 'u', password: 'p' } as const;
		const { harness, receiver, caseId } = await withNewCase(await scenario(both, legacyEndpoint));
		await runToCompletion(caseId);
		const events = new Set(messagesOf(caseId));
		expect(sandbox.admin.deliveryLog({ caseId })).toHaveLength(events.size * 2);
		expect(receiver.answers.every((status) => status === 200)).toBe(true);
		expect(harness.runCount).toBe(events.size);
		expect(new Set(itemFields(harness, 'messageId')).size).toBe(events.size);
	});
});

describe('duplicates', () => {
	/** A delivery whose execution is being started (held until `first.open()`), and a copy that waits. */
	async function copyWhileStarting(name: string) {
		const { harness, subscription } = await scenario();
		const [delivery] = signedDeliveries(subscription, name);
		const first = handleHeld(harness, delivery);
		const copy = harness.handle(delivery);
		expect(await pendingAfter(copy, 100)).toBe(true);
		return { harness, delivery, first, copy };
	}

	it('answers a second copy of a delivery with 2xx and starts nothing', async () => {
		const { harness, receiver } = await scenario({}, { quirks: { duplicate: true } });
		await advance(await createCase());
		expect(receiver.answers).toEqual([200, 200, 200, 200]);
		expect(harness.runCount).toBe(2);
	});

	it('runs once when copies of one delivery arrive at the same moment', async () => {
		const { harness, receiver, subscription } = await scenario();
		const delivery = providerDelivery(subscription, 'msg_concurrent', 'case-x');
		const post = async () => (await fetch(receiver.url, { method: 'POST', ...delivery })).status;
		const statuses = await Promise.all(Array.from({ length: 6 }, post));
		expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
		expect(harness.runCount).toBe(1);
	});

	it('holds a copy arriving while the first is being started until it has started, then calls it a duplicate', async () => {
		const { harness, first, copy } = await copyWhileStarting('while_starting');
		first.open();
		expect((await first.answer).statusCode).toBe(200);
		expect(await copy).toMatchObject({ statusCode: 200, body: { reason: 'duplicate' } });
		expect(harness.runCount).toBe(1);
	});

	it('runs the copy that waited when n8n could not start the first (it answered 500)', async () => {
		const { harness, delivery, first, copy } = await copyWhileStarting('first_failed');
		harness.failStarts = 1;
		first.open();
		expect((await first.answer).statusCode).toBe(500);
		expect(await copy).toMatchObject({ statusCode: 200, items: [expect.anything()] });
		expect(harness.runCount).toBe(1);
		await expectDuplicate(harness, delivery);
	});

	it('answers a copy 503 when the first has not been started after 5 seconds, so that the provider delivers it again', async () => {
		const { harness, subscription } = await scenario();
		const [delivery] = signedDeliveries(subscription, 'slow_start');
		const first = handleHeld(harness, delivery);
		expect(await harness.handle(delivery)).toEqual({
			statusCode: 503,
			body: { message: 'A copy of this event is being started' },
		});
		first.open();
		expect((await first.answer).statusCode).toBe(200);
		expect(harness.runCount).toBe(1);
	});

	it('answers 503 a delivery that could not take its turn to save within 10 seconds; sent again, it runs once', async () => {
		const { harness, subscription } = await scenario();
		const [slow, waiting] = signedDeliveries(subscription, 'slow_save', 'waited_too_long');
		const first = handleHeld(harness, slow);
		expect(await harness.handle(waiting)).toEqual({
			statusCode: 503,
			body: { message: 'Other deliveries are being saved' },
		});
		first.open();
		expect((await first.answer).statusCode).toBe(200);
		expect((await harness.handle(waiting)).statusCode).toBe(200);
		expect(itemFields(harness, 'messageId')).toEqual(['msg_slow_save', 'msg_waited_too_long']);
	}, 20_000);

	it('saves every delivery again with the next one started after concurrent requests saved in the wrong order', async () => {
		const { harness, subscription } = await scenario();
		const [first, second, third] = ['first', 'second', 'third'].map((name, index) =>
			providerDelivery(subscription, `msg_${name}`, `case-${index + 1}`),
		);

		// Both load the same static data; the first starts first but its save lands last.
		await Promise.all([harness.handle(first, { saveAfterMs: 50 }), harness.handle(second)]);
		expect(harness.runCount).toBe(2);
		await harness.handle(third);
		await restart(harness);
		for (const delivery of [first, second, third]) await expectDuplicate(harness, delivery);
		expect(harness.runCount).toBe(3);
	});

	it('still suppresses a redelivery after n8n restarts', async () => {
		const { harness, delivery } = await withNewCase(await scenario());
		await restart(harness);
		await expectDuplicate(harness, delivery);
		expect(harness.runCount).toBe(1);
	});

	it('keeps its memory when n8n removes the webhook and makes it again (deactivate and activate, republish): a retry of an event from before starts nothing', async () => {
		const { harness, delivery } = await withNewCase(await scenario());
		for (const activation of ['update', 'activate'] as const) {
			await harness.deactivateTrigger();
			await harness.lifecycle('delete');
			expect(savedMemory(harness)).toContain(hashOf(delivery));
			await harness.activate(activation);
			await expectDuplicate(harness, delivery);
		}
		await restart(harness);
		await expectDuplicate(harness, delivery);
		expect(harness.runCount).toBe(1);
	});

	it('keeps the production memory when a test webhook of the same workflow is removed', async () => {
		const { harness, delivery } = await withNewCase(await scenario());
		const testRun = await testRunOf(harness);
		await testRun.lifecycle('delete');
		// With the saved static data gone, only the process memory can still know the delivery.
		harness.store.clear();
		await expectDuplicate(harness, delivery);
	});

	it('lets a test event hold back nothing at the production URL of the same workflow', async () => {
		const { harness, subscription } = await scenario();
		const testRun = await testRunOf(harness);
		const [delivery] = signedDeliveries(subscription, 'tested_first');
		expect((await testRun.handle(delivery)).statusCode).toBe(200);
		await testRun.idle();
		expect(testRun.executions).toEqual([
			[expect.objectContaining({ messageId: 'msg_tested_first' })],
		]);
		expect((await harness.handle(delivery)).statusCode).toBe(200);
		expect(harness.runCount).toBe(1);
	});

	it('does not suppress repeated test events ("listen for test event")', async () => {
		const setup = await scenario({ mode: 'manual', workflowActive: false });
		const { harness, receiver, delivery } = await withNewCase(setup);
		expect((await harness.handle(delivery)).statusCode).toBe(200);
		await harness.idle();
		expect(receiver.answers).toEqual([200]);
		// Both executions' first steps output the event.
		expect(harness.executions.map((items) => items.length)).toEqual([1, 1]);
	});
});

describe('out-of-order deliveries', () => {
	const swapped = (dropOutOfOrder: boolean) =>
		swappedPair({ parameters: { options: { dropOutOfOrder } } });

	it('with Ignore Older Events, skips the event older than one already received', async () => {
		const { harness, receiver } = await swapped(true);
		expect(receiver.answers).toEqual([200, 200]);
		expect(harness.runCount).toBe(1);
		expect(eventObjectOf(harness.executions[0]).secondaryStatus).toBe('Authorization in Progress');
		const older = await harness.handle(harness.received[1]);
		expect(older.body).toMatchObject({ reason: expect.stringContaining('older than') });
		await expectDuplicate(harness, harness.received[0]);
	});

	it('without it, runs both, in the order they arrived', async () => {
		const { harness } = await swapped(false);
		expect(caseFields(harness, 'secondaryStatus')).toEqual(ARRIVAL_ORDER);
	});

	it('without it, runs both of two changes to one status that arrive newest first (the case went back to it)', async () => {
		const { harness, subscription } = await scenario();
		const sent = (messageId: string, modStamp: string) =>
			providerDelivery(subscription, messageId, 'case-completed-twice', modStamp);
		await harness.handle(sent('msg_second_time', '2026-11-20T10:00:00.000Z'));
		await harness.handle(sent('msg_first_time', '2026-11-20T09:00:00.000Z'));
		expect(itemFields(harness, 'messageId')).toEqual(['msg_second_time', 'msg_first_time']);
	});
});

describe('event and status filters', () => {
	it('runs only for the case status selected ("start onboarding when a case is Complete")', async () => {
		const { harness, receiver } = await scenario({ parameters: { caseStatus: 'Complete' } });
		const caseId = await createCase();
		await runToCompletion(caseId);
		expect(harness.runCount).toBe(1);
		const [items] = harness.executions;
		expect(eventObjectOf(items)).toMatchObject({ id: caseId, caseStatus: 'Complete' });
		expect(receiver.answers.every((status) => status === 200)).toBe(true);
	});

	it('selects by secondary status, "none" meaning no secondary status', async () => {
		const pendingWithout = { parameters: { caseStatus: 'pending', secondaryStatus: 'none' } };
		const { harness } = await scenario(pendingWithout);
		await runToCompletion(await createCase());
		expect(caseFields(harness, 'secondaryStatus')).toEqual([null]);
	});

	it('runs only for the event type selected, and for every type with Any Event', async () => {
		const dataOnly = await scenario({ parameters: { event: 'casedata.statuschange' } });
		const any = await scenario({ parameters: { event: 'any' } });
		await runToCompletion(await createCase());
		expect(itemFields(dataOnly.harness, 'event')).toEqual(['casedata.statuschange']);
		const anyDeliveries = sandbox.admin.deliveryLog({ subscriptionId: any.subscription.id });
		expect(any.harness.runCount).toBe(anyDeliveries.length);
		expect(new Set(itemFields(any.harness, 'event'))).toEqual(
			new Set(['case.statuschange', 'casedata.statuschange']),
		);
	});

	it('does not hold back a filtered-out event from running once it is wanted', async () => {
		const setup = await scenario({ parameters: { caseStatus: 'Complete' } });
		const { harness, delivery } = await withNewCase(setup);
		harness.setup.parameters = { caseStatus: '' };
		await harness.handle(delivery);
		expect(harness.runCount).toBe(1);
	});
});

describe('Fetch Latest Case', () => {
	const withApi = async (api?: CredentialData) =>
		await scenario({
			parameters: { fetchLatestCase: true },
			credentials: (subscription) => withApiCredential(subscription, api),
		});
	/** The first execution ran its event (of case `caseId`) without the latest case, `error` saying why. */
	const expectNoLatestCase = (harness: N8nModel, error: unknown, caseId?: string) =>
		expect(harness.executions[0][0]).toMatchObject({
			...(caseId !== undefined && { eventObject: { id: caseId } }),
			latestCase: null,
			latestCaseError: error,
		});

	it('calls no API when it is off', async () => {
		const { harness, caseId } = await withNewCase(await scenario());
		await harness.idle();
		expect(harness.runCount).toBe(1);
		expect(harness.executions[0][0]).not.toHaveProperty('latestCase');
		expect(harness.executions[0][0]).not.toHaveProperty('latestCaseError');
		expect(caseRequests(caseId)).toHaveLength(0);
	});

	it('adds the case as the API returns it (the one entry of its answer), in the execution', async () => {
		const { harness, caseId } = await withNewCase(await withApi());
		await harness.idle();
		const [item] = harness.executions[0];
		const created = { id: caseId, caseStatus: 'Pending', apiTrackingCode: 'HR-42' };
		expect(item.latestCase).toMatchObject(created);
		expect(item.latestCase).not.toHaveProperty('cases');
		expect(item).not.toHaveProperty('latestCaseError');
		expect(caseRequests(caseId)).toHaveLength(1);
	});

	it('answers the delivery before it calls the API: a slow API delays the execution, not the answer', async () => {
		const { harness, receiver } = await withApi();
		slowGets('/case/id/', 1500);
		const caseId = await createCase();
		// The sandbox has its answer (2xx) and the execution has started, while the API has not answered yet.
		expect(receiver.answers).toEqual([200]);
		const [attempt] = sandbox.admin.deliveryLog({ caseId });
		expect(attempt).toMatchObject({ outcome: 'succeeded', attempt: 1 });
		expect(harness.runCount).toBe(1);
		expect(caseRequests(caseId)).toHaveLength(0);
		expect(harness.executions[0][0]).not.toHaveProperty('latestCase');
		await harness.idle();
		expect(caseRequests(caseId)).toHaveLength(1);
		expect(harness.executions[0][0].latestCase).toMatchObject({ id: caseId });
	});

	it('runs the event once, with latestCaseError saying why, when the API fails; the provider does not retry', async () => {
		const { harness, receiver } = await withApi();
		failGets('/case/id/', 503);
		const caseId = await createCase();
		await harness.idle();
		expect(receiver.answers).toEqual([200]);
		expect(harness.failedExecutions).toEqual([]);
		expect(harness.runCount).toBe(1);
		expectNoLatestCase(harness, expect.stringMatching(/GET \/case\/id\/.*HTTP 503/), caseId);
		expect(sandbox.admin.deliveryLog({ caseId })).toEqual([
			expect.objectContaining({ outcome: 'succeeded', nextAttemptAt: null }),
		]);
	});

	it('runs the event with latestCaseError when the credential cannot be exchanged for a token', async () => {
		const { harness, caseId } = await withNewCase(await withApi({ apiKey: 'revoked-partner-key' }));
		await harness.idle();
		expect(harness.runCount).toBe(1);
		expectNoLatestCase(harness, expect.any(String), caseId);
		expect(String(harness.executions[0][0].latestCaseError)).not.toContain('revoked-partner-key');
	});

	it('never runs an event zero times: a copy arriving while the first is being handled is a duplicate, and the first still runs', async () => {
		const { harness, subscription } = await withApi();
		slowGets('/case/id/', 500, 1);
		const delivery = providerDelivery(subscription, 'msg_while_pending', 'case-missing');
		expect((await harness.handle(delivery)).statusCode).toBe(200);
		await expectDuplicate(harness, delivery);
		await harness.idle();
		expect(harness.runCount).toBe(1);
		// The API refuses a case the group does not have (403).
		expectNoLatestCase(harness, expect.stringContaining('403'));
	});
});

describe.each(['oldest', 'newest'] as const)('the saved memory, on n8n %s', (runtime) => {
	const numbered = (subscription: Subscription, prefix: string, count: number) =>
		signedDeliveries(subscription, ...Array.from({ length: count }, (_, i) => `${prefix}_${i}`));

	it('holds every accepted delivery once its answer is sent: after a restart even the last one before a quiet spell is a duplicate', async () => {
		const { harness, subscription } = await scenario({ runtime });
		for (const delivery of numbered(subscription, 'quiet', 30)) {
			const savesBefore = harness.store.saves;
			expect((await harness.handle(delivery)).statusCode).toBe(200);
			expect(harness.store.saves).toBe(savesBefore + 1);
			// A restart right after this answer: the delivery is already in what n8n saved.
			await expectDuplicate(await anotherProcess(harness), delivery);
		}
		expect(harness.runCount).toBe(30);
	}, 120_000);

	it('answers none of the deliveries arriving together before a save holding it has been made', async () => {
		const { harness, subscription } = await scenario({ runtime });
		const deliveries = numbered(subscription, 'together', 12);
		const savedWhenAnswered = await Promise.all(
			deliveries.map(async (delivery) => {
				expect((await harness.handle(delivery)).statusCode).toBe(200);
				return savedMemory(harness).includes(hashOf(delivery));
			}),
		);
		expect(harness.runCount).toBe(12);
		expect(savedWhenAnswered).toEqual(deliveries.map(() => true));
		await restart(harness);
		for (const delivery of deliveries) await expectDuplicate(harness, delivery);
	});

	it('saves one delivery at a time, and never an event whose execution has not started', async () => {
		const { harness, subscription } = await scenario({ runtime });
		const [notYet, started] = signedDeliveries(subscription, 'not_yet', 'started');
		const pending = handleHeld(harness, notYet);
		// The second waits until the first has been answered: their saves cannot reach the database out of order.
		const second = harness.handle(started);
		expect(await pendingAfter(second, 300)).toBe(true);
		// n8n then fails to start the first: no save ever held it, and the provider's next delivery runs it.
		harness.failStarts = 1;
		pending.open();
		expect((await pending.answer).statusCode).toBe(500);
		expect((await second).statusCode).toBe(200);
		expect(savedMemory(harness)).toContain(hashOf(started));
		expect(savedMemory(harness)).not.toContain(hashOf(notYet));
		await restart(harness);
		expect((await harness.handle(notYet)).statusCode).toBe(200);
		expect(savedMemory(harness)).toContain(hashOf(notYet));
		expect(itemFields(harness, 'messageId')).toEqual(['msg_started', 'msg_not_yet']);
	});

	it("releases an event when n8n answers 500 without starting its execution: the provider's retry runs it, once", async () => {
		const { harness, receiver } = await scenario({ runtime });
		harness.failStarts = 1;
		const caseId = await createCase();
		expect(receiver.answers).toEqual([500]);
		expect(harness.runCount).toBe(0);
		await sandbox.admin.advanceClock(5);
		expect(receiver.answers).toEqual([500, 200]);
		expect(outcomesOf({ caseId })).toEqual(['failed', 'succeeded']);
		expect(harness.runCount).toBe(1);
		await expectDuplicate(harness, harness.received[1]);
	});

	it("holds the turn to save until n8n has answered, also when the provider gave up first: the next delivery's save cannot land before it", async () => {
		const { harness, subscription } = await scenario({ runtime });
		const [first, second] = signedDeliveries(subscription, 'given_up', 'next');
		const answer = harness.handle(first, { providerGivesUp: true, saveAfterMs: 400 });
		await new Promise((resolve) => setTimeout(resolve, 100));
		const next = harness.handle(second);
		expect(await pendingAfter(next, 200)).toBe(true);
		expect((await answer).statusCode).toBe(200);
		expect((await next).statusCode).toBe(200);
		await harness.idle();
		expect(harness.runCount).toBe(2);
		await restart(harness);
		// The provider's retry of the first, which it saw no answer to.
		await expectDuplicate(harness, first);
	});

	it("saves the event from its execution when n8n's save of the delivery never returns (30 s): the retry after a restart is a duplicate", async () => {
		const { harness, subscription } = await scenario({ runtime });
		const [delivery] = signedDeliveries(subscription, 'save_hangs');
		// The first step's 30 one-second waits for the answer, without the seconds.
		const sleep = jest.spyOn(nodeWorkflow, 'sleep').mockResolvedValue(undefined);
		try {
			expect((await harness.handle(delivery, { saveHangs: true })).statusCode).toBeUndefined();
			await harness.idle();
		} finally {
			sleep.mockRestore();
		}
		expect(harness.runCount).toBe(1);
		expect(savedMemory(harness)).toContain(hashOf(delivery));
		await restart(harness);
		await expectDuplicate(harness, delivery);
	});

	it('writes nothing for a duplicate when the saved copy already holds everything', async () => {
		const { harness, subscription } = await scenario({ runtime });
		const [delivery] = signedDeliveries(subscription, 'once');
		await harness.handle(delivery);
		const savesBefore = harness.store.saves;
		await expectDuplicate(harness, delivery);
		expect(harness.store.saves).toBe(savesBefore);
	});

	it("saves nothing from an execution in a process that never read the saved memory (a queue-mode worker): it would replace the webhook process's later saves", async () => {
		const { harness, subscription } = await scenario({ runtime });
		const [first, second] = signedDeliveries(subscription, 'worker_first', 'worker_second');
		const copyAtCreation = harness.store.copy();
		await harness.handle(first);
		await harness.handle(second);
		await harness.idle();
		const savesBefore = harness.store.saves;
		const items = [{ json: harness.executions[0][0] }];
		await harness.executeOnWorker(loadNodeAfresh(), items, copyAtCreation);
		expect(harness.store.saves).toBe(savesBefore);
		expect(savedMemory(harness)).toContain(hashOf(first));
		expect(savedMemory(harness)).toContain(hashOf(second));
	});

	it("answers a filtered-out delivery at once and writes nothing for it while another request holds the turn to save (its save could land after that one's)", async () => {
		const { harness, subscription } = await scenario({ runtime });
		const [running, filtered] = signedDeliveries(subscription, 'holds_turn', 'filtered_out');
		const pending = handleHeld(harness, running);
		expect(await pendingAfter(pending.answer, 100)).toBe(true);
		harness.setup.parameters = { caseStatus: 'Pending' };
		const savesBefore = harness.store.saves;
		const answer = harness.handle(filtered);
		// Answered at once, without waiting for the turn.
		expect(await pendingAfter(answer, 200)).toBe(false);
		expect((await answer).body).toMatchObject({ workflowStarted: false });
		expect(harness.store.saves).toBe(savesBefore);
		pending.open();
		expect((await pending.answer).statusCode).toBe(200);
		expect(harness.store.saves).toBe(savesBefore + 1);
	});

	it('leaves putting back what another process saved over to the request holding the turn: a duplicate meanwhile is answered at once and writes nothing', async () => {
		const { harness, subscription } = await scenario({ runtime });
		const [first, second, third] = signedDeliveries(subscription, 'over', 'other', 'holder');
		const other = await anotherProcess(harness);
		await Promise.all([harness.handle(first), other.handle(second, { saveAfterMs: 50 })]);
		expect(savedMemory(harness)).not.toContain(hashOf(first));
		const pending = handleHeld(harness, third);
		expect(await pendingAfter(pending.answer, 100)).toBe(true);
		const savesBefore = harness.store.saves;
		const duplicate = expectDuplicate(harness, first);
		expect(await pendingAfter(duplicate, 200)).toBe(false);
		await duplicate;
		expect(harness.store.saves).toBe(savesBefore);
		pending.open();
		expect((await pending.answer).statusCode).toBe(200);
		expect(savedMemory(harness)).toContain(hashOf(first));
	});

	describe('an execution n8n left `new` and runs at its next start (it stopped before running it or saving)', () => {
		/** The row's items, as the delivery that n8n inserted it for made them; then n8n stops. */
		async function rowLeftNew(harness: N8nModel, delivery: IncomingDelivery) {
			harness.runsExecutions = false;
			await harness.handle(delivery, { saveHangs: true });
			expect(savedMemory(harness)).not.toContain(hashOf(delivery));
			await restart(harness);
			harness.runsExecutions = true;
			return [{ json: harness.executions[0][0] }];
		}

		it("runs, and remembers its event: the provider's retry is then a duplicate", async () => {
			const { harness, subscription } = await scenario({ runtime });
			const [delivery] = signedDeliveries(subscription, 'left_new');
			const output = await harness.runRow(await rowLeftNew(harness, delivery));
			expect(output).toEqual([
				{ json: expect.objectContaining({ messageId: 'msg_left_new' }), pairedItem: { item: 0 } },
			]);
			expect(output?.[0].json).not.toHaveProperty(CLAIM_TOKEN_FIELD);
			expect(savedMemory(harness)).toContain(hashOf(delivery));
			await restart(harness);
			await expectDuplicate(harness, delivery);
		});

		it("outputs no item when the provider's retry has already started the change in this process", async () => {
			const { harness, subscription } = await scenario({ runtime });
			const [delivery] = signedDeliveries(subscription, 'retried_first');
			const row = await rowLeftNew(harness, delivery);
			expect((await harness.handle(delivery)).statusCode).toBe(200);
			await harness.idle();
			expect(await harness.runRow(row)).toEqual([]);
			expect(harness.executions.map((items) => items.length)).toEqual([1, 1, 0]);
		});
	});

	it('puts back what another process saved over, with the next request, a duplicate included', async () => {
		const { harness, subscription } = await scenario({ runtime });
		const [first, second] = signedDeliveries(subscription, 'overwritten', 'other_process');
		const other = await anotherProcess(harness);
		// Both read the saved memory before either saved; the other process's save lands last.
		await Promise.all([harness.handle(first), other.handle(second, { saveAfterMs: 50 })]);
		expect(savedMemory(harness)).not.toContain(hashOf(first));
		const savesBefore = harness.store.saves;
		await expectDuplicate(harness, first);
		expect(harness.store.saves).toBe(savesBefore + 1);
		await restart(harness);
		await expectDuplicate(harness, first);
		await expectDuplicate(harness, second);
	});
});

it("is told n8n has answered by Node's 'prefinish', which comes even when the provider closed the connection first", async () => {
	const events: string[] = [];
	const ended = new Promise<void>((resolve) => {
		const server = http.createServer((_request, response) => {
			for (const name of ['prefinish', 'finish', 'close'])
				response.on(name, () => events.push(name));
			// n8n saves static data, then answers, whether or not the provider still listens.
			response.once('close', () => {
				response.end('{}');
				server.close(() => resolve());
			});
		});
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address() as AddressInfo;
			const client = http.request({ host: '127.0.0.1', port, method: 'POST' });
			client.on('error', () => undefined);
			client.end('{}', () => setTimeout(() => client.destroy(), 50));
		});
	});
	await ended;
	expect(events).toEqual(['close', 'prefinish']);
});

describe('Duplicate Memory Size', () => {
	const withSize = (duplicateMemorySize: unknown) =>
		bareHarness({ options: { duplicateMemorySize } });

	const badSizes = [0, '', -5, 'abc', 99, 150.5, 20_001, null];
	it.each(badSizes)('refuses %p at activation, naming the field', async (size) => {
		await expect(withSize(size).activate()).rejects.toThrow(
			/^Duplicate Memory Size must be a whole number from 100 to 20,000/,
		);
	});

	it.each([100, '2500', 20_000])('accepts %p', async (size) => {
		await expect(withSize(size).activate()).resolves.toBeUndefined();
	});

	it.each([
		[100, 2],
		[200, 1],
	])(
		'saves the newest %p events: the first of 150, delivered again after a restart, has run %p time(s)',
		async (size, runs) => {
			const sized = { parameters: { options: { duplicateMemorySize: size } } };
			const { harness, subscription } = await scenario(sized);
			const names = Array.from({ length: 150 }, (_, index) => `size_${index}`);
			const deliveries = signedDeliveries(subscription, ...names);
			for (const delivery of deliveries) await harness.handle(delivery);
			await restart(harness);
			await harness.handle(deliveries[0]);
			const firstRuns = harness.executions.filter(([item]) => item.messageId === 'msg_size_0');
			expect(firstRuns).toHaveLength(runs);
		},
	);

	it('keeps suppressing duplicates with the default when an expression turns bad after activation', async () => {
		const sized = { parameters: { options: { duplicateMemorySize: 500 } } };
		const { harness, subscription } = await scenario(sized);
		harness.setup.parameters = { options: { duplicateMemorySize: 'abc' } };
		const [delivery] = signedDeliveries(subscription, 'bad_size');
		await harness.handle(delivery);
		await expectDuplicate(harness, delivery);
		expect(warned(harness, 'Duplicate Memory Size')).toBe(true);
	});
});

describe('Reconcile Missed Events (the watchdog)', () => {
	const watched = async (parameters?: IDataObject) => await scenario(watchSetup(parameters));
	const itemsBySource = (harness: N8nModel, source: string) =>
		harness.executions.flatMap(([item]) => (item?.source === source ? [item] : []));
	/** The secondary status of the case in each item the watchdog runs found, in order. */
	const foundStatuses = (harness: N8nModel) =>
		itemsBySource(harness, 'reconciliation').map((item) => eventObjectOf([item]).secondaryStatus);

	it("registers the watchdog's runs with n8n's scheduler at the chosen interval, and records the cases at activation without running them", async () => {
		await advance(await createCase());
		const { harness } = await watched();
		expect(harness.schedules).toEqual(['*/10 * * * * *']);
		const webhookRuns = harness.runCount;
		await harness.tick();
		expect(harness.runCount).toBe(webhookRuns);
		expect(harness.failedTriggerRuns).toEqual([]);
	});

	it('runs a change whose delivery never arrives once, at the next watchdog run, in the trigger\'s output shape with source "reconciliation"', async () => {
		const { harness, caseId, missed } = await missChange(await watched({ fetchLatestCase: true }));
		expect(outcomesOf({ messageId: missed })[0]).toBe('failed');
		await harness.idle();
		const readsBefore = caseRequests(caseId).length;
		await watchdogRun(harness);
		// The case is the watchdog run's list entry: the execution gets it without reading it.
		expect(caseRequests(caseId).length - readsBefore).toBe(0);
		const [reconciled] = itemsBySource(harness, 'reconciliation');
		const payload = sandbox.admin.deliveryLog({ messageId: missed })[0].payload as IDataObject;
		const latest = { id: caseId, secondaryStatus: 'Authorization in Progress' };
		expect(reconciled).toEqual({
			event: 'case.statuschange',
			messageId: null,
			apiTrackingCode: 'HR-42',
			apiTrackingUser: null,
			eventObject: payload.eventObject,
			eventKey: outputEventKey(parseEvent(Buffer.from(JSON.stringify(payload)))!),
			deliveryId: null,
			deliveryTimestamp: null,
			signatureScheme: null,
			source: 'reconciliation',
			latestCase: expect.objectContaining(latest),
		});
		expect(itemsBySource(harness, 'webhook')).toHaveLength(1);
		await harness.tick();
		expect(harness.runCount).toBe(2);
	});

	it('learns nothing of a change it finds while its delivery is being started: when n8n then could not start it, the next watchdog run runs it', async () => {
		const { harness, subscription, missed } = await missChange(await watched());
		const { payload } = sandbox.admin.deliveryLog({ messageId: missed })[0];
		const body = JSON.stringify(payload);
		const headers = signedHeaders(subscription.secret, missed, body);
		const pending = handleHeld(harness, { headers, body });
		expect(await pendingAfter(pending.answer, 100)).toBe(true);
		await watchdogRun(harness);
		expect(itemsBySource(harness, 'reconciliation')).toEqual([]);
		harness.failStarts = 1;
		pending.open();
		expect((await pending.answer).statusCode).toBe(500);
		await watchdogRun(harness);
		expect(itemsBySource(harness, 'reconciliation')).toHaveLength(1);
	});

	it('runs a change seen both ways once, whichever comes first', async () => {
		const { harness, subscription, caseId } = await withNewCase(await watched());
		// Delivered first: the watchdog run finds nothing new.
		await advance(caseId);
		await harness.tick();
		expect(itemsBySource(harness, 'reconciliation')).toEqual([]);
		// Found first: the provider's retry, once the endpoint works again, is a duplicate.
		const fault = dropDeliveries(subscription);
		await advance(caseId);
		await harness.tick();
		expect(itemsBySource(harness, 'reconciliation')).toHaveLength(1);
		sandbox.admin.removeDeliveryFault(fault.id);
		await sandbox.admin.advanceClock(5);
		const late = messagesOf(caseId)[2];
		expect(outcomesOf({ messageId: late })).toEqual(['failed', 'succeeded']);
		expect(harness.runCount).toBe(3);
		expect(new Set(harness.executions.map(([item]) => eventKeyOfItem(item))).size).toBe(3);
	});

	it("after n8n's Update of the package, a delivered change the old version's watchdog finds again runs nothing past the trigger; an undelivered one runs once", async () => {
		const { harness, subscription, caseId } = await withNewCase(await watched());
		// n8n's Update loads the new version beside the one that activated the workflow: deliveries and
		// executions run the new code, while the old version's watchdog keeps running with its own memory.
		harness.nodeType = loadNodeAfresh();
		await advance(caseId);
		await watchdogRun(harness);
		const [delivered] = itemsBySource(harness, 'webhook').slice(-1);
		expect(itemsBySource(harness, 'reconciliation')).toEqual([]);
		// The old watchdog's emit of the delivered change: an execution whose first step outputs nothing.
		expect(harness.executions.filter((items) => items.length === 0)).toHaveLength(1);
		// n8n saved the old watchdog's memory when it emitted; that execution saved the new one's again.
		expect(savedMemory(harness)).toContain(shortHash(eventKeyOfItem(delivered)));
		dropDeliveries(subscription);
		await advance(caseId);
		await watchdogRun(harness);
		const found = itemsBySource(harness, 'reconciliation');
		expect(found).toHaveLength(1);
		expect(eventKeyOfItem(found[0])).not.toBe(eventKeyOfItem(delivered));
		// Learnt from its execution: the next watchdog run hands nothing over again.
		await watchdogRun(harness);
		expect(harness.runCount).toBe(4);
	});

	it('saves what a filtered-out delivery told it at once: after a restart the next watchdog run runs nothing and reads the case only as one of its round', async () => {
		const { harness } = await watched({ caseStatus: 'Complete' });
		const caseId = await createCase();
		expect(harness.runCount).toBe(0);
		const delivered = parseEvent(Buffer.from(harness.received[0].body))!;
		expect(savedCaseStatus(harness, caseId)).toBe(caseStatusOf(delivered.eventObject));
		await restart(harness);
		const requestsBefore = sandbox.admin.requestLog().length;
		await watchdogRun(harness);
		expect(requestPaths(requestsBefore)).toEqual(['/case/list', ...caseReads(caseId)]);
		expect(harness.runCount).toBe(0);
	});

	it('runs nothing for a change it finds in a status filtered out, and learns it: the next watchdog run does not take the case for changed', async () => {
		const { harness, subscription, caseId } = await withNewCase(
			await watched({ caseStatus: 'Complete' }),
		);
		dropDeliveries(subscription);
		await advance(caseId);
		await watchdogRun(harness);
		expect(harness.runCount).toBe(0);
		const requestsBefore = sandbox.admin.requestLog().length;
		await watchdogRun(harness);
		// Read as one of the round only: its services (read again for a changed case) are known.
		expect(requestPaths(requestsBefore)).toEqual(['/case/list', ...caseReads(caseId, false)]);
	});

	it('applies the event and status filters to what it finds', async () => {
		const setup = await watched({ event: 'case.statuschange', caseStatus: 'Complete' });
		const { harness, subscription, caseId } = await withNewCase(setup);
		dropDeliveries(subscription);
		await runToCompletion(caseId);
		await harness.tick();
		expect(itemFields(harness, 'event')).toEqual(['case.statuschange']);
		expect(caseFields(harness, 'caseStatus')).toEqual(['Complete']);
		expect(itemFields(harness, 'source')).toEqual(['reconciliation']);
		expect(harness.executions[0][0]).not.toHaveProperty('latestCase');
	});

	it.each(['case.statuschange', 'casedata.statuschange'])(
		'finds only changes of the event type selected (%s), with no status filter',
		async (event) => {
			const { harness, subscription, caseId } = await withNewCase(await watched({ event }));
			await harness.idle();
			const delivered = harness.runCount;
			dropDeliveries(subscription);
			await runToCompletion(caseId);
			await watchdogRun(harness);
			const found = itemsBySource(harness, 'reconciliation');
			expect(harness.runCount - delivered).toBe(found.length);
			expect(found.length).toBeGreaterThan(0);
			expect(new Set(found.map((item) => item.event))).toEqual(new Set([event]));
		},
	);

	it('runs the case data of a case it never heard of at the next watchdog run, its services found past their first status', async () => {
		const { harness, subscription } = await watched({ event: 'casedata.statuschange' });
		dropDeliveries(subscription);
		await runToCompletion(await createCase());
		await watchdogRun(harness);
		const found = itemsBySource(harness, 'reconciliation');
		expect(found.length).toBeGreaterThan(0);
		expect(new Set(found.map((item) => (item.eventObject as IDataObject).status))).not.toContain(
			'pending',
		);
		expect(harness.runCount).toBe(found.length);
	});

	it('keeps its record across a restart: a change made while n8n was down runs at the first watchdog run after it', async () => {
		const { harness, subscription, caseId } = await withNewCase(await watched());
		dropDeliveries(subscription);
		await restart(harness);
		await advance(caseId);
		await restart(harness);
		await harness.tick();
		expect(foundStatuses(harness)).toEqual(['Authorization in Progress']);
	});

	it("runs a change the watchdog found once, even when the provider's late retry carries an older modStamp (the case was edited without a status change)", async () => {
		const { harness, missed, deliverLate } = await missChangeThenEdit(await watched());
		const delivered = sandbox.admin.deliveryLog({ messageId: missed })[0].payload as IDataObject;
		await watchdogRun(harness);
		const [found] = itemsBySource(harness, 'reconciliation');
		const [old, now] = [delivered, found].map((item) => item.eventObject as IDataObject);
		expect(Date.parse(now.modStamp as string)).toBeGreaterThan(Date.parse(old.modStamp as string));
		expect(now).toMatchObject({ secondaryStatus: old.secondaryStatus });
		await deliverLate();
		expect(harness.runCount).toBe(2);
		await harness.tick();
		expect(harness.runCount).toBe(2);
	});

	it('does not let an older delivery arriving after a newer one make the next watchdog run run anything', async () => {
		const { harness } = await swappedPair(watchSetup());
		expect(caseFields(harness, 'secondaryStatus')).toEqual(ARRIVAL_ORDER);
		const [newer] = harness.executions.map((items) => eventObjectOf(items));
		expect(savedCaseStatus(harness, String(newer.id))).toBe(caseStatusOf(newer));
		await harness.tick();
		await harness.tick();
		expect(harness.runCount).toBe(2);
	});

	it("finds a change again when n8n could not run the execution the watchdog run emitted (runWorkflow failed), once that run's claim has lapsed", async () => {
		const { harness } = await missChange(await watched());
		harness.failRunWorkflows = 1;
		await watchdogRun(harness);
		expect(itemsBySource(harness, 'reconciliation')).toEqual([]);
		// n8n never settles the emit's donePromise then; the claim holds back copies for CLAIM_SECONDS.
		jest.spyOn(Date, 'now').mockReturnValue(Date.now() + (CLAIM_SECONDS + 1) * 1000);
		await watchdogRun(harness);
		expect(foundStatuses(harness)).toEqual(['Authorization in Progress']);
		await harness.tick();
		expect(itemsBySource(harness, 'reconciliation')).toHaveLength(1);
	});

	it('saves a watchdog run that could not read a case as a failed execution naming the case, and runs the change at the next watchdog run', async () => {
		const { harness, caseId } = await missChange(await watched());
		failGets(`/case/id/${caseId}`, 503, 1);
		await watchdogRun(harness);
		expect(harness.failedTriggerRuns).toEqual([
			expect.objectContaining({
				message: 'The watchdog could not read 1 case(s); they are looked at again next time',
				description: expect.stringMatching(new RegExp(`^Case ${caseId}: .*503`)),
			}),
		]);
		await watchdogRun(harness);
		expect(foundStatuses(harness)).toEqual(['Authorization in Progress']);
	});

	it('does not start a watchdog run while one is under way, and emits nothing once deactivated during one', async () => {
		const { harness } = await missChange(await watched());
		const listReads = () =>
			sandbox.admin.requestLog().filter((entry) => entry.path === '/case/list');
		const listedBefore = listReads().length;
		slowGets('/case/id', 300, 1);
		await Promise.all([harness.tick(), harness.tick()]);
		expect(listReads().length - listedBefore).toBe(1);
		await harness.idle();
		expect(foundStatuses(harness)).toEqual(['Authorization in Progress']);

		const { harness: closing } = await missChange(await watched());
		slowGets('/case/id', 300, 1);
		const during = closing.tick();
		await new Promise((resolve) => setTimeout(resolve, 100));
		await closing.deactivateTrigger();
		await during;
		expect(foundStatuses(closing)).toEqual([]);
		// Its claim was let go: the next activation's watchdog run runs it.
		await closing.activate('init');
		await watchdogRun(closing);
		expect(foundStatuses(closing)).toEqual(['Authorization in Progress']);
	});

	it.each([
		['the same modStamp', missChange],
		['an older modStamp (the case edited since)', missChangeThenEdit],
	])(
		"runs a change it found once when workers run the executions and the provider's late retry, with %s, reaches this process",
		async (_modStamp, missed) => {
			const { harness, deliverLate } = await missed(await watched());
			harness.runsExecutions = false;
			await watchdogRun(harness);
			expect(foundStatuses(harness)).toEqual(['Authorization in Progress']);
			await deliverLate();
			expect(harness.runCount).toBe(2);
		},
	);

	it('starts no watchdog in a manual run ("listen for test event") and leaves its saved record alone', async () => {
		await createCase();
		const { harness } = await watched();
		const saved = savedMemory(harness);
		harness.setup.mode = 'manual';
		for (const reconcile of [true, false]) {
			harness.setup.parameters = { ...harness.setup.parameters, reconcile };
			await harness.activate('manual');
			expect(harness.schedules).toEqual([]);
			expect(savedMemory(harness)).toBe(saved);
		}
	});

	it('saves a failed watchdog run as a failed execution and finds the change at the next one', async () => {
		const { harness } = await missChange(await watched());
		failGets('/case/list', 503, 1);
		await harness.tick();
		expect(harness.failedTriggerRuns.map((error) => error.message)).toEqual([
			expect.stringMatching(/^The watchdog could not list the cases: .*503/),
		]);
		await harness.tick();
		expect(itemsBySource(harness, 'reconciliation')).toHaveLength(1);
	});

	it('refuses activation when it cannot list the cases, but not a restart (the first watchdog run records them then)', async () => {
		failGets('/case/list', 500, 1);
		await expect(watched()).rejects.toThrow(
			/^The watchdog could not list the cases of the credential's group: .*500/,
		);
		const { harness } = await watched();
		// A start without a saved record (static data from before Reconcile Missed Events was on).
		await harness.deactivateTrigger();
		harness.store.clear();
		failGets('/case/list', 500, 1);
		await expect(restart(harness)).resolves.toBeUndefined();
		expect(warned(harness, 'could not list')).toBe(true);
		await createCase();
		await harness.tick();
		expect(itemsBySource(harness, 'reconciliation')).toEqual([]);
	});

	it('when off, schedules nothing and drops the record an earlier watchdog saved', async () => {
		await createCase();
		const { harness } = await watched();
		const recorded = JSON.parse(savedMemory(harness));
		expect(recorded).toMatchObject({ v: 2, recorded: true });
		expect(recorded.subjects.length).toBeGreaterThan(0);
		harness.setup.parameters = { ...harness.setup.parameters, reconcile: false };
		await harness.activate('update');
		expect(harness.schedules).toEqual([]);
		expect(JSON.parse(savedMemory(harness))).toMatchObject({ recorded: false });
		expect(JSON.parse(savedMemory(harness)).subjects).toBeUndefined();
	});

	it.each([
		[
			'keeps its record when n8n republishes the workflow (webhook removed and made again): a change made meanwhile runs at the next watchdog run',
			'update',
			['Authorization in Progress'],
		],
		[
			'makes a new record when a user activates the workflow again: changes made while it was inactive are not replayed',
			'activate',
			[],
		],
	] as const)('%s', async (_name, activation, expected) => {
		const { harness, subscription, caseId } = await withNewCase(await watched());
		dropDeliveries(subscription);
		await harness.deactivateTrigger();
		await harness.lifecycle('delete');
		await advance(caseId);
		await harness.activate(activation);
		await harness.tick();
		expect(foundStatuses(harness)).toEqual(expected);
	});
});

describe('Reconcile Missed Events handed to the webhook URL (queue mode)', () => {
	/**
	 * Queue mode's two roles over one database: `owner` receives every delivery (a webhook process), `main`
	 * runs the watchdog and never sees a delivery (n8n's main process, its own memory).
	 */
	async function queueMode() {
		const { harness: owner, ...rest } = await scenario(watchSetup({ reconcileHandoff: 'webhook' }));
		return { owner, main: await anotherProcess(owner), ...rest };
	}

	it('hands a change whose delivery never arrived to the webhook URL: the receiving process runs it once', async () => {
		const { owner, main, caseId } = await missChange(await queueMode());
		const savesBefore = owner.store.saves;
		await watchdogRun(main, owner);
		expect(main.failedTriggerRuns).toEqual([]);
		expect(main.runCount).toBe(0);
		expect(itemFields(owner, 'source')).toEqual(['webhook', 'reconciliation']);
		const [, [found]] = owner.executions;
		expect(found).toMatchObject({
			eventObject: { id: caseId, secondaryStatus: 'Authorization in Progress' },
			deliveryId: expect.stringMatching(/^watchdog_/),
			signatureScheme: 'standard',
		});
		// Only the receiving process saved (once, for the run); the main process learnt it in its own memory.
		expect(owner.store.saves).toBe(savesBefore + 1);
		await watchdogRun(main, owner);
		expect(owner.runCount).toBe(2);
		expect(owner.received).toHaveLength(2);
	});

	it('runs a change that was delivered and also found by a watchdog run once: the main process never saw the delivery', async () => {
		const { owner, main } = await queueMode();
		await runToCompletion(await createCase());
		const delivered = owner.runCount;
		expect(delivered).toBeGreaterThan(2);
		await watchdogRun(main, owner);
		// Every change was handed over again and answered as a duplicate: nothing ran twice.
		expect(owner.received.length).toBeGreaterThan(delivered);
		expect(owner.runCount).toBe(delivered);
		expect(new Set(owner.executions.map(([item]) => eventKeyOfItem(item))).size).toBe(delivered);
		// Learnt from the answers: the next watchdog run hands nothing over.
		const handed = owner.received.length;
		await main.tick();
		expect(owner.received).toHaveLength(handed);
	});

	it("runs a handed-over change once when workers run the executions, even if the provider's late retry carries an older modStamp", async () => {
		const setup = await queueMode();
		// Workers run the executions: what the receiving process knows, it learnt when it started them.
		setup.owner.runsExecutions = false;
		const { owner, main, deliverLate } = await missChangeThenEdit(setup);
		await watchdogRun(main, owner);
		expect(itemFields(owner, 'source')).toEqual(['webhook', 'reconciliation']);
		await deliverLate();
		expect(owner.runCount).toBe(2);
	});

	it('finds a change again when the webhook URL did not take it, and runs it once then', async () => {
		const { owner, main } = await missChange(await queueMode());
		owner.failStarts = 1;
		await main.tick();
		expect(main.failedTriggerRuns.map((error) => error.message)).toEqual([
			'The watchdog could not hand 1 change(s) to the webhook URL; the next run finds them again',
		]);
		expect(owner.runCount).toBe(1);
		await watchdogRun(main, owner);
		expect(itemFields(owner, 'source')).toEqual(['webhook', 'reconciliation']);
	});

	it('fails a watchdog run whose webhook URL cannot be reached, saying why, and runs nothing', async () => {
		const { owner, main, receiver } = await missChange(await queueMode());
		await receiver.stop();
		await main.tick();
		expect(main.failedTriggerRuns).toEqual([
			expect.objectContaining({
				message: expect.stringContaining('could not hand 1 change(s) to the webhook URL'),
				description: expect.stringMatching(/ECONNREFUSED/),
			}),
		]);
		expect(owner.runCount).toBe(1);
	});

	it('sends nothing while it cannot sign a change (Signing Secret removed) or knows no webhook URL, failing the watchdog run with the reason; hands the change over once it can', async () => {
		const { owner, main } = await missChange(await queueMode());
		const webhookApi = owner.setup.credentials!.backgroundCheckWebhookApi;
		const { signingSecret } = webhookApi;
		webhookApi.signingSecret = ' ';
		await main.tick();
		webhookApi.signingSecret = signingSecret;
		const webhookUrl = owner.setup.webhookUrl;
		owner.setup.webhookUrl = '';
		const startedWithoutUrl = await anotherProcess(owner);
		owner.setup.webhookUrl = webhookUrl;
		await startedWithoutUrl.tick();
		expect([...main.failedTriggerRuns, ...startedWithoutUrl.failedTriggerRuns]).toEqual(
			['the credential has no Signing Secret', 'no webhook URL is known yet'].map((description) =>
				expect.objectContaining({
					message: expect.stringContaining('could not hand 1 change(s) to the webhook URL'),
					description,
				}),
			),
		);
		expect(owner.received).toHaveLength(1);
		await watchdogRun(main, owner);
		expect(itemFields(owner, 'source')).toEqual(['webhook', 'reconciliation']);
	});

	it('finds, after every process was down, the changes made meanwhile', async () => {
		const { owner } = await missChange(await queueMode());
		// n8n starts again: a new main process over what the receiving process saved.
		await watchdogRun(await anotherProcess(owner), owner);
		expect(itemFields(owner, 'source')).toEqual(['webhook', 'reconciliation']);
	});

	it('refuses activation when the watchdog could not sign what it hands over', async () => {
		const handoff = { reconcile: true, reconcileHandoff: 'webhook' };
		const legacy = { signatureScheme: 'legacy', legacyHeaderName: 'x-signature' };
		const webhookApi = { legacySecret: 'a-legacy-secret-of-some-length' };
		const api = { backgroundCheckApi: apiCredential() };
		const harness = bareHarness({ ...handoff, ...legacy }, webhookApi, api);
		await expect(harness.activate()).rejects.toThrow(
			'Handing found changes to the webhook URL needs the Standard Webhooks scheme',
		);
		const watchdogOff = bareHarness({ ...handoff, ...legacy, reconcile: false }, webhookApi, api);
		await expect(watchdogOff.activate()).resolves.toBeUndefined();
	});
});

describe('lifecycle', () => {
	it('refuses to activate with a signing secret that is not whsec_ base64', async () => {
		const harness = bareHarness({}, { signingSecret: SECRET_BASE64 });
		await expect(harness.activate()).rejects.toBeInstanceOf(NodeOperationError);
		await expect(harness.activate()).rejects.toThrow('The Signing Secret is not a whsec_ secret');
		expect(nodeData(harness)).toBeUndefined();
	});

	it('refuses to activate Legacy without a legacy secret, and lists every problem', async () => {
		const legacyOnly = bareHarness({ signatureScheme: 'legacy' }, { signingSecret: '' });
		await expect(legacyOnly.activate()).rejects.toThrow('no Legacy Secret');
		const both = bareHarness({ signatureScheme: 'both' }, { signingSecret: 'nope' });
		const error = await both.activate().catch((caught: NodeOperationError) => caught);
		expect((error as NodeOperationError).description).toContain('no Legacy Secret');
	});

	it('has nothing to create remotely: activation saves nothing new, and deactivation clears nothing', async () => {
		const harness = bareHarness();
		expect(await harness.lifecycle('checkExists')).toBe(true);
		expect(nodeData(harness)).toBeUndefined();
		await harness.activate();
		const body = caseCompletedBody('msg_lifecycle', 'case-lifecycle');
		await harness.handle({ headers: signedHeaders(SECRET, 'msg_lifecycle', body), body });
		await harness.idle();
		const saved = savedMemory(harness);
		expect(saved).not.toBe('');
		expect(await harness.lifecycle('delete')).toBe(true);
		expect(savedMemory(harness)).toBe(saved);
		expect(await harness.lifecycle('checkExists', 'init')).toBe(true);
	});

	it('checks the configuration again on every start, not only the first activation', async () => {
		const harness = bareHarness();
		await harness.activate();
		harness.setup.credentials = { backgroundCheckWebhookApi: { signingSecret: 'whsec_???' } };
		await expect(harness.activate('init')).rejects.toThrow('not a whsec_ secret');
	});
});

describe('node description and credential test', () => {
	const trigger = new BackgroundCheckTrigger();
	const { checkWebhookSecrets } = trigger.methods.credentialTest;
	const credential = { id: '1', name: 'webhook', type: 'backgroundCheckWebhookApi' };
	const testSecrets = (data: CredentialData) =>
		checkWebhookSecrets.call({} as ICredentialTestFunctions, { ...credential, data });

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
		const { properties } = trigger.description;
		const options = properties.find((property) => property.name === 'options')
			?.options as unknown as IDataObject[];
		const option = (name: string) => options.find((candidate) => candidate.name === name);
		expect(option('toleranceSeconds')?.default).toBe(DEFAULT_TOLERANCE_SECONDS);
		expect(option('duplicateMemorySize')).toMatchObject({
			default: DUPLICATE_MEMORY_SIZE.default,
			typeOptions: { minValue: DUPLICATE_MEMORY_SIZE.min, maxValue: DUPLICATE_MEMORY_SIZE.max },
		});
		const handoff = properties.find((property) => property.name === HANDOFF_PARAMETER);
		expect(handoff?.default).toBe(HANDOFF.process);
		expect(handoff?.options?.map((choice) => (choice as { value: string }).value).sort()).toEqual(
			Object.values(HANDOFF).sort(),
		);
	});

	it('checks the form of the secrets and says that only a delivery proves them', async () => {
		expect(await testSecrets({ signingSecret: SECRET })).toEqual({
			status: 'OK',
			message: expect.stringContaining('Send a test event'),
		});
		for (const [data, status, message] of [
			[{ legacySecret: 'abc' }, 'OK', 'Send a test event'],
			[{ signingSecret: SECRET_BASE64 }, 'Error', 'The Signing Secret is not a whsec_ secret'],
			[
				{ signingSecret: SECRET, previousSigningSecret: 'old' },
				'Error',
				'The Previous Signing Secret',
			],
			[{}, 'Error', 'Enter the Signing Secret (whsec_...) or the Legacy Secret'],
		] as const)
			expect(await testSecrets(data)).toEqual({
				status,
				message: expect.stringContaining(message),
			});
	});
});

it.each([
	['Fetch Latest Case', { fetchLatestCase: true }],
	['Reconcile Missed Events', { reconcile: true }],
])('%s needs the Background Check API credential at activation', async (_option, parameters) => {
	const error = await bareHarness(parameters)
		.activate()
		.catch((caught: NodeOperationError) => caught);
	expect(error).toMatchObject({
		message: 'Fetch Latest Case and the watchdog need a Background Check API credential',
		description: expect.stringContaining(
			'does not have any credentials of type "backgroundCheckApi"',
		),
	});
});
