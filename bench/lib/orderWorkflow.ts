/**
 * The bulk-order workflow of the action benchmarks, in real n8n:
 *
 *   Webhook (POST { candidates }) -> Code "Candidates" (one item each) -> <node under test> (POST /case/create)
 *
 * The node under test is the Background Check node (Case > Create, optionally with Concurrent Requests and
 * Continue On Fail) or n8n's HTTP Request node with the same credential, sending the same body, with n8n's
 * Continue On Fail or Retry On Fail (the node settings a user would reach for when orders fail). A run posts
 * the candidates, waits for the execution and returns n8n's times, the output and what the sandbox received.
 */
import type { RequestLogEntry, Sandbox } from '../../sandbox';
import {
	deployWebhookWorkflow,
	webhookTriggerNode,
	type Execution,
	type N8nApi,
	type N8nNode,
} from '../../test/harness/n8n/publicApi';
import {
	actionNode,
	API_CREDENTIAL,
	credentialRef,
	createApiCredential,
	requestsFrom,
} from '../../test/harness/backgroundCheck';
import { HTTP_REQUEST_VERSION, NODE_UNDER_TEST, type CaseWorkflow } from './caseWorkflow';

/** The package every bench order is for (the sandbox's Basic Criminal: four services). */
export const PACKAGE_ID = 'pkg-basic-criminal';

export type OrderVariant =
	| { kind: 'backgroundCheck'; label: string; concurrency?: number; continueOnFail?: boolean }
	| { kind: 'httpRequest'; label: string; continueOnFail?: boolean; retryOnFail?: boolean };

export interface Candidate {
	firstName: string;
	lastName: string;
	email: string;
}

let batch = 0;

/** `count` candidates with emails no earlier run used. */
export function newCandidates(count: number): Candidate[] {
	batch++;
	const stamp = Date.now();
	return Array.from({ length: count }, (_, index) => ({
		firstName: 'Bench',
		lastName: 'Candidate',
		email: `order-${batch}-${index}-${stamp}@example.com`,
	}));
}

function orderNode(
	variant: OrderVariant,
	sandbox: Sandbox,
	credential: CaseWorkflow['credential'],
): N8nNode {
	const onError = variant.continueOnFail ? { onError: 'continueRegularOutput' as const } : {};
	if (variant.kind === 'httpRequest') {
		return {
			name: NODE_UNDER_TEST,
			type: 'n8n-nodes-base.httpRequest',
			typeVersion: HTTP_REQUEST_VERSION,
			position: [440, 0],
			parameters: {
				method: 'POST',
				url: `${sandbox.url}/case/create`,
				authentication: 'predefinedCredentialType',
				nodeCredentialType: API_CREDENTIAL,
				sendBody: true,
				specifyBody: 'json',
				jsonBody: `={{ JSON.stringify({ packageId: '${PACKAGE_ID}', email: $json.email, givenName: $json.firstName, familyName: $json.lastName }) }}`,
				options: {},
			},
			credentials: { [API_CREDENTIAL]: credentialRef(credential) },
			...onError,
			...(variant.retryOnFail ? { retryOnFail: true, maxTries: 3, waitBetweenTries: 1000 } : {}),
		};
	}
	const parameters: Record<string, unknown> = {
		resource: 'case',
		operation: 'create',
		packageId: { __rl: true, mode: 'id', value: PACKAGE_ID },
		candidateEmail: '={{ $json.email }}',
		candidateFirstName: '={{ $json.firstName }}',
		candidateLastName: '={{ $json.lastName }}',
	};
	if (variant.concurrency !== undefined) parameters.options = { concurrency: variant.concurrency };
	return actionNode(parameters, credential, { name: NODE_UNDER_TEST, ...onError });
}

export interface OrderWorkflow {
	variant: OrderVariant;
	deployed: Awaited<ReturnType<typeof deployWebhookWorkflow>>;
	runs: number;
}

let workflowNumber = 0;

