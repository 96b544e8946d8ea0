/* eslint-disable @n8n/community-nodes/require-node-api-error -- repository tooling: runs in Node.js, never inside n8n */
/**
 * The 500-item read workflow of the action benchmarks, in real n8n:
 *
 *   Webhook (POST { caseIds }) -> Code "Case IDs" (one item per ID) -> <node under test> (GET /case/id/{caseId})
 *
 * The node under test is the Background Check node (Case > Get, optionally with Concurrent Requests) or
 * n8n's HTTP Request node with the same Background Check API credential (predefined credential type).
 * A run posts the IDs, waits for the execution, checks the output (one case per input item, in order,
 * paired with its item) and returns n8n's execution times and what the sandbox received meanwhile.
 */
import type { RequestLogEntry, Sandbox } from '../../sandbox';
import { httpRequest } from '../../test/harness/n8n/http';
import { orderOf } from '../../test/helpers/sandbox';
import {
	deployWebhookWorkflow,
	webhookTriggerNode,
	type Credential,
	type DeployedWebhookWorkflow,
	type Execution,
	type N8nApi,
	type N8nNode,
} from '../../test/harness/n8n/publicApi';
import {
	actionNode,
	API_CREDENTIAL,
	byId,
	credentialRef,
	createApiCredential,
	requestsFrom,
} from '../../test/harness/backgroundCheck';

export const NODE_UNDER_TEST = 'Node under test';
/** HTTP Request node version n8n 2.8.4 adds to a new workflow (its defaultVersion). */
export const HTTP_REQUEST_VERSION = 4.4;

/** Creates `count` cases in the East group through the sandbox API (10 at a time) and returns their IDs. */
export async function createCases(sandbox: Sandbox, count: number): Promise<string[]> {
	const [demo] = sandbox.demoCredentials;
	const auth = await httpRequest(`${sandbox.url}/auth/api`, {
		method: 'POST',
		body: { apiKey: demo.apiKey, clientAccessToken: demo.clientAccessToken },
	});
	const token = (auth.json as { token: string }).token;
	const ids: string[] = new Array(count);
	let next = 0;
	const worker = async () => {
		while (next < count) {
			const index = next++;
			const created = await httpRequest(`${sandbox.url}/case/create`, {
				method: 'POST',
				headers: { authorization: `Bearer ${token}` },
				body: {
					...orderOf('service-idv-id'),
					email: `bench-${index}-${Date.now()}@example.com`,
					givenName: 'Bench',
					familyName: `Candidate${index}`,
				},
			});
			if (created.status !== 200)
				throw new Error(`case ${index}: POST /case/create -> ${created.status} ${created.text}`);
			ids[index] = (created.json as { caseId: string }).caseId;
		}
	};
	await Promise.all(Array.from({ length: 10 }, worker));
	return ids;
}

export type Variant =
	| { kind: 'backgroundCheck'; label: string; concurrency?: number }
	| { kind: 'httpRequest'; label: string };

/** The node under test for a variant. */
export function nodeUnderTest(variant: Variant, sandbox: Sandbox, credential: Credential): N8nNode {
	if (variant.kind === 'httpRequest') {
		return {
			name: NODE_UNDER_TEST,
			type: 'n8n-nodes-base.httpRequest',
			typeVersion: HTTP_REQUEST_VERSION,
			position: [440, 0],
			parameters: {
				method: 'GET',
				url: `=${sandbox.url}/case/id/{{ $json.caseId }}`,
				authentication: 'predefinedCredentialType',
				nodeCredentialType: API_CREDENTIAL,
				options: {},
			},
			credentials: { [API_CREDENTIAL]: credentialRef(credential) },
		};
	}
	const parameters: Record<string, unknown> = {
		resource: 'case',
		operation: 'get',
		caseId: byId('={{ $json.caseId }}'),
	};
	if (variant.concurrency !== undefined) parameters.options = { concurrency: variant.concurrency };
	return actionNode(parameters, credential, { name: NODE_UNDER_TEST });
}

let workflowNumber = 0;

export interface CaseWorkflow {
	variant: Variant;
	credential: Credential;
	deployed: DeployedWebhookWorkflow;
	runs: number;
}

/**
 * Deploys the workflow for a variant, with a credential of its own (no token yet unless `credential` is
 * given). The webhook answers when the workflow is done (first item only, to keep the answer small).
 */
