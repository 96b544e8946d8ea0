/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- repository tooling: runs in Node.js, never inside n8n */
/**
 * `npm run test:upgrade` (not in `npm test` until it has had a clean run on both runtimes; its name keeps it
 * out of jest.e2e.config.js's match). An upgrade with live workflows, through n8n's own update: version N installed from the local registry
 * (POST /rest/community-packages), an active trigger workflow with its watchdog on (Reconcile Missed Events,
 * every 10 s) and an action workflow, then version N+1 (the same code, its version bumped with `npm version`,
 * published to the registry) installed with the call the Update button makes (PATCH /rest/community-packages).
 * `BGC_UPGRADE_FROM=<tarball>` makes version N an earlier release (`npm pack` of an earlier revision) and N+1
 * this repository: an update across a change of the trigger's saved form.
 *
 * The sandbox's delivery fault keeps about two in five messages from ever reaching the trigger, so the
 * watchdog has work on both sides of the upgrade, and the clock moves during the update (deliveries due
 * then are made and retried on the sandbox's schedule). Checked from n8n's executions (public API): before
 * the update every status change runs exactly once; copies of the events accepted before the update (same
 * webhook-id, signed again: what a provider's retry sends) start nothing; the credentials keep working.
 * Between the update and a restart of n8n, n8n keeps the old version's watchdog running with its own memory
 * (it activated the workflow), while deliveries and executions run the new version: a change the new version
 * ran from its delivery and the old watchdog then finds starts an execution that stops at the trigger (no
 * item out), counted apart; every change still runs once past the trigger. After the restart each change runs
 * once again. Last, n8n's refusals: a registry of its own without an Enterprise licence, and unverified
 * packages turned off.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { eventKeyOf, parseEvent } from '../../nodes/BackgroundCheckTrigger/event';
import type { Sandbox, Subscription } from '../../sandbox';
import { httpRequest } from '../harness/n8n/http';
import type { PackedPackage } from '../harness/n8n/registry';
import { signedHeaders } from '../helpers/deliveries';
import { orderOf } from '../helpers/sandbox';
import {
	ACTION_NODE,
	PACKAGE,
	TRIGGER_NAME as TRIGGER,
	TRIGGER_NODE,
	actionNode,
	byId,
	createApiCredential,
	deployTriggerWorkflow,
	executionError,
	lossySubscription,
	publishedEvents,
	startTestSandbox,
} from '../harness/backgroundCheck';
import {
	communityNodesN8n,
	communityPackages,
	packageWarnings,
	publishNextPatch,
	startPublishedPackage,
	type PublishedPackage,
} from '../harness/communityPackages';
import {
	callWebhook,
	deployWebhookWorkflow,
	linearWebhookWorkflow,
	nodeOutput,
	type Credential,
	type DeployedWebhookWorkflow,
	type Execution,
} from '../harness/n8nApi';
import { packageTarball, startTestN8n, type TestN8n } from '../harness/n8nInstance';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const STEP_SECONDS = 300;
const CASES = 4;
/** An identity check, and a drug screening that walks four pending statuses before its result. */
const SERVICES = ['service-idv-id', 'service-drug-10-panel'];

let sandbox: Sandbox;
let published: PublishedPackage;
let n8n: TestN8n;
let next: PackedPackage;

// What the tests below share, in order.
let subscription: Subscription;
let apiCredential: Credential;
let triggerWorkflowId: string;
let webhookPath: string;
let action: DeployedWebhookWorkflow;
const caseIds: string[] = [];
/** Messages the trigger accepted (answered 200) before the upgrade, with the body the sandbox sent. */
let acceptedBeforeUpgrade: Array<{ messageId: string; body: string }> = [];
/** Every status change published before the update. */
let keysBeforeUpgrade: string[] = [];

beforeAll(async () => {
	sandbox = await startTestSandbox();
	published = await startPublishedPackage('upgrade', process.env.BGC_UPGRADE_FROM);
	n8n = await startTestN8n('upgrade', communityNodesN8n(published));
}, 180_000);