/** Deploys the workflow for a variant, with a credential of its own. */
export async function deployOrderWorkflow(
	api: N8nApi,
	sandbox: Sandbox,
	variant: OrderVariant,
): Promise<OrderWorkflow> {
	workflowNumber++;
	const credential = await createApiCredential(api, sandbox, {
		name: `bench orders ${workflowNumber}: ${variant.label}`,
	});
	const path = `bench-orders-${workflowNumber}-${Date.now()}`;
	const deployed = await deployWebhookWorkflow(api, {
		name: `bench orders: ${variant.label}`,
		nodes: [
			webhookTriggerNode(path, { responseData: 'firstEntryJson' }),
			{
				name: 'Candidates',
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				position: [220, 0],
				parameters: {
					jsCode: 'return $json.body.candidates.map((candidate) => ({ json: candidate }));',
				},
			},
			orderNode(variant, sandbox, credential),
		],
		connections: {
			Webhook: { main: [[{ node: 'Candidates', type: 'main', index: 0 }]] },
			Candidates: { main: [[{ node: NODE_UNDER_TEST, type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	});
	return { variant, deployed, runs: 0 };
}

export interface OrderRun {
	executionMs: number;
	status: Execution['status'];
	/** Output items with a case, and with an error. */
	ordered: number;
	errorItems: number;
	/** Why the execution failed, if it did. */
	failure?: string;
	/** POST /case/create requests the sandbox received, and how many it answered 429. */
	creates: number;
	refused: number;
	/** Cases in the sandbox per candidate of this run: candidates with two or more, and the extra cases. */
	candidatesWithTwoCases: number;
	duplicateCases: number;
	/** For up to 5 candidates with two or more cases: the statuses of their sends, in order (null: dropped). */
	duplicateSends: string[];
}

/** Runs the workflow once for `candidates`, and counts what came out and what the sandbox holds. */
export async function runOrderWorkflow(
	api: N8nApi,
	sandbox: Sandbox,
	workflow: OrderWorkflow,
	candidates: Candidate[],
): Promise<OrderRun> {
	const requests = requestsFrom(sandbox);
	await workflow.deployed.run({ candidates });
	workflow.runs++;
	const executions = await api.waitForExecutions(workflow.deployed.workflow.id, workflow.runs, {
		timeoutMs: 300_000,
	});
	const execution = executions[executions.length - 1];
	const runs = (execution.data?.resultData.runData[NODE_UNDER_TEST] ?? []) as Array<{
		data?: { main: Array<Array<{ json: { caseId?: string; error?: unknown } }> | null> };
		error?: { message?: string };
	}>;
	const last = runs[runs.length - 1];
	const items = last?.data?.main[0] ?? [];
	const creates: RequestLogEntry[] = requests
		.all()
		.filter((entry) => entry.method === 'POST' && entry.path === '/case/create');
	const perEmail = sandbox.admin.casesPerCandidate();
	const counts = candidates.map((candidate) => perEmail.get(candidate.email.toLowerCase()) ?? 0);
	return {
		executionMs: Date.parse(execution.stoppedAt!) - Date.parse(execution.startedAt),
		status: execution.status,
		ordered: items.filter((item) => item.json.caseId !== undefined).length,
		errorItems: items.filter((item) => item.json.error !== undefined).length,
		failure:
			execution.status === 'success'
				? undefined
				: (last?.error?.message ?? execution.data?.resultData.error?.message ?? 'failed'),
		creates: creates.length,
		refused: creates.filter((entry) => entry.status === 429).length,
		candidatesWithTwoCases: counts.filter((count) => count > 1).length,
		duplicateCases: counts.reduce((sum, count) => sum + Math.max(0, count - 1), 0),
		duplicateSends: candidates
			.filter((_, index) => counts[index] > 1)
			.slice(0, 5)
			.map((candidate) =>
				creates
					.filter((entry) => (entry.body as { email?: string })?.email === candidate.email)
					.map(
						(entry) =>
							`${entry.status}${entry.handledStatus ? ` (after ${entry.handledStatus})` : ''}`,
					)
					.join(', '),
			),
	};
}
