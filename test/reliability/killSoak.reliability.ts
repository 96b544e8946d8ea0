/* eslint-disable @n8n/community-nodes/no-restricted-globals -- repository tooling: runs in Node.js, never inside n8n */
/**
 * Real n8n killed at random moments while signed deliveries stream in, many times: each cycle sends
 * deliveries (the provider's retries of everything not yet answered 2xx, copies of answered ones, new
 * events) from 8 senders and stops n8n after a random delay, by SIGKILL or gracefully (SIGTERM) in turn, then
 * starts it again. At the end n8n stays up until every event has a 2xx. Counted from n8n's executions per
 * event: started, succeeded, crashed; lost (no execution, beyond those n8n crashed and left unreadable) and
 * doubled (a second start without a crashed one before it, or two successes) must be 0 (docs/trigger-state.md).
 *
 * BGC_SOAK_CYCLES sets the cycles (3 in npm test; `npm run soak:kill` runs 40, figures in docs/reliability.md).
 */
import { randomUUID } from 'node:crypto';

import { httpRequest } from '../harness/n8n/http';
import { eventBody, signedHeaders } from '../helpers/deliveries';
import {
	TRIGGER_NAME as TRIGGER,
	WEBHOOK_CREDENTIAL,
	deployTriggerWorkflow,
	stoppedAtTrigger,
} from '../harness/backgroundCheck';
import { nodeOutput, waitForWebhook, type Execution } from '../harness/n8nApi';
import { startTestN8n, type TestN8n } from '../harness/n8nInstance';
import { seededRandom } from '../helpers/seededRandom';
import { READY_AFTER_KILL_MS as READY_MS, sleep, waitFor } from './harness';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const CYCLES = Math.max(1, Number(process.env.BGC_SOAK_CYCLES) || 3);
const SECRET = `whsec_${Buffer.from('kill-soak-test-secret-32-bytes!!').toString('base64')}`;
const SENDERS = 8;
const NEW_EVENTS_PER_CYCLE = 30;

interface SoakEvent {
	messageId: string;
	body: string;
	acknowledged: boolean;
}

/** The item n8n was to start an execution with: the trigger's output, or its execution stack when it never ran. */
function itemOf(execution: Execution): Json | undefined {
	if (execution.data?.resultData.runData[TRIGGER])
		return (nodeOutput(execution, TRIGGER) as Json[])[0];
	const data = execution.data as
		| { executionData?: { nodeExecutionStack?: Array<{ data?: { main?: Json[][] } }> } }
		| undefined;
	return data?.executionData?.nodeExecutionStack?.[0]?.data?.main?.[0]?.[0]?.json as
		| Json
		| undefined;
}