afterAll(async () => {
	await sandbox?.admin.idle();
	await n8n?.stop();
	await published?.stop();
	await sandbox?.stop();
});

async function sandboxToken(): Promise<string> {
	const [demo] = sandbox.demoCredentials;
	const auth = await httpRequest(`${sandbox.url}/auth/api`, {
		method: 'POST',
		body: { apiKey: demo.apiKey, clientAccessToken: demo.clientAccessToken },
	});
	return (auth.json as Json).token;
}

async function createCase(token: string): Promise<string> {
	const created = await httpRequest(`${sandbox.url}/case/create`, {
		method: 'POST',
		headers: { authorization: `Bearer ${token}` },
		body: {
			...orderOf(...SERVICES),
			email: `upgrade-${randomUUID()}@example.com`,
			givenName: 'Uma',
			familyName: 'Pgrade',
		},
	});
	expect(created.status).toBe(200);
	return (created.json as Json).caseId;
}

const keyOfPayload = (payload: unknown) =>
	eventKeyOf(parseEvent(Buffer.from(JSON.stringify(payload)))!);
const keyOfItem = (item: Json) => eventKeyOf({ event: item.event, eventObject: item.eventObject });

/** Every status change the sandbox published for the trigger, and whether any attempt reached it. */
const statusChanges = () => publishedEvents(sandbox, subscription.id);

const finished = (execution: Execution) =>
	['success', 'error', 'crashed', 'canceled'].includes(execution.status);

/**
 * The trigger workflow's executions with their trigger item, once all have finished; else undefined. Those
 * whose trigger step output nothing (a change another version's watchdog found after it had run) are
 * `stopped`.
 */
async function triggerExecutions(): Promise<
	{ runs: Array<{ execution: Execution; item: Json }>; stopped: Execution[] } | undefined
> {
	const all = await n8n.api.listExecutions({
		workflowId: triggerWorkflowId,
		includeData: true,
		limit: 1000,
	});
	if (!all.every(finished)) return undefined;
	const runs: Array<{ execution: Execution; item: Json }> = [];
	const stopped: Execution[] = [];
	for (const execution of all) {
		const items = nodeOutput(execution, TRIGGER) as Json[];
		expect(items.length).toBeLessThanOrEqual(1);
		if (items.length === 1) runs.push({ execution, item: items[0] });
		else stopped.push(execution);
	}
	return { runs, stopped };
}

/** The trigger workflow's executions that ran past the trigger, with their item. */
const triggerRuns = async () => (await triggerExecutions())?.runs;

async function waitUntil<T>(
	what: string,
	read: () => Promise<T | undefined>,
	timeoutMs = 90_000,
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await read();
		if (value !== undefined) return value;
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
}

/** Waits until every status change published so far has run (delivered, or found by a watchdog run). */
async function allPublishedRan(): Promise<void> {
	await sandbox.admin.idle();
	const keys = statusChanges().map(({ key }) => key);
	await waitUntil(`the ${keys.length} status changes to run`, async () => {
		const ran = new Set((await triggerRuns())?.map(({ item }) => keyOfItem(item)) ?? []);
		return ran.size > 0 && keys.every((key) => ran.has(key)) ? true : undefined;
	});
}

/**
 * The trigger's runs by status change: where each came from (webhook or reconciliation), when, and the
 * sandbox's delivery attempts of that change. Runs of hand-made events (not the sandbox's) are left out.
 */
async function runsByChange(): Promise<Map<string, Array<{ source: string; detail: string }>>> {
	const runs = new Map<string, Array<{ source: string; detail: string }>>();
	const attempts = sandbox.admin.deliveryLog({ subscriptionId: subscription.id });
	for (const { execution, item } of (await triggerRuns())!) {
		if (String(item.messageId ?? '').startsWith('after-upgrade-')) continue;
		const key = keyOfItem(item);
		const delivered = attempts
			.filter((attempt) => keyOfPayload(attempt.payload) === key)
			.map((attempt) => `#${attempt.attempt} ${attempt.statusCode ?? attempt.failure}`);
		runs.set(key, [
			...(runs.get(key) ?? []),
			{
				source: item.source,
				detail: `${item.source} (execution ${execution.id}, ${execution.status}, started ${execution.startedAt}; delivery attempts ${delivered.join(' ') || 'none'})`,
			},
		]);
	}
	return runs;
}

