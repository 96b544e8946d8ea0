/**
 * The report-download workflow of the action benchmarks, in real n8n:
 *
 *   Webhook (POST { caseIds }) -> Code "Case IDs" (one item per ID) -> <download>
 *
 * <download> is the Background Check node (Report > Download Case Report: the API's pre-signed address, then
 * the file) or what a user builds without it: two HTTP Request nodes with the same credential, the first
 * asking for the address as text, the second fetching it as a file. A run checks that every output item holds
 * a PDF, paired with its case, and returns n8n's execution time and the bytes downloaded.
 */
import type { Sandbox } from '../../sandbox';
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
	createApiCredential,
	credentialRef,
} from '../../test/harness/backgroundCheck';
import { HTTP_REQUEST_VERSION } from './caseWorkflow';

export type ReportVariant = { kind: 'backgroundCheck' | 'httpRequest'; label: string };

const ASK = 'Ask for the report address';
const DOWNLOAD = 'Download the report';

/** The download nodes of a variant, in order; the last one outputs the files. */
function downloadNodes(
	variant: ReportVariant,
	sandbox: Sandbox,
	credential: Credential,
): N8nNode[] {
	if (variant.kind === 'backgroundCheck')
		return [
			actionNode(
				{
					resource: 'report',
					operation: 'downloadCaseReport',
					caseId: byId('={{ $json.caseId }}'),
				},
				credential,
				{ name: DOWNLOAD },
			),
		];
	return [
		{
			name: ASK,
			type: 'n8n-nodes-base.httpRequest',
			typeVersion: HTTP_REQUEST_VERSION,
			position: [440, 0],
			parameters: {
				method: 'GET',
				url: `=${sandbox.url}/case/id/{{ $json.caseId }}/report/pdf/download/url`,
				authentication: 'predefinedCredentialType',
				nodeCredentialType: API_CREDENTIAL,
				options: { response: { response: { responseFormat: 'text', outputPropertyName: 'url' } } },
			},
			credentials: { [API_CREDENTIAL]: credentialRef(credential) },
		},
		{
			name: DOWNLOAD,
			type: 'n8n-nodes-base.httpRequest',
			typeVersion: HTTP_REQUEST_VERSION,
			position: [660, 0],
			parameters: {
				method: 'GET',
				url: '={{ $json.url }}',
				options: { response: { response: { responseFormat: 'file', outputPropertyName: 'data' } } },
			},
		},
	];
}

export interface ReportWorkflow {
	variant: ReportVariant;
	deployed: DeployedWebhookWorkflow;
	runs: number;
}

let workflowNumber = 0;

export async function deployReportWorkflow(
	api: N8nApi,
	sandbox: Sandbox,
	variant: ReportVariant,
): Promise<ReportWorkflow> {
	workflowNumber++;
	const credential = await createApiCredential(api, sandbox, {
		name: `bench report ${workflowNumber}: ${variant.label}`,
	});
	const nodes = downloadNodes(variant, sandbox, credential);
	const chain = ['Case IDs', ...nodes.map((node) => node.name)];
	const connections: Record<string, unknown> = {
		Webhook: { main: [[{ node: 'Case IDs', type: 'main', index: 0 }]] },
	};
	for (let index = 0; index + 1 < chain.length; index++)
		connections[chain[index]] = { main: [[{ node: chain[index + 1], type: 'main', index: 0 }]] };
	const deployed = await deployWebhookWorkflow(api, {
		name: `bench: ${variant.label}`,
		nodes: [
			webhookTriggerNode(`bench-reports-${workflowNumber}-${Date.now()}`, {
				responseData: 'firstEntryJson',
			}),
			{
				name: 'Case IDs',
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				position: [220, 0],
				parameters: {
					jsCode: 'return $json.body.caseIds.map((caseId) => ({ json: { caseId } }));',
				},
			},
			...nodes,
		],
		connections: connections as never,
		settings: { executionOrder: 'v1' },
	});
	return { variant, deployed, runs: 0 };
}

export interface ReportRun {
	executionMs: number;
	/** Bytes of the PDFs output (reports x their size). */
	bytes: number;
}

interface BinaryItem {
	binary?: Record<string, { data?: string; fileSize?: string; mimeType?: string; id?: string }>;
	pairedItem?: { item: number } | Array<{ item: number }>;
}

/** Runs the workflow once for `caseIds`: one PDF per case, in order, or it throws. */
export async function runReportWorkflow(
	api: N8nApi,
	workflow: ReportWorkflow,
	caseIds: string[],
	/** The size of every report the sandbox serves (its reportPdfBytes). */
	reportBytes: number,
): Promise<ReportRun> {
	const answer = await workflow.deployed.run({ caseIds });
	if (answer.status !== 200)
		throw new Error(
			`${workflow.variant.label}: webhook answered ${answer.status}: ${answer.text.slice(0, 300)}`,
		);
	workflow.runs++;
	const executions = await api.waitForExecutions(workflow.deployed.workflow.id, workflow.runs, {
		timeoutMs: 300_000,
	});
	const execution = executions[executions.length - 1] as Execution;
	if (execution.status !== 'success')
		throw new Error(
			`${workflow.variant.label}: execution ${execution.id} ended ${execution.status}`,
		);
	const run = execution.data?.resultData.runData[DOWNLOAD]?.[0] as
		| { data?: { main: Array<BinaryItem[] | null> } }
		| undefined;
	const items = run?.data?.main[0] ?? [];
	if (items.length !== caseIds.length)
		throw new Error(`${workflow.variant.label}: ${items.length} files for ${caseIds.length} cases`);
	let bytes = 0;
	items.forEach((item, index) => {
		const file = item.binary?.data;
		const paired = (Array.isArray(item.pairedItem) ? item.pairedItem[0] : item.pairedItem)?.item;
		if (file === undefined || paired !== index)
			throw new Error(
				`${workflow.variant.label}: item ${index} has no file or is paired with ${String(paired)}`,
			);
		// n8n keeps the file outside the execution (its binary data mode): the JSON says what it is.
		if (file.mimeType !== 'application/pdf')
			throw new Error(
				`${workflow.variant.label}: item ${index} is ${String(file.mimeType)}, not a PDF`,
			);
		bytes += reportBytes;
	});
	return {
		executionMs: Date.parse(execution.stoppedAt!) - Date.parse(execution.startedAt),
		bytes,
	};
}
