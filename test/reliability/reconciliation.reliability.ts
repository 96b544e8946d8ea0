/* eslint-disable @n8n/community-nodes/no-restricted-globals -- repository tooling: runs in Node.js, never inside n8n */
/**
 * Events that never arrive, in real n8n: the sandbox's delivery fault keeps 20% of the messages from ever
 * reaching the trigger (every attempt fails), while cases walk their whole lifecycle. The trigger's watchdog
 * (Reconcile Missed Events, a watchdog run every 10 seconds) must run every status change exactly once:
 * - each one whose delivery never arrived, with source "reconciliation", found by the first watchdog run that
 *   starts after the change (before a second watchdog run starts);
 * - each delivered one with source "webhook", and never a second time.
 * Counted from n8n's executions, by content key (the subject, its status IDs and modStamp). No timing is
 * asserted; waits are bounded.
 */
import { randomUUID } from 'node:crypto';

import { eventKeyOf } from '../../nodes/BackgroundCheckTrigger/event';
import type { Sandbox } from '../../sandbox';
import {
	TRIGGER_NAME as TRIGGER,
	createApiCredential,
	deployTriggerWorkflow,
	lossySubscription,
	publishedEvents,
	startTestSandbox,
} from '../harness/backgroundCheck';
import { nodeOutput, type Execution } from '../harness/n8nApi';
import { orderOf } from '../helpers/sandbox';
import { startTestN8n, type TestN8n } from '../harness/n8nInstance';
import { waitFor } from './harness';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let n8n: TestN8n;
let sandbox: Sandbox;

beforeAll(async () => {
	sandbox = await startTestSandbox();
	n8n = await startTestN8n('reliability-reconciliation');
}, 180_000);

afterAll(async () => {
	await sandbox?.admin.idle();
	await n8n?.stop();
	await sandbox?.stop();
});

const CASES = 8;
/** An identity check, and a drug screening that walks four pending statuses (spec 3.2) before its result. */
const SERVICES = ['service-idv-id', 'service-drug-10-panel'];
const STEP_SECONDS = 300;

function triggerItem(execution: Execution): Json {
	const ran = execution.data?.resultData.runData[TRIGGER];
	if (!ran)
		throw new Error(
			`the trigger did not run in execution ${execution.id} (${execution.status}, mode ${execution.mode}): ${JSON.stringify(execution.data?.resultData).slice(0, 2000)}`,
		);
	const items = nodeOutput(execution, TRIGGER) as Json[];
	if (items.length !== 1)
		throw new Error(`execution ${execution.id}: ${items.length} trigger items`);
	return items[0];
}

const keyOfItem = (item: Json) => eventKeyOf({ event: item.event, eventObject: item.eventObject });

