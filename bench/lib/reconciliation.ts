/**
 * What one look of the trigger's watchdog costs the API: 500 cases in the sandbox, the node's watchdog
 * reading them with the same three calls the node makes (in-process, no n8n: the count of calls does not
 * depend on n8n), looks with nothing changed and with 10 cases changed. What a look reports is recorded as
 * the execution's first step records it.
 */
import { changeOf } from '../../nodes/BackgroundCheckTrigger/event';
import { TriggerMemory } from '../../nodes/BackgroundCheckTrigger/memory';
import { look, recordActivation } from '../../nodes/BackgroundCheckTrigger/watchdog';
import { startSandbox } from '../../sandbox';
import { sandboxCaseApi } from '../../test/helpers/sandboxCaseApi';

export interface LookCost {
	look: string;
	changedCases: number;
	list: number;
	caseReads: number;
	caseDataReads: number;
	events: number;
}

export async function reconciliationCosts(
	cases = 500,
	changed = 10,
): Promise<{ rows: LookCost[]; savedBytes: number }> {
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
					candidate: { firstName: 'Ann', lastName: 'Lee', email },
					services: [{ id: 'service-idv-id' }, { id: 'service-bankruptcy' }],
				}),
			});
			ids.push(((await response.json()) as { id: string }).id);
		}
		await sandbox.admin.idle();
		const api = await sandboxCaseApi(sandbox);
		const memory = new TriggerMemory();
		const rows: LookCost[] = [];
		const nowSeconds = () => Math.floor(Date.now() / 1000);
		const measure = async (name: string, changedCases: number) => {
			api.calls.length = 0;
			const events = memory.recorded
				? (await look(memory, api, { cases: true, caseData: true })).events
				: (await recordActivation(memory, api), []);
			for (const { event } of events) memory.record(changeOf(event), nowSeconds(), { found: true });
			rows.push({
				look: name,
				changedCases,
				list: api.calls.filter((call) => call.startsWith('GET /case/list')).length,
				caseReads: api.calls.filter((call) => /^GET \/case\/id\/[^/]+$/.test(call)).length,
				caseDataReads: api.calls.filter((call) => call.includes('/data/')).length,
				events: events.length,
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