test(`n8n killed ${CYCLES} times at random moments while deliveries stream in: no event lost, none doubled`, async () => {
	const random = seededRandom(Number(process.env.BGC_SOAK_SEED) || 20261125);
	let n8n: TestN8n = await startTestN8n('kill-soak', { readyTimeoutMs: READY_MS });
	const port = n8n.port;
	const userFolder = n8n.userFolder;
	try {
		const webhookCredential = await n8n.api.createCredential({
			name: 'webhook: kill soak',
			type: WEBHOOK_CREDENTIAL,
			data: { signingSecret: SECRET },
		});
		const { workflow, webhookPath } = await deployTriggerWorkflow(n8n, {
			name: 'reliability: kill soak',
			webhookId: randomUUID(),
			// The saved copy must hold every event a copy can still arrive for (README: Duplicate Memory Size);
			// copies here come for any event of the soak.
			parameters: {
				event: 'any',
				options: { duplicateMemorySize: Math.max(100, CYCLES * NEW_EVENTS_PER_CYCLE) },
			},
			webhookCredential,
		});
		const events: SoakEvent[] = [];
		const newEvents = (count: number) => {
			for (let index = 0; index < count; index++) {
				const messageId = `msg_${randomUUID()}`;
				events.push({
					messageId,
					body: eventBody(messageId, `soak-${events.length}`, 'case'),
					acknowledged: false,
				});
			}
		};
		const deliver = async (event: SoakEvent) => {
			try {
				const answer = await httpRequest(`http://127.0.0.1:${port}/webhook/${webhookPath}`, {
					method: 'POST',
					headers: signedHeaders(SECRET, event.messageId, event.body),
					body: event.body,
					timeoutMs: 15_000,
				});
				if (answer.status >= 200 && answer.status < 300) event.acknowledged = true;
			} catch {
				// n8n is down or died inside the request: the provider retries
			}
		};
		/** One pass of the provider: every unanswered event, and copies of some answered ones. */
		const sendPass = async (stopAt: number) => {
			const queue = events.filter((event) => !event.acknowledged || random() < 0.1);
			await Promise.all(
				Array.from({ length: SENDERS }, async () => {
					for (let event = queue.shift(); event && Date.now() < stopAt; event = queue.shift())
						await deliver(event);
				}),
			);
		};

		const counts = { cycles: 0, sigkill: 0, graceful: 0 };
		const stoppedAt: string[] = [];
		let lastStartAt = 0;
		for (let cycle = 0; cycle < CYCLES; cycle++) {
			newEvents(NEW_EVENTS_PER_CYCLE);
			const killAfterMs = 50 + Math.floor(random() * 1500);
			const sending = sendPass(Date.now() + 30_000);
			await sleep(killAfterMs);
			stoppedAt.push(new Date().toISOString());
			if (cycle % 2 === 0) {
				await n8n.kill();
				counts.sigkill++;
			} else {
				// The harness's stop takes keepUserFolder second (its type names only the timeout).
				await (n8n.stop as (timeoutMs?: number, keepUserFolder?: boolean) => Promise<void>)(
					undefined,
					true,
				);
				counts.graceful++;
			}
			await sending;
			counts.cycles++;
			lastStartAt = Date.now();
			n8n = await startTestN8n('kill-soak', { port, readyTimeoutMs: READY_MS }, userFolder);
			await waitForWebhook(n8n.baseUrl, webhookPath, { probe: { method: 'POST', body: {} } });
		}
		// n8n stays up: the provider retries until every event has its 2xx.
		for (let pass = 0; pass < 20 && events.some((event) => !event.acknowledged); pass++)
			await sendPass(Date.now() + 60_000);
		expect(events.filter((event) => !event.acknowledged)).toEqual([]);

		// n8n's start-up recovery leaves a killed execution `running` for good when its event log shows the
		// workflow started and no node yet (`ExecutionRecoveryService.amend` returns null for it): such a row
		// started before the last start, in a process that is gone. As in the crash points, one from before the
		// start gets 30 s to end (n8n may be running it); after that only the live process's must end.
		const unfinished = ({ status }: Execution) => ['running', 'waiting'].includes(status);
		const giveUpOnOldAt = Date.now() + 30_000;
		const leftByDeadProcess = (execution: Execution) =>
			unfinished(execution) &&
			Date.parse(execution.startedAt) < lastStartAt &&
			Date.now() > giveUpOnOldAt;
		const stillRunning = (execution: Execution) =>
			unfinished(execution) && !leftByDeadProcess(execution);
		let lastRead: Execution[] = [];
		const executions = await waitFor(
			async () => {
				// Counted from two reads a second apart that agree: an execution ending while the harness reads
				// can be missing from one read.
				const all = await n8n.api.listExecutions({
					workflowId: workflow.id,
					includeData: true,
					limit: 100_000,
					settleMs: 1000,
				});
				lastRead = all;
				return all.some(stillRunning) ? undefined : all;
			},
			{
				timeoutMs: 120_000,
				intervalMs: 1000,
				describe: () =>
					`executions still running in the live process (started ${new Date(lastStartAt).toISOString()}): ${lastRead
						.filter(stillRunning)
						.map(({ id, status, startedAt }) => `${id} ${status} since ${startedAt}`)
						.join(', ')}`,
			},
		);
		const byMessage = new Map<string, Execution[]>();
		const stopped = executions.filter(stoppedAtTrigger);
		for (const execution of [...executions].sort((a, b) => Number(a.id) - Number(b.id))) {
			if (stopped.includes(execution)) continue;
			const messageId = String(itemOf(execution)?.messageId);
			byMessage.set(messageId, [...(byMessage.get(messageId) ?? []), execution]);
		}
		// Executions n8n crashed and whose data its start-up recovery rewrote from its event log (2.8.4): no item
		// left to read an event by. An event with no readable execution is lost only beyond their number: its
		// every retry was answered as a duplicate, which the trigger does only once an execution exists.
		const unread = byMessage.get('undefined') ?? [];
		const unaccounted = events.filter(({ messageId }) => !byMessage.has(messageId));
		const lost = unaccounted.slice(unread.length);
		const doubled = events.filter(({ messageId }) => {
			const ran = byMessage.get(messageId) ?? [];
			const successes = ran.filter(({ status }) => status === 'success').length;
			// Every start but the last must have crashed (n8n died while it ran; marked crashed, or left running).
			const startedAgainWithoutCrash = ran.slice(0, -1).some(({ status }) => status === 'success');
			return successes > 1 || startedAgainWithoutCrash;
		});
		const statuses = new Map<string, number>();
		for (const { status } of executions) statuses.set(status, (statuses.get(status) ?? 0) + 1);
		process.stderr.write(
			`[kill soak] ${JSON.stringify({ ...counts, events: events.length, executions: executions.length, stoppedAtTrigger: stopped.length, byStatus: Object.fromEntries(statuses), leftRunningByDeadProcess: executions.filter(leftByDeadProcess).length, crashedUnread: unread.length, withoutReadableExecution: unaccounted.length, onlyLeftNew: events.filter(({ messageId }) => byMessage.get(messageId)?.every(({ status }) => status === 'new')).length, eventsStartedTwice: events.filter(({ messageId }) => (byMessage.get(messageId)?.length ?? 0) > 1).length, lost: lost.length, doubled: doubled.length })}\n`,
		);
		for (const { messageId } of doubled)
			process.stderr.write(
				`[kill soak] doubled ${messageId} (n8n stopped at ${stoppedAt.join(', ')}): ${JSON.stringify(
					(byMessage.get(messageId) ?? []).map(({ id, status, mode, startedAt, stoppedAt }) => ({
						id,
						status,
						mode,
						startedAt,
						stoppedAt,
					})),
				)}\n`,
			);
		expect(lost.map(({ messageId }) => messageId)).toEqual([]);
		expect(doubled.map(({ messageId }) => messageId)).toEqual([]);
		// None of the unread ones succeeded, so none can hide a second successful run.
		expect(unread.filter(({ status }) => status === 'success')).toEqual([]);
		expect(
			[...byMessage.keys()].filter(
				(messageId) =>
					messageId !== 'undefined' && !events.some((event) => event.messageId === messageId),
			),
		).toEqual([]);
	} finally {
		await n8n.stop();
	}
}, 1_800_000);