describe('20% of the events never delivered, cases walking their whole lifecycle', () => {
	test('every status change runs exactly once: the missed ones found by the first watchdog run after them, the delivered ones never twice', async () => {
		const { webhookId, subscription, webhookCredential } = await lossySubscription(n8n, sandbox, {
			name: 'webhook: reconciliation',
			dropRate: 0.2,
			seed: 'reconciliation-proof',
		});
		const apiCredential = await createApiCredential(n8n.api, sandbox, {
			name: 'api: reconciliation',
		});
		const { workflow } = await deployTriggerWorkflow(n8n, {
			name: 'reliability: reconciliation',
			webhookId,
			parameters: { event: 'any', reconcile: true, reconcileEvery: '10s' },
			webhookCredential,
			apiCredential,
			sandbox,
		});

		const [demo] = sandbox.demoCredentials;
		const auth = await fetch(`${sandbox.url}/auth/api`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ apiKey: demo.apiKey, clientAccessToken: demo.clientAccessToken }),
		});
		const token = ((await auth.json()) as Json).token as string;
		const caseIds: string[] = [];

		/** Wall-clock times at which watchdog runs started (their GET /case/list), as seen by polling. */
		const watchdogRunStarts: number[] = [];
		let seenRequests = sandbox.admin.requestLog().length;
		const watchLooks = () => {
			const log = sandbox.admin.requestLog();
			for (const entry of log.slice(seenRequests)) {
				if (entry.method === 'GET' && entry.path === '/case/list')
					watchdogRunStarts.push(Date.now());
			}
			seenRequests = log.length;
		};

		const published = () => publishedEvents(sandbox, subscription.id);
		const finished = (execution: Execution) =>
			['success', 'error', 'crashed', 'canceled'].includes(execution.status);
		/** Every execution once all have finished (n8n 2.41 lists them from their start, 2.8.4 once finished); else undefined. */
		const executions = async () => {
			const all = await n8n.api.listExecutions({
				workflowId: workflow.id,
				includeData: true,
				limit: 1000,
			});
			return all.every(finished)
				? all.map((execution) => ({ execution, item: triggerItem(execution) }))
				: undefined;
		};

		const transitions: Array<{ at: number; keys: string[] }> = [];
		const runTransition = async (change: () => Promise<void>) => {
			const before = new Set(published().map(({ key }) => key));
			await change();
			await sandbox.admin.idle();
			// From here every watchdog run lists the changed cases (one that started earlier may too: sooner is fine).
			watchLooks();
			const at = Date.now();
			const now = published();
			transitions.push({
				at,
				keys: now.filter(({ key }) => !before.has(key)).map(({ key }) => key),
			});
			// Every event published so far has run, once: delivered, or found by a watchdog run.
			await waitFor(
				async () => {
					watchLooks();
					const ran = await executions();
					return ran && ran.length >= now.length ? true : undefined;
				},
				{
					timeoutMs: 90_000,
					intervalMs: 100,
					describe: async () =>
						`${(await executions())?.length ?? 'unfinished'} executions for ${now.length} events`,
				},
			);
		};

		// The lifecycle: orders (step 1), steps 2 and 3, then the services' pending statuses and results.
		await runTransition(async () => {
			for (let index = 0; index < CASES; index++) {
				const response = await fetch(`${sandbox.url}/case/create`, {
					method: 'POST',
					headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
					body: JSON.stringify({
						...orderOf(...SERVICES),
						email: `reconcile-${index}-${randomUUID()}@example.com`,
						givenName: 'Ann',
						familyName: 'Lee',
					}),
				});
				caseIds.push(((await response.json()) as Json).caseId);
			}
		});
		for (
			let step = 0;
			caseIds.some((caseId) => sandbox.admin.getCase(caseId).caseStatus !== 'Complete');
			step++
		) {
			expect(step).toBeLessThan(12);
			await runTransition(async () => {
				await sandbox.admin.advanceClock(STEP_SECONDS);
			});
		}

		const events = published();
		const missed = events.filter(({ delivered }) => !delivered);
		const ran = (await executions())!;
		process.stderr.write(
			`[reliability] ${CASES} cases, ${transitions.length} lifecycle transitions, ${events.length} status changes, ${missed.length} never delivered; ${ran.length} executions, ${watchdogRunStarts.length} watchdog runs seen\n`,
		);
		// A drop rate of 20%: of 80 events, about 16 (5 and 32 are more than four standard deviations away).
		expect(missed.length).toBeGreaterThanOrEqual(5);
		expect(missed.length).toBeLessThanOrEqual(0.4 * events.length);

		// Exactly once each, nothing else.
		const runs = new Map<string, Json[]>();
		for (const { item } of ran)
			runs.set(keyOfItem(item), [...(runs.get(keyOfItem(item)) ?? []), item]);
		expect(
			[...runs.entries()].filter(([, items]) => items.length !== 1).map(([key]) => key),
		).toEqual([]);
		expect([...runs.keys()].sort()).toEqual(events.map(({ key }) => key).sort());
		expect(ran.every(({ execution }) => execution.status === 'success')).toBe(true);
		// The missed ones from a watchdog run. A delivered one from its delivery, or from a watchdog run that found it before
		// its delivery got through (its delivery is then a duplicate): whichever came first, once.
		for (const { key, delivered } of events.filter((event) => !event.delivered))
			expect({ key, delivered, source: runs.get(key)![0].source }).toEqual({
				key,
				delivered,
				source: 'reconciliation',
			});
		const foundFirst = events.filter(
			({ key, delivered }) => delivered && runs.get(key)![0].source === 'reconciliation',
		);
		process.stderr.write(
			`[reliability] delivered changes a watchdog run ran before their delivery got through: ${foundFirst.length}\n`,
		);

		// Each missed change was run by the first watchdog run that started after it: before a second watchdog run started.
		const startedAt = new Map(
			ran.map(({ execution, item }) => [keyOfItem(item), Date.parse(execution.startedAt)]),
		);
		for (const transition of transitions) {
			const secondLook = watchdogRunStarts.filter((time) => time > transition.at)[1] ?? Infinity;
			const late = transition.keys.filter(
				(key) => missed.some((event) => event.key === key) && startedAt.get(key)! > secondLook,
			);
			expect(late).toEqual([]);
		}
	}, 600_000);
});