/**
 * Every status change the sandbox published ran exactly once, and each one no delivery reached ran from a
 * run of the watchdog (a delivered one may be found by a watchdog run before its delivery is handled: then the
 * delivery is the duplicate).
 */
async function expectEachChangeRanOnce(): Promise<void> {
	const events = statusChanges();
	const runs = await runsByChange();
	expect(
		[...runs.entries()]
			.filter(([, sources]) => sources.length !== 1)
			.map(([key, sources]) => [key, sources.map(({ detail }) => detail)]),
	).toEqual([]);
	expect([...runs.keys()].sort()).toEqual(events.map(({ key }) => key).sort());
	for (const { key, delivered } of events.filter((event) => !event.delivered))
		expect({ key, delivered, source: runs.get(key)![0].source }).toEqual({
			key,
			delivered,
			source: 'reconciliation',
		});
	expect((await triggerRuns())!.filter(({ execution }) => execution.status !== 'success')).toEqual(
		[],
	);
}

async function runAction(): Promise<Execution> {
	const before = (await n8n.api.listExecutions({ workflowId: action.workflow.id })).length;
	const answer = await action.run({ caseId: caseIds[0] });
	expect(answer.status).toBe(200);
	const executions = await n8n.api.waitForExecutions(action.workflow.id, before + 1);
	return executions.at(-1)!; // oldest first: this run's is the last
}

describe('version N installed from the registry, with live workflows', () => {
	it('runs a trigger with its watchdog and an action workflow, every status change exactly once', async () => {
		const installed = await communityPackages(n8n).install(PACKAGE);
		expect(installed).toMatchObject({
			status: 200,
			data: { installedVersion: published.packed.version },
		});

		const lossy = await lossySubscription(n8n, sandbox, {
			name: 'webhook: upgrade',
			dropRate: 0.4,
			seed: 'upgrade-with-live-workflows',
		});
		const { webhookId, webhookCredential } = lossy;
		subscription = lossy.subscription;
		apiCredential = await createApiCredential(n8n.api, sandbox, { name: 'api: upgrade' });
		const deployed = await deployTriggerWorkflow(n8n, {
			name: 'upgrade: trigger with watchdog',
			webhookId,
			parameters: { event: 'any', reconcile: true, reconcileEvery: '10s' },
			webhookCredential,
			apiCredential,
			sandbox,
		});
		triggerWorkflowId = deployed.workflow.id;
		webhookPath = deployed.webhookPath;
		action = await deployWebhookWorkflow(
			n8n.api,
			linearWebhookWorkflow('upgrade: action', `upgrade-action-${randomUUID()}`, [
				actionNode(
					{ resource: 'case', operation: 'get', caseId: byId('={{ $json.body.caseId }}') },
					apiCredential,
				),
			]),
		);

		const token = await sandboxToken();
		for (let index = 0; index < CASES; index++) caseIds.push(await createCase(token));
		await allPublishedRan();
		await sandbox.admin.advanceClock(STEP_SECONDS);
		await allPublishedRan();

		await expectEachChangeRanOnce();
		expect(statusChanges().some(({ delivered }) => !delivered)).toBe(true);
		const ran = await runAction();
		expect({ status: ran.status, error: executionError(ran) }).toEqual({
			status: 'success',
			error: undefined,
		});

		acceptedBeforeUpgrade = sandbox.admin
			.deliveryLog({ subscriptionId: subscription.id })
			.filter((attempt) => attempt.outcome === 'succeeded')
			.map((attempt) => ({ messageId: attempt.messageId, body: JSON.stringify(attempt.payload) }));
		expect(acceptedBeforeUpgrade.length).toBeGreaterThan(0);
		keysBeforeUpgrade = statusChanges().map(({ key }) => key);
	});
});

