/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- repository tooling: runs in Node.js, never inside n8n */
/**
 * Real n8n killed (SIGKILL) at each step of its own webhook path while it handles a delivery
 * (test/helpers/n8nCrashPoint.cjs stops it inside n8n's code), then started again; the provider's retry
 * arrives. Counted from n8n's executions, started, succeeded and crashed apart (docs/trigger-state.md). An
 * execution n8n left running when it died counts as crashed: n8n marks it crashed at its start when its
 * event log shows it started, and otherwise lists it as running for ever; it never runs it again.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

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
import { READY_AFTER_KILL_MS as READY_MS, waitFor } from './harness';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const SECRET = `whsec_${Buffer.from('crash-point-test-secret-32-bytes!').toString('base64')}`;
const PRELOAD = path.resolve(__dirname, '..', 'helpers', 'n8nCrashPoint.cjs');

type Point = 'afterCreate' | 'afterInsert' | 'afterRunning' | 'beforeSave' | 'afterSave';

/** `startUpRunDelayMs`: the start after the kill runs the rows left `new` that much later (n8nCrashPoint.cjs). */
async function killAt(point: Point, { holdMs = 0, startUpRunDelayMs = 0 } = {}) {
	const armFile = path.join(os.tmpdir(), `bgc-crash-${point}-${randomUUID()}`);
	const env = {
		NODE_OPTIONS: `--require ${PRELOAD}`,
		BGC_CRASH_POINT: point,
		BGC_CRASH_ARM_FILE: armFile,
		BGC_CRASH_HOLD_MS: String(holdMs),
	};
	let n8n: TestN8n = await startTestN8n(`crash-${point}`, { env, readyTimeoutMs: READY_MS });
	try {
		const webhookId = randomUUID();
		const webhookCredential = await n8n.api.createCredential({
			name: 'webhook: crash point',
			type: WEBHOOK_CREDENTIAL,
			data: { signingSecret: SECRET },
		});
		const { workflow, webhookPath } = await deployTriggerWorkflow(n8n, {
			name: `crash point ${point}`,
			webhookId,
			parameters: { event: 'any' },
			webhookCredential,
		});
		const listAll = async () =>
			await n8n.api.listExecutions({ workflowId: workflow.id, includeData: true, limit: 100 });
		const messageId = `msg_${randomUUID()}`;
		const body = eventBody(messageId, `crash-${point}`, 'case');
		const deliver = async () => {
			try {
				return (
					await httpRequest(`${n8n.baseUrl}/webhook/${webhookPath}`, {
						method: 'POST',
						headers: signedHeaders(SECRET, messageId, body),
						body,
						timeoutMs: 15_000,
					})
				).status;
			} catch (error) {
				return (error as Error).message;
			}
		};

		fs.writeFileSync(armFile, '');
		const first = await deliver();
		// The provider saw no 2xx: n8n died inside the request.
		expect(typeof first === 'number' && first >= 200 && first < 300).toBe(false);
		await waitFor(() => (fs.existsSync(armFile) ? undefined : true), {
			timeoutMs: 5_000,
			describe: () => `n8n never reached ${point}`,
		});

		n8n = await startTestN8n(
			`crash-${point}`,
			{
				port: n8n.port,
				env:
					startUpRunDelayMs > 0
						? {
								NODE_OPTIONS: `--require ${PRELOAD}`,
								BGC_STARTUP_RUN_DELAY_MS: String(startUpRunDelayMs),
							}
						: {},
				readyTimeoutMs: READY_MS,
			},
			n8n.userFolder,
		);
		await waitForWebhook(n8n.baseUrl, webhookPath, { probe: { method: 'POST', body: {} } });
		const beforeRestart = await listAll();
		// The provider's retry, 5 seconds later: same webhook-id, same body.
		const retry = await deliver();
		expect(retry).toBe(200);

		const lastIdBeforeRestart = Math.max(0, ...beforeRestart.map(({ id }) => Number(id)));
		const ended = (execution: Execution) =>
			['success', 'error', 'crashed'].includes(execution.status);
		// An execution from before the kill that n8n runs at its start ends soon; one it left running for
		// ever is counted as crashed after a while.
		const giveUpOnOldAt = Date.now() + 30_000;
		const executions = await waitFor(
			async () => {
				const all = await listAll();
				return all.every(
					(execution) =>
						ended(execution) ||
						(Number(execution.id) <= lastIdBeforeRestart && Date.now() > giveUpOnOldAt),
				)
					? all
					: undefined;
			},
			{ timeoutMs: 60_000, describe: () => 'executions still running' },
		);
		const stopped = executions.filter(stoppedAtTrigger);
		for (const execution of executions.filter(({ status }) => status === 'success'))
			if (!stopped.includes(execution))
				expect((nodeOutput(execution, TRIGGER) as Json[])[0].messageId).toBe(messageId);
		return executions
			.map((execution) =>
				stopped.includes(execution)
					? 'stopped at the trigger'
					: ['new', 'running'].includes(execution.status)
						? 'crashed'
						: execution.status,
			)
			.sort();
	} finally {
		fs.rmSync(armFile, { force: true });
		await n8n.stop();
	}
}

const printOutcome = (step: string, statuses: string[]) =>
	process.stderr.write(
		`[crash point] n8n ${process.env.BGC_N8N_RUNTIME ?? 'oldest'} killed at ${step}: executions ${JSON.stringify(statuses)}\n`,
	);

/**
 * What the trigger promises whatever the step (docs/trigger-state.md): the event started, never two
 * successes, and a second start only after a crashed one. Which of those a step gives depends on the
 * runtime and on whether the execution ended before the kill; the outcome is printed.
 */
const PROMISED = [['success'], ['crashed'], ['crashed', 'success']];

describe('n8n killed at each step of a delivery, then the provider retries', () => {
	for (const point of ['afterInsert', 'afterRunning', 'beforeSave', 'afterSave'] as const) {
		test(`killed at ${point}: the event started once, or once more after a crashed execution`, async () => {
			const statuses = await killAt(point);
			printOutcome(point, statuses);
			expect(PROMISED).toContainEqual(statuses);
		}, 600_000);
	}

	test('the save held 3 s, then n8n killed before it: the execution had not ended (it waits for the save)', async () => {
		const statuses = await killAt('beforeSave', { holdMs: 3000 });
		printOutcome('beforeSave held 3 s', statuses);
		// Not ended: crashed, then run by the retry (or, seen once on 2.8.4, the retry already a duplicate).
		expect([['crashed'], ['crashed', 'success']]).toContainEqual(statuses);
	}, 600_000);

	// n8n 2.8.4 marks such a row crashed at its start instead (its event log shows it begun; seen 2026-11-26:
	// ["crashed", "success"]), so the start-up run this case is about happens on 2.41.1 only.
	(process.env.BGC_N8N_RUNTIME === 'newest' ? test : test.skip)(
		'killed with the row inserted, not yet running; n8n runs it at its start only after the retry was admitted: that execution stops at the trigger',
		async () => {
			const statuses = await killAt('afterCreate', { startUpRunDelayMs: 15_000 });
			printOutcome('afterCreate, the start-up run 15 s late', statuses);
			expect(statuses).toEqual(['stopped at the trigger', 'success']);
		},
		600_000,
	);
});