export async function deployCaseWorkflow(
	api: N8nApi,
	sandbox: Sandbox,
	variant: Variant,
	credential?: Credential,
): Promise<CaseWorkflow> {
	workflowNumber++;
	const cred =
		credential ??
		(await createApiCredential(api, sandbox, {
			name: `bench ${workflowNumber}: ${variant.label}`,
		}));
	const path = `bench-cases-${workflowNumber}-${Date.now()}`;
	const deployed = await deployWebhookWorkflow(api, {
		name: `bench: ${variant.label}`,
		nodes: [
			webhookTriggerNode(path, { responseData: 'firstEntryJson' }),
			{
				name: 'Case IDs',
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				position: [220, 0],
				parameters: {
					jsCode: 'return $json.body.caseIds.map((caseId) => ({ json: { caseId } }));',
				},
			},
			nodeUnderTest(variant, sandbox, cred),
		],
		connections: {
			Webhook: { main: [[{ node: 'Case IDs', type: 'main', index: 0 }]] },
			'Case IDs': { main: [[{ node: NODE_UNDER_TEST, type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	});
	return { variant, credential: cred, deployed, runs: 0 };
}

export interface CaseRun {
	/** n8n's execution: stoppedAt - startedAt, ms. */
	executionMs: number;
	/** The node under test's own run time (runData executionTime), ms. */
	nodeMs: number;
	/** Every request the sandbox received during the run. */
	requests: RequestLogEntry[];
	/** GET /case/id/... requests. */
	caseGets: number;
	/** POST /auth/api requests (token exchanges). */
	exchanges: number;
	/** GET /case/id/... requests answered 429 (a rate limit). */
	refused: number;
	/** Why the run did not give every case in order (only with `allowFailure`); undefined when it did. */
	failure?: string;
	/** Output items that are the right case, paired with the right item. */
	correctItems: number;
}

interface RunItem {
	json: { id?: string; cases?: unknown; error?: unknown };
	pairedItem?: { item: number } | Array<{ item: number }>;
}

/**
 * Runs the workflow once for `caseIds` and checks the output against them: a failed execution or a wrong
 * output throws, unless `allowFailure` (then the run says what failed and how many items were right).
 */
export async function runCaseWorkflow(
	api: N8nApi,
	sandbox: Sandbox,
	workflow: CaseWorkflow,
	caseIds: string[],
	{ allowFailure = false }: { allowFailure?: boolean } = {},
): Promise<CaseRun> {
	const requests = requestsFrom(sandbox);
	const answer = await workflow.deployed.run({ caseIds });
	if (answer.status !== 200 && !allowFailure)
		throw new Error(
			`${workflow.variant.label}: webhook answered ${answer.status}: ${answer.text.slice(0, 300)}`,
		);
	workflow.runs++;
	const executions = await api.waitForExecutions(workflow.deployed.workflow.id, workflow.runs, {
		timeoutMs: 180_000,
	});
	const execution = executions[executions.length - 1] as Execution;
	const run = execution.data?.resultData.runData[NODE_UNDER_TEST]?.[0] as
		| {
				executionTime?: number;
				data?: { main: Array<RunItem[] | null> };
				error?: { message?: string };
		  }
		| undefined;
	const items = run?.data?.main[0] ?? [];
	let failure: string | undefined;
	try {
		if (execution.status !== 'success') {
			throw new Error(
				`${workflow.variant.label}: execution ${execution.id} ended ${execution.status}${run?.error?.message ? `: ${run.error.message}` : ''}`,
			);
		}
		checkOutput(workflow.variant.label, items, caseIds);
	} catch (error) {
		if (!allowFailure) throw error;
		failure = (error as Error).message;
	}
	const all = requests.all();
	return {
		executionMs: Date.parse(execution.stoppedAt!) - Date.parse(execution.startedAt),
		nodeMs: run?.executionTime ?? NaN,
		requests: all,
		caseGets: all.filter((entry) => entry.method === 'GET' && entry.path.startsWith('/case/id/'))
			.length,
		exchanges: all.filter((entry) => entry.method === 'POST' && entry.path === '/auth/api').length,
		refused: all.filter((entry) => entry.path.startsWith('/case/id/') && entry.status === 429)
			.length,
		failure,
		correctItems: items.filter(
			(item, index) => caseIdOf(item) === caseIds[index] && pairedIndex(item) === index,
		).length,
	};
}

/** One case per input item, in input order, each paired with its own input item. */
/** The case an output item holds: the node's is the case, the HTTP Request node's the API's `{ cases: [case] }`. */
function caseIdOf(item: RunItem): unknown {
	const cases = (item.json as { cases?: Array<{ id?: unknown }> }).cases;
	return Array.isArray(cases) ? cases[0]?.id : item.json.id;
}

function checkOutput(label: string, items: RunItem[], caseIds: string[]): void {
	if (items.length !== caseIds.length)
		throw new Error(`${label}: ${items.length} output items for ${caseIds.length} case IDs`);
	items.forEach((item, index) => {
		if (caseIdOf(item) !== caseIds[index] || pairedIndex(item) !== index) {
			throw new Error(
				`${label}: output item ${index} is case ${String(caseIdOf(item))} paired with item ${String(pairedIndex(item))}; expected case ${caseIds[index]} paired with item ${index}`,
			);
		}
	});
}

function pairedIndex(item: RunItem): number | undefined {
	return (Array.isArray(item.pairedItem) ? item.pairedItem[0] : item.pairedItem)?.item;
}