describe("version N+1 installed with n8n's update (PATCH /rest/community-packages)", () => {
	it('is offered as an update once published, and n8n installs it while the clock moves', async () => {
		next = await publishNextPatch(
			published,
			process.env.BGC_UPGRADE_FROM ? await packageTarball() : undefined,
		);
		const listed = await communityPackages(n8n).list();
		expect(listed.data).toEqual([
			expect.objectContaining({
				packageName: PACKAGE,
				installedVersion: published.packed.version,
				updateAvailable: next.version,
			}),
		]);

		// Status changes fall due while n8n replaces the package.
		const [updated] = await Promise.all([
			communityPackages(n8n).update(PACKAGE),
			sandbox.admin.advanceClock(STEP_SECONDS),
		]);

		expect(updated).toMatchObject({ status: 200, data: { installedVersion: next.version } });
		expect(updated.data!.installedNodes.map((node) => node.type).sort()).toEqual(
			[ACTION_NODE, TRIGGER_NODE].sort(),
		);
		const onDisk = JSON.parse(
			fs.readFileSync(
				path.join(n8n.userFolder, '.n8n', 'nodes', 'node_modules', PACKAGE, 'package.json'),
				'utf8',
			),
		);
		expect(onDisk.version).toBe(next.version);
		expect((await communityPackages(n8n).list()).data).toEqual([
			expect.not.objectContaining({ updateAvailable: expect.anything() }),
		]);
		for (const id of [triggerWorkflowId, action.workflow.id])
			expect((await n8n.api.getWorkflow(id)).active).toBe(true);
	});

	it('keeps the trigger answering: unsigned requests refused, copies of the events accepted before start nothing', async () => {
		const unsigned = await callWebhook(n8n.baseUrl, webhookPath, {
			body: '{}',
			headers: { 'content-type': 'application/json' },
		});
		expect(unsigned.status).toBe(401);

		await allPublishedRan();
		const before = (await triggerRuns())!.length;
		for (const { messageId, body } of acceptedBeforeUpgrade) {
			const answer = await callWebhook(n8n.baseUrl, webhookPath, {
				body,
				headers: signedHeaders(subscription.secret, messageId, body),
			});
			expect({ messageId, status: answer.status }).toEqual({ messageId, status: 200 });
		}
		// A fresh event after them: once it has run, anything the copies started would be listed too.
		const sentinelId = `after-upgrade-${randomUUID()}`;
		const sentinel = JSON.stringify({
			messageId: sentinelId,
			event: 'case.statuschange',
			apiTrackingCode: null,
			apiTrackingUser: null,
			eventObject: {
				id: `case-${sentinelId}`,
				caseStatus: 'Complete',
				caseStatusId: '22334455-937e-46b1-8799-887766554433',
				secondaryStatus: null,
				secondaryCaseStatusId: null,
				modStamp: new Date().toISOString(),
			},
		});
		const fresh = await callWebhook(n8n.baseUrl, webhookPath, {
			body: sentinel,
			headers: signedHeaders(subscription.secret, sentinelId, sentinel),
		});
		expect(fresh.status).toBe(200);
		const after = await waitUntil('the fresh event to run', async () => {
			const ran = await triggerRuns();
			return ran?.some(({ item }) => item.messageId === sentinelId) ? ran : undefined;
		});
		expect(after.length).toBe(before + 1);
	});

	it("until n8n restarts, with the old version's watchdog still running: every status change runs once past the trigger, nothing is lost", async () => {
		for (
			let step = 0;
			caseIds.some((caseId) => sandbox.admin.getCase(caseId).caseStatus !== 'Complete');
			step++
		) {
			expect(step).toBeLessThan(12);
			await sandbox.admin.advanceClock(STEP_SECONDS);
			await allPublishedRan();
		}
		await expectEachChangeRanOnce();
		for (const key of keysBeforeUpgrade)
			expect({ key, runs: (await runsByChange()).get(key)!.length }).toEqual({ key, runs: 1 });
		// The old version's watchdog never saw the deliveries the new version took: a change it finds after
		// its delivery ran starts an execution whose trigger step outputs nothing.
		const { stopped } = (await triggerExecutions())!;
		expect(stopped.filter(({ status }) => status !== 'success')).toEqual([]);
		process.stderr.write(
			`[upgrade] after the update: ${statusChanges().length} status changes, each run once; ${stopped.length} executions of the old version's watchdog stopped at the trigger\n`,
		);
	});

	it('keeps the credentials working: the action workflow reads the case', async () => {
		const ran = await runAction();
		expect({ status: ran.status, error: executionError(ran) }).toEqual({
			status: 'success',
			error: undefined,
		});
		expect(nodeOutput(ran, 'Background Check')).toEqual([
			expect.objectContaining({ id: caseIds[0] }),
		]);
	});

	it("leaves no warning or error about the package in n8n's log", () => {
		expect(packageWarnings(n8n.readLog(), PACKAGE)).toEqual([]);
	});
});

