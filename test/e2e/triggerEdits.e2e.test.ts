/**
 * A user's edits keep the trigger's promise in real n8n. One workflow per edit, each with
 * its own sandbox subscription and the watchdog on (Reconcile Missed Events, every 10 s): a case's first two
 * status changes run, the edits are made through n8n's public API, n8n restarts once for all of them, then
 * every delivery that ran is sent again (same webhook-id, signed afresh: a provider's retry) and must start
 * no execution; last, a status change no delivery brings must be run by the watchdog, alone: it runs nothing
 * already run, nor the change made while the deactivated workflow was off (older than its activation).
 * Executions are counted, not answers. The package update is upgrade.e2e.ts (`npm run test:upgrade`).
 */
import { randomUUID } from 'node:crypto';
import { sleep } from 'n8n-workflow';

import type { Sandbox, Subscription } from '../../sandbox';
import {
	createApiCredential,
	deployTriggerWorkflow,
	requestsFrom,
	startTestSandbox,
	WEBHOOK_CREDENTIAL,
} from '../harness/backgroundCheck';
import { httpRequest } from '../harness/n8n/http';
import { callWebhook, waitForWebhook, type Credential, type Execution } from '../harness/n8nApi';
import { startTestN8n, type TestN8n } from '../harness/n8nInstance';
import { signedHeaders } from '../helpers/deliveries';
import { orderOf } from '../helpers/sandbox';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const WATCHDOG_SECONDS = 10;

interface Edited {
	name: string;
	parameters?: Json;
	/** Made while the case's second status change is published; `after`, once it has been. */
	during?: (workflow: Deployed) => Promise<void>;
	after: (workflow: Deployed) => Promise<void>;
	/** The trigger node (and whether the workflow is active) as n8n has it after the restart. */
	edited: Json;
}

/** Saves the workflow through the public API (PUT): an active one is published again, as the editor's Publish. */
const save =
	(change: { nodeName?: string; parameters?: Json } = {}) =>
	async (workflow: Deployed) => {
		const current = await n8n.api.getWorkflow(workflow.id);
		await n8n.api.request('PUT', `/workflows/${workflow.id}`, {
			name: current.name,
			connections: current.connections,
			settings: { executionOrder: 'v1' },
			nodes: current.nodes.map(({ id, name, type, typeVersion, position, webhookId, ...node }) => ({
				...{ id, type, typeVersion, position, webhookId, credentials: node.credentials },
				name: change.nodeName ?? name,
				parameters: { ...node.parameters, ...change.parameters },
			})),
		});
	};

const EDITS: Edited[] = [
	{
		name: 'renaming the trigger node',
		after: save({ nodeName: 'Screening done' }),
		edited: { name: 'Screening done' },
	},
	{
		name: 'republishing it unchanged',
		after: save(),
		edited: { name: 'Background Check Trigger' },
	},
	{
		name: 'deactivating it and activating it again',
		// Off while the second status change happens, which no delivery brings to it: older than its activation.
		during: async (workflow) => {
			await n8n.api.request('POST', `/workflows/${workflow.id}/deactivate`);
			sandbox.admin.injectDeliveryFault({ subscriptionId: workflow.subscription.id, dropRate: 1 });
		},
		after: async (workflow) => {
			const requests = requestsFrom(sandbox);
			await n8n.api.activateWorkflow(workflow.id);
			// Its record of the cases at activation (a list read), before n8n stops.
			await until(async () => requests.api().some(({ path }) => path === '/case/list'), 20_000);
			await sleep(1_000);
		},
		edited: { active: true },
	},
	{
		name: 'changing the event filter (Any Event to Case Status Change)',
		parameters: { event: 'any' },
		after: save({ parameters: { event: 'case.statuschange' } }),
		edited: { parameters: expect.objectContaining({ event: 'case.statuschange' }) },
	},
	{
		name: 'changing the status filter (any to Pending)',
		after: save({ parameters: { caseStatus: 'Pending' } }),
		edited: { parameters: expect.objectContaining({ caseStatus: 'Pending' }) },
	},
];

