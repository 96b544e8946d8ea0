/* eslint-disable @n8n/community-nodes/no-restricted-globals -- repository tooling: runs in Node.js, never inside n8n */
/**
 * What one run of the trigger's watchdog costs: N cases in the sandbox (two services of two types each), the
 * node's watchdog reading them with the calls the node makes (in-process, no n8n: the count of calls does not
 * depend on n8n), runs with nothing changed and with 10 cases changed; the calls of each kind, the run's
 * time and heap growth, and the saved size. What a run reports is recorded as the execution's first step
 * records it.
 */
import { changeOf } from '../../nodes/BackgroundCheckTrigger/event';
import { TriggerMemory } from '../../nodes/BackgroundCheckTrigger/memory';
import { readChanges, recordAllCases } from '../../nodes/BackgroundCheckTrigger/watchdogReads';
import { startSandbox } from '../../sandbox';
import { orderOf } from '../../test/helpers/sandbox';
import { sandboxCaseApi } from '../../test/helpers/sandboxCaseApi';

/** Identity Verification (Identity type) and a Motor Vehicle Report (Screening type). */
const SERVICES = ['service-idv-id', '9a1aa5db-1292-423e-a17c-4a7ab380de58'];

export interface WatchdogRunCost {
	run: string;
	changedCases: number;
	list: number;
	serviceReads: number;
	caseDataReads: number;
	events: number;
	ms: number;
	heapMb: number;
}

export async function reconciliationCosts(
	cases = 500,
	changed = 10,
): Promise<{ rows: WatchdogRunCost[]; savedBytes: number }> {
	const sandbox = await startSandbox({ port: 0, timeScale: 0 });
	try {
		const { apiKey, clientAccessToken } = sandbox.demoCredentials[0];
		const auth = await fetch(`${sandbox.url}/auth/api`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ apiKey, clientAccessToken }),
		});
		const { token } = (await auth.json()) as { token: string };
		const ids: string[] = [];
		for (let index = 0; index < cases; index++) {
			const email = `bench-reconcile-${index}@example.com`;
			sandbox.admin.scriptCandidate(email, { holdAtStep: 1 });
			const response = await fetch(`${sandbox.url}/case/create`, {
				method: 'POST',
				headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
				body: JSON.stringify({
					...orderOf(...SERVICES),
					email,
					givenName: 'Ann',
					familyName: 'Lee',
				}),
			});
			ids.push(((await response.json()) as { caseId: string }).caseId);
		}
		await sandbox.admin.idle();
		const api = await sandboxCaseApi(sandbox);
		const memory = new TriggerMemory();
		const rows: WatchdogRunCost[] = [];
		const nowSeconds = () => Math.floor(Date.now() / 1000);
		const measure = async (name: string, changedCases: number) => {
			api.calls.length = 0;
			const heapBefore = process.memoryUsage().heapUsed;
			const started = performance.now();
			const events = memory.recorded
				? (await readChanges(memory.state, api, { cases: true, caseData: true })).events
				: (await recordAllCases(memory.state, api), []);
			const ms = performance.now() - started;
			const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 1024 / 1024;
			for (const { event } of events)
				memory.remember(changeOf(event), nowSeconds(), { fromWatchdog: true });
			rows.push({
				run: name,
				changedCases,
				list: api.calls.filter((call) => call.startsWith('GET /case/list')).length,
				serviceReads: api.calls.filter((call) => call.endsWith('/services')).length,
				caseDataReads: api.calls.filter((call) => call.includes('/data/')).length,
				events: events.length,
				ms,
				heapMb,
			});
		};
		const step = async (caseIds: string[]) => {
			for (const caseId of caseIds) sandbox.admin.advanceCase(caseId);
			await sandbox.admin.idle();
		};
		await measure('first (activation: records, reports nothing)', 0);
		await measure('nothing changed', 0);
		await step(ids.slice(0, changed));
		await measure(`${changed} cases changed status (step 1 to 2)`, changed);
		await step(ids.slice(0, changed));
		await measure(`${changed} cases changed status (step 2 to 3)`, changed);
		await step(ids.slice(0, changed));
		await measure(`${changed} cases completed (2 services finished each)`, changed);
		return { rows, savedBytes: JSON.stringify(memory.serialize()).length };
	} finally {
		await sandbox.stop();
	}
}