describe('after n8n restarts', () => {
	it('runs every new status change exactly once, the updated version loaded at start-up', async () => {
		// Also pointed at a registry of its own, for the test after this one.
		n8n = await n8n.restart({ N8N_COMMUNITY_PACKAGES_REGISTRY: published.registry.url });
		const before = new Set((await triggerRuns())!.map(({ execution }) => execution.id));
		const seen = new Set(statusChanges().map(({ key }) => key));
		caseIds.push(await createCase(await sandboxToken()));
		await allPublishedRan();
		await sandbox.admin.advanceClock(STEP_SECONDS);
		await allPublishedRan();

		const fresh = statusChanges().filter(({ key }) => !seen.has(key));
		expect(fresh.length).toBeGreaterThan(0);
		const ranNow = (await triggerRuns())!.filter(({ execution }) => !before.has(execution.id));
		expect(ranNow.map(({ item }) => keyOfItem(item)).sort()).toEqual(
			fresh.map(({ key }) => key).sort(),
		);
		// After the update and the restart, a retry of an event that ran before the update runs nothing.
		const runsBeforeRetries = (await triggerRuns())!.length;
		for (const { messageId, body } of acceptedBeforeUpgrade) {
			const answer = await callWebhook(n8n.baseUrl, webhookPath, {
				body,
				headers: signedHeaders(subscription.secret, messageId, body),
			});
			expect({ messageId, status: answer.status }).toEqual({ messageId, status: 200 });
		}
		// An execution a retry started would be listed within moments of its 200.
		await new Promise((resolve) => setTimeout(resolve, 3000));
		expect((await triggerRuns())!.length).toBe(runsBeforeRetries);
		expect((await communityPackages(n8n).list()).data).toEqual([
			expect.objectContaining({ installedVersion: next.version }),
		]);
	});

	it('with a registry of its own (N8N_COMMUNITY_PACKAGES_REGISTRY) and no Enterprise licence, refuses to update from it', async () => {
		const refused = await communityPackages(n8n).update(PACKAGE);
		expect(refused.status).toBe(500);
		expect(refused.message).toContain(
			'Your license does not allow for feat:communityNodes:customRegistry',
		);
		expect((await communityPackages(n8n).list()).data).toEqual([
			expect.objectContaining({ installedVersion: next.version }),
		]);
	});

	it('with N8N_UNVERIFIED_PACKAGES_ENABLED=false, refuses to install it with n8n’s message', async () => {
		n8n = await n8n.restart({ N8N_UNVERIFIED_PACKAGES_ENABLED: 'false' });
		expect(await communityPackages(n8n).uninstall(PACKAGE)).toMatchObject({ status: 200 });
		const refused = await communityPackages(n8n).install(PACKAGE);
		expect(refused.status).toBe(500);
		expect(refused.message).toContain(
			'Installation of unverified community packages is forbidden!',
		);
	});
});