interface Deployed {
	id: string;
	webhookPath: string;
	subscription: Subscription;
	/** Executions (summarized) by stage: before the restart, after the retries, after the watchdog run. */
	counts: Record<'beforeRestart' | 'afterRetries' | 'afterLook', Run[]>;
	retryAnswers: string[];
	afterRestart?: Json;
}
interface Run {
	id: string;
	status: string;
	source?: string;
	event?: string;
	/** caseStatus/secondaryStatus of the event. */
	change?: string;
	messageId?: string;
}

let n8n: TestN8n;
let sandbox: Sandbox;
const deployed = new Map<string, Deployed>();

async function until(ready: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
	for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(250))
		if (await ready()) return true;
	return false;
}

/** The workflow's executions, oldest first, with the trigger's item (none: it stopped at the trigger). */
async function runs(workflow: Deployed): Promise<Run[]> {
	const all = await n8n.api.listExecutions({
		workflowId: workflow.id,
		includeData: true,
		limit: 100,
		settleMs: 300,
	});
	return all.reverse().map((execution: Execution) => {
		const [trigger] = Object.values(execution.data?.resultData.runData ?? {});
		const item = trigger?.[0]?.data?.main[0]?.[0]?.json as Json | undefined;
		return {
			id: execution.id,
			status: execution.status,
			source: item ? item.source : 'no item',
			event: item?.event,
			change: item && `${item.eventObject?.caseStatus}/${item.eventObject?.secondaryStatus}`,
			messageId: item?.messageId,
		};
	});
}

const finished = (list: Run[]) =>
	list.every(({ status }) => !['new', 'running', 'waiting'].includes(status));
const delivered = (workflow: Deployed) => [
	...new Map(
		sandbox.admin
			.deliveryLog({ subscriptionId: workflow.subscription.id })
			.filter((attempt) => attempt.outcome === 'succeeded')
			.map((attempt) => [attempt.messageId, attempt]),
	).values(),
];

async function waitForRuns(count: (workflow: Deployed) => number): Promise<void> {
	for (const workflow of deployed.values())
		await until(async () => {
			const list = await runs(workflow);
			return finished(list) && list.length >= count(workflow);
		}, 60_000);
}

async function createCase(): Promise<void> {
	const [demo] = sandbox.demoCredentials;
	const auth = await httpRequest(`${sandbox.url}/auth/api`, {
		method: 'POST',
		body: { apiKey: demo.apiKey, clientAccessToken: demo.clientAccessToken },
	});
	const created = await httpRequest(`${sandbox.url}/case/create`, {
		method: 'POST',
		headers: { authorization: `Bearer ${(auth.json as Json).token}` },
		body: {
			...orderOf('service-idv-id'),
			email: `edits-${randomUUID()}@example.com`,
			givenName: 'Ed',
			familyName: 'Its',
		},
	});
	expect(created.status).toBe(200);
	await sandbox.admin.idle();
}

async function step(): Promise<void> {
	await sandbox.admin.advanceClock(300);
	await sandbox.admin.idle();
}

beforeAll(async () => {
	sandbox = await startTestSandbox();
	n8n = await startTestN8n('trigger-edits');
	const apiCredential: Credential = await createApiCredential(n8n.api, sandbox, {
		name: 'api: edits',
	});
	for (const edit of EDITS) {
		const webhookId = randomUUID();
		const subscription = sandbox.admin.createSubscription({
			url: `${n8n.baseUrl}/webhook/${webhookId}/webhook`,
			...(edit.parameters?.event === 'any' ? {} : { eventTypes: ['case.statuschange'] }),
		});
		const webhookCredential = await n8n.api.createCredential({
			name: `webhook: ${edit.name}`,
			type: WEBHOOK_CREDENTIAL,
			data: { signingSecret: subscription.secret },
		});
		const { workflow, webhookPath } = await deployTriggerWorkflow(n8n, {
			name: `edits: ${edit.name}`,
			webhookId,
			parameters: {
				event: 'case.statuschange',
				reconcile: true,
				reconcileEvery: `${WATCHDOG_SECONDS}s`,
				...edit.parameters,
			},
			webhookCredential,
			apiCredential,
			sandbox,
		});
		deployed.set(edit.name, {
			id: workflow.id,
			webhookPath,
			subscription,
			counts: {} as Deployed['counts'],
			retryAnswers: [],
		});
	}
	const each = async (act: (edit: Edited, workflow: Deployed) => Promise<void> | undefined) => {
		for (const edit of EDITS) await act(edit, deployed.get(edit.name)!);
	};

	// Pending/Waiting for Authorization, then (edits under way) Pending/Authorization in Progress.
	await createCase();
	await each((edit, workflow) => edit.during?.(workflow));
	await step();
	await each((edit, workflow) => edit.after(workflow));
	await waitForRuns((workflow) => delivered(workflow).length);
	await each(async (_, workflow) => void (workflow.counts.beforeRestart = await runs(workflow)));

	n8n = await n8n.restart();
	await each(async (_, workflow) => {
		const probe = await waitForWebhook(n8n.baseUrl, workflow.webhookPath, {
			probe: { method: 'POST', body: {} },
		});
		expect(probe?.status).toBe(401);
		const { active, nodes } = await n8n.api.getWorkflow(workflow.id);
		workflow.afterRestart = { active, ...nodes[0] };
	});
	await each(async (_, workflow) => {
		for (const { messageId, payload } of delivered(workflow)) {
			const body = JSON.stringify(payload);
			const answer = await callWebhook(n8n.baseUrl, workflow.webhookPath, {
				method: 'POST',
				body,
				headers: signedHeaders(workflow.subscription.secret, messageId, body),
			});
			workflow.retryAnswers.push(`${answer.status} ${JSON.stringify(answer.body)}`);
		}
	});
	await waitForRuns((workflow) => workflow.counts.beforeRestart.length);
	await each(async (_, workflow) => void (workflow.counts.afterRetries = await runs(workflow)));

	// After a run of each watchdog, Pending/no secondary status, which no delivery brings.
	await sleep((WATCHDOG_SECONDS + 1) * 1000);
	sandbox.admin.injectDeliveryFault({ dropRate: 1 });
	await step();
	await waitForRuns((workflow) => workflow.counts.beforeRestart.length + 1);
	await sleep((WATCHDOG_SECONDS + 1) * 1000);
	await each(async (_, workflow) => void (workflow.counts.afterLook = await runs(workflow)));
}, 400_000);

afterAll(async () => {
	await sandbox?.admin.idle();
	await n8n?.stop();
	await sandbox?.stop();
});

it.each(EDITS)(
	'after $name and an n8n restart, a retry of an event that ran runs nothing, and the watchdog runs only the change it missed',
	({ name, edited }) => {
		const workflow = deployed.get(name)!;
		expect(workflow.afterRestart).toMatchObject(edited);
		const { beforeRestart, afterRetries, afterLook } = workflow.counts;
		const changesRun = beforeRestart.filter(({ event }) => event === 'case.statuschange');
		// Before the restart: each delivered event ran once, by its delivery or, when the watchdog found its change
		// first (Run Watchdog Every is 10 s), by the watchdog; the deactivated one missed the second change.
		const changeOf = (event: unknown, eventObject: Json | undefined) =>
			`${String(event)} ${eventObject?.caseStatus}/${eventObject?.secondaryStatus}`;
		expect(beforeRestart.map(({ event, change }) => `${String(event)} ${change}`).sort()).toEqual(
			delivered(workflow)
				.map(({ payload }) => changeOf((payload as Json).event, (payload as Json).eventObject))
				.sort(),
		);
		expect(changesRun.map(({ change }) => change)).toEqual(
			name.startsWith('deactivating')
				? ['Pending/Waiting for Authorization']
				: ['Pending/Waiting for Authorization', 'Pending/Authorization in Progress'],
		);
		// The retries reached the trigger (signature verified) and started nothing.
		expect(workflow.retryAnswers.length).toBeGreaterThan(0);
		expect({ retries: workflow.retryAnswers, executions: afterRetries }).toEqual({
			retries: workflow.retryAnswers.map(() => expect.stringMatching(/^200 /)),
			executions: beforeRestart,
		});
		expect(afterLook.slice(beforeRestart.length)).toEqual([
			expect.objectContaining({
				status: 'success',
				source: 'reconciliation',
				change: 'Pending/null',
			}),
		]);
		expect(afterLook.slice(0, beforeRestart.length)).toEqual(beforeRestart);
	},
);
