/**
 * The Background Check node in real n8n (the pinned runtime) when the API misbehaves, when the input is bad, and across
 * company groups:
 * - the API answering 5xx, slowly (inside and beyond the node's 60 s timeout) or dropping the connection:
 *   a clear error (the "may or may not" wording for a write), case creation sent exactly once (the sandbox's
 *   request log), reads working again once the fault clears, every execution finished (bounded waits);
 * - a sample of the bad inputs of test/nodes/BackgroundCheck/badInputEveryOperation.integration.test.ts,
 *   mapped from items by expressions: each item's error names the field and the item, and nothing is sent;
 * - another group's token cannot read or change a case, and the error says why (after the one new exchange
 *   of the key pair that a 403 leads to, since the API answers 403 for a revoked token too).
 * One n8n and one sandbox for the file; the sandbox is not reset (a slow request runs across tests).
 */
import { SERVICE_TYPES } from '../../nodes/shared/catalog';
import type { RequestLogEntry, Sandbox } from '../../sandbox';
import {
	actionNode,
	byId,
	createApiCredential,
	requestsFrom,
	startTestSandbox,
} from '../harness/backgroundCheck';
import {
	deployWebhookWorkflow,
	linearWebhookWorkflow,
	nodeOutput,
	type Credential,
	type Execution,
	type N8nNode,
} from '../harness/n8nApi';
import { startTestN8n, type TestN8n } from '../harness/n8nInstance';
import {
	EDUCATION_VERIFICATION,
	EMPLOYMENT_METADATA,
	EMPLOYMENT_VERIFICATION,
} from '../fixtures/fullCaseOrder';
import { nurseTestimonyParameters } from '../fixtures/nurseTestimony';
import { BASIC_CRIMINAL } from '../helpers/nodeSandbox';
import { escapedRequests } from '../helpers/referenceEndpoints';
import { waitFor } from './harness';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const SCREENING = SERVICE_TYPES.find((type) => type.name === 'Screening')!.id;
const MAY_OR_MAY_NOT = /may or may not have been carried out.*does not retry it/;
const NODE = 'Background Check';

let n8n: TestN8n;
let sandbox: Sandbox;
let east: Credential;
let west: Credential;
let fileRequests: ReturnType<typeof requestsFrom>;
/** Runs of the West credential that the API refused with 403: each exchanged its key pair once more. */
let refusedWestRuns = 0;

beforeAll(async () => {
	sandbox = await startTestSandbox();
	fileRequests = requestsFrom(sandbox);
	n8n = await startTestN8n('reliability-api-faults');
	east = await createApiCredential(n8n.api, sandbox, { group: 0, name: 'East' });
	west = await createApiCredential(n8n.api, sandbox, { group: 1, name: 'West' });
	slow = await startSlowCreate();
}, 180_000);

afterAll(async () => {
	// Whatever ran of this file (a -t filter included): every request n8n sent went to an endpoint of the spec,
	// and each credential exchanged its key pair once, but for the one new exchange of a run the API refused
	// with 403 (what it answers for a revoked token too). The slow create of beforeAll always sends some.
	if (sandbox) {
		const all = fileRequests.all();
		expect(all.length).toBeGreaterThan(0);
		expect(escapedRequests(all)).toEqual([]);
		const exchanges = all
			.filter((entry) => entry.path === '/auth/api')
			.map((entry) => entry.status);
		expect(exchanges.length).toBeLessThanOrEqual(2 + refusedWestRuns);
		expect(exchanges.every((status) => status === 200)).toBe(true);
	}
	sandbox?.admin.clearFaults();
	await n8n?.stop();
	await sandbox?.stop();
});

// ---------------------------------------------------------------------------------------------
// Workflows: Webhook (answers at once) -> [Split Out body.items] -> Background Check
// ---------------------------------------------------------------------------------------------

let workflowNumber = 0;

interface Started {
	workflowId: string;
	/** The finished execution (bounded wait). */
	finished(timeoutMs?: number): Promise<Execution>;
}

/** Splits body.items into one item each. */
const splitItems: N8nNode = {
	name: 'Split Out',
	type: 'n8n-nodes-base.splitOut',
	typeVersion: 1,
	position: [220, 0],
	parameters: { fieldToSplitOut: 'body.items', include: 'noOtherFields', options: {} },
};

/** Deploys Webhook -> nodes as an active workflow, posts `body` once; n8n answers at once and runs it. */
async function start(label: string, nodes: N8nNode[], body: unknown = {}): Promise<Started> {
	const slug = `reliability-${label.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${++workflowNumber}`;
	const workflow = linearWebhookWorkflow(`reliability: ${label}`, slug, nodes);
	workflow.nodes[0].parameters.responseMode = 'onReceived';
	const deployed = await deployWebhookWorkflow(n8n.api, workflow);
	const answer = await deployed.run(body);
	expect(answer.status).toBe(200);
	return {
		workflowId: deployed.workflow.id,
		finished: async (timeoutMs = 30_000) => {
			const [execution] = await n8n.api.waitForExecutions(deployed.workflow.id, 1, {
				timeoutMs,
				intervalMs: 200,
			});
			return execution;
		},
	};
}

/** Runs the workflow and returns its finished execution and what the sandbox received meanwhile. */
async function run(label: string, nodes: N8nNode[], body: unknown = {}) {
	const requests = requestsFrom(sandbox);
	const started = await start(label, nodes, body);
	const execution = await started.finished();
	return { execution, requests: requests.api() };
}

/** The node's error in a failed execution: message, description and HTTP code as n8n saved them. */
function nodeError(execution: Execution): {
	message?: string;
	description?: string;
	httpCode?: string;
} {
	const error = (execution.data?.resultData.runData[NODE]?.[0]?.error ??
		execution.data?.resultData.error) as Json | undefined;
	return {
		message: error?.message,
		description: error?.description ?? undefined,
		httpCode: error?.httpCode ?? undefined,
	};
}

let candidateNumber = 0;
const newEmail = (tag: string) =>
	`reliability-${tag}-${++candidateNumber}-${Date.now()}@example.com`;

/** Case > Create of the Basic Criminal package (candidate onboarding) for the candidate `email`. */
const caseCreate = (email: string) => ({
	resource: 'case',
	operation: 'create',
	packageId: byId(BASIC_CRIMINAL),
	candidateFirstName: 'Ann',
	candidateLastName: 'Lee',
	candidateEmail: email,
});

const createCaseNode = (email: string, opts: { onError?: 'continueRegularOutput' } = {}) =>
	actionNode(caseCreate(email), east, opts);

/** Active cases of the East group for an email, as the node lists them (Case > Get Many). */
async function casesFor(email: string): Promise<Json[]> {
	const { execution } = await run('list cases', [
		actionNode({ resource: 'case', operation: 'getMany', returnAll: true }, east),
	]);
	expect(execution.status).toBe('success');
	return (nodeOutput(execution, NODE) as Json[]).filter(
		(record) => record.candidateEmail === email,
	);
}

/** Orders a case for a new candidate; its ID and the candidate's email. */
async function orderCase(tag: string): Promise<{ id: string; email: string }> {
	const email = newEmail(tag);
	const { execution } = await run('fixture', [createCaseNode(email)]);
	const [created] = nodeOutput(execution, NODE) as Json[];
	expect(created).toEqual({ caseId: expect.any(String), caseInvitationId: expect.any(String) });
	return { id: created.caseId, email };
}

const creates = (entries: RequestLogEntry[]) =>
	entries.filter((entry) => entry.method === 'POST' && entry.path === '/case/create');

// ---------------------------------------------------------------------------------------------

/** A Case > Create the API holds for 70 s: started in beforeAll, checked by the last test (the wait overlaps the others). */
let slow: { email: string; started: Started; requests: ReturnType<typeof requestsFrom> };

async function startSlowCreate(): Promise<typeof slow> {
	sandbox.admin.injectFault({
		kind: 'latency',
		method: 'POST',
		pathPrefix: '/case/create',
		latencyMs: 70_000,
		times: 1,
	});
	const email = newEmail('slow');
	const requests = requestsFrom(sandbox);
	const started = await start('slow create', [createCaseNode(email)]);
	// The request has reached the sandbox once the rule is used up; the tests run meanwhile.
	await waitFor(() => (sandbox.admin.listFaults().length === 0 ? true : undefined), {
		timeoutMs: 20_000,
		describe: () => 'the slow request did not arrive',
	});
	return { email, requests, started };
}

describe('an API answering 5xx or dropping the connection', () => {
	test.each([500, 502, 503, 504])(
		'Case > Create answered %i: a clear error with the "may or may not" wording, sent once, nothing created',
		async (status) => {
			sandbox.admin.injectFault({
				kind: 'status',
				status,
				method: 'POST',
				pathPrefix: '/case/create',
			});
			const email = newEmail(`status-${status}`);
			const { execution, requests } = await run(`create ${status}`, [createCaseNode(email)]);
			sandbox.admin.clearFaults();
			expect(execution.status).toBe('error');
			const error = nodeError(execution);
			expect(error.message).toMatch(
				new RegExp(`^The API failed on POST /case/create \\(HTTP ${status}\\): Injected fault`),
			);
			expect(error.description).toMatch(MAY_OR_MAY_NOT);
			expect(creates(requests).map((entry) => entry.status)).toEqual([status]);
			expect(await casesFor(email)).toEqual([]);
		},
	);

	test('Case > Create whose connection is dropped: "got no answer" and the "may or may not" wording, sent once', async () => {
		sandbox.admin.injectFault({ kind: 'drop', method: 'POST', pathPrefix: '/case/create' });
		const email = newEmail('drop');
		const { execution, requests } = await run('create dropped', [createCaseNode(email)]);
		sandbox.admin.clearFaults();
		expect(execution.status).toBe('error');
		const error = nodeError(execution);
		expect(error.message).toMatch(/^The request POST \/case\/create got no answer: /);
		expect(error.description).toMatch(MAY_OR_MAY_NOT);
		expect(creates(requests).map((entry) => entry.status)).toEqual([null]);
		// Looked up as the error says, then ordered once more: one case.
		expect(await casesFor(email)).toEqual([]);
		const again = await run('create after the fault', [createCaseNode(email)]);
		expect(again.execution.status).toBe('success');
		expect(await casesFor(email)).toHaveLength(1);
	});

	test('three orders with Continue On Fail, the second hit by a 503: each sent once, the second an error item saying it may or may not exist', async () => {
		const emails = [newEmail('batch'), newEmail('batch'), newEmail('batch')];
		const requests = requestsFrom(sandbox);
		// Rules match in order and are used up: a no-op rule takes the first create, the 503 the second.
		const node = actionNode(caseCreate('={{ $json.email }}'), east, {
			onError: 'continueRegularOutput',
		});
		sandbox.admin.injectFault({
			kind: 'latency',
			method: 'POST',
			pathPrefix: '/case/create',
			latencyMs: 0,
			times: 1,
		});
		sandbox.admin.injectFault({
			kind: 'status',
			status: 503,
			method: 'POST',
			pathPrefix: '/case/create',
			times: 1,
		});
		const started = await start('batch with a fault', [splitItems, node], {
			items: emails.map((email) => ({ email })),
		});
		const execution = await started.finished();
		sandbox.admin.clearFaults();
		expect(execution.status).toBe('success');
		const output = nodeOutput(execution, NODE) as Json[];
		expect(
			output.map((item) =>
				item.error === undefined ? sandbox.admin.getCase(item.caseId).candidateEmail : 'error',
			),
		).toEqual([emails[0], 'error', emails[2]]);
		expect(output[1].error).toMatch(/^The API failed on POST \/case\/create \(HTTP 503\)/);
		expect(output[1].errorDescription).toMatch(MAY_OR_MAY_NOT);
		expect(
			creates(requests.api()).map((entry) => [(entry.body as Json).email, entry.status]),
		).toEqual([
			[emails[0], 200],
			[emails[1], 503],
			[emails[2], 200],
		]);
	});

	test('reads: a 502 and a dropped connection give clear errors; once the fault clears the same read works', async () => {
		const created = await orderCase('read');
		const getCase = () =>
			actionNode({ resource: 'case', operation: 'get', caseId: byId(created.id) }, east);

		sandbox.admin.injectFault({
			kind: 'status',
			status: 502,
			method: 'GET',
			pathPrefix: '/case/id/',
		});
		const failed = await run('read 502', [getCase()]);
		expect(failed.execution.status).toBe('error');
		expect(nodeError(failed.execution)).toMatchObject({
			message: `The API failed on GET /case/id/${created.id} (HTTP 502): Injected fault ${sandbox.admin.listFaults()[0].id}`,
			description: 'This is an error on the API side; try again later.',
		});
		sandbox.admin.clearFaults();

		sandbox.admin.injectFault({ kind: 'drop', method: 'GET', pathPrefix: '/case/id/' });
		const dropped = await run('read dropped', [getCase()]);
		expect(dropped.execution.status).toBe('error');
		expect(nodeError(dropped.execution).message).toMatch(
			new RegExp(`^The request GET /case/id/${created.id} got no answer: `),
		);
		expect(nodeError(dropped.execution).description).toBe(
			'Check that the API is reachable and try again.',
		);
		sandbox.admin.clearFaults();

		const recovered = await run('read after the faults', [getCase()]);
		expect(recovered.execution.status).toBe('success');
		expect(nodeOutput(recovered.execution, NODE)).toEqual([
			expect.objectContaining({ id: created.id, candidateEmail: created.email }),
		]);
		// One request per run: no retries.
		expect(
			[failed, dropped, recovered].map((result) =>
				result.requests.map((entry) => [entry.method, entry.status]),
			),
		).toEqual([[['GET', 502]], [['GET', null]], [['GET', 200]]]);
	});

	test('a slow API inside the timeout (3 s per call): reads and a create succeed, each sent once', async () => {
		sandbox.admin.injectFault({ kind: 'latency', latencyMs: 3000 });
		const email = newEmail('latency');
		const created = await run('create slowly', [createCaseNode(email)]);
		const listed = await run('list slowly', [
			actionNode({ resource: 'shipmentMask', operation: 'getMany' }, east),
		]);
		sandbox.admin.clearFaults();
		expect([created.execution.status, listed.execution.status]).toEqual(['success', 'success']);
		expect(creates(created.requests).map((entry) => entry.status)).toEqual([200]);
		expect(listed.requests.map((entry) => `${entry.method} ${entry.path} ${entry.status}`)).toEqual(
			['GET /shipment/mask/list 200'],
		);
		expect(nodeOutput(listed.execution, NODE).length).toBeGreaterThan(0);
		expect(await casesFor(email)).toHaveLength(1);
	});
});

describe('bad input in real n8n (a sample; badInputEveryOperation.integration.test.ts has the breadth)', () => {
	test('Case > Get over items whose IDs are empty, blank, paths, dot segments, encoded, with ? or #: one error item each naming the field and the item, only the good ID sent', async () => {
		const created = await orderCase('ids');
		const ids = [
			'',
			'   ',
			'a/b',
			'../case/list',
			'..',
			'.',
			'%2e%2e',
			'..%2F..%2Fauth%2Fapi',
			'100%',
			'a?b=1',
			'a#b',
			'a b',
			created.id,
		];
		const node = actionNode(
			{ resource: 'case', operation: 'get', caseId: byId('={{ $json.id }}') },
			east,
			{ onError: 'continueRegularOutput' },
		);
		const { execution, requests } = await run('bad ids', [splitItems, node], {
			items: ids.map((id) => ({ id })),
		});
		expect(execution.status).toBe('success');
		const output = nodeOutput(execution, NODE) as Json[];
		expect(output).toHaveLength(ids.length);
		ids.slice(0, -1).forEach((id, index) => {
			expect({ id, error: output[index].error }).toEqual({
				id,
				error:
					id.trim() === ''
						? `Case ID is empty [item ${index}]`
						: `Case ID "${id.trim()}" is not a valid ID [item ${index}]`,
			});
		});
		expect(output[ids.length - 1]).toMatchObject({ id: created.id });
		expect(requests.map((entry) => `${entry.method} ${entry.path}`)).toEqual([
			`GET /case/id/${created.id}`,
		]);
	});

	test('Case > Create over items with a bad name, a bad alias name, an over-long staffingAgency, malformed, non-object and deeply nested order data JSON: each refused naming the field, nothing sent', async () => {
		const employment = EMPLOYMENT_METADATA;
		const good = { firstName: 'Ann', aliasLastName: 'Lee', metadata: JSON.stringify(employment) };
		const metadataField = 'Order Data > Other Order Data 1: Metadata \\(JSON\\)';
		// The order data's own entries come first in orderData, the alias after them.
		const items = [
			{
				...good,
				firstName: 'Ann!',
				error: /^givenName contains characters the API does not accept \("!"\).*\[item 0\]$/,
			},
			{
				...good,
				aliasLastName: 'Van Dyke',
				error: /^orderData\[1\]\.metadata\.familyName contains characters .*\(space\).*\[item 1\]$/,
			},
			{
				...good,
				metadata: JSON.stringify({ ...employment, staffingAgency: 'S'.repeat(101) }),
				error:
					/^orderData\[0\]\.metadata\.staffingAgency is 101 characters long; the API accepts at most 100 \[item 2\]$/,
			},
			{
				...good,
				metadata: '{"employer": ',
				error: new RegExp(`^${metadataField} is not valid JSON \\[item 3\\]$`),
			},
			{
				...good,
				metadata: '[1, 2]',
				error: new RegExp(`^${metadataField} must be a JSON object \\[item 4\\]$`),
			},
			{
				...good,
				metadata: `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`,
				error: new RegExp(`^${metadataField} is nested more than 100 levels deep \\[item 5\\]$`),
			},
		];
		const node = actionNode(
			{
				...caseCreate('={{ $json.email }}'),
				candidateFirstName: '={{ $json.firstName }}',
				orderData: {
					other: [
						{
							type: 'codt-employment',
							serviceId: EMPLOYMENT_VERIFICATION,
							metadata: '={{ $json.metadata }}',
						},
					],
				},
				aliases: { alias: [{ firstName: 'Annie', lastName: '={{ $json.aliasLastName }}' }] },
			},
			east,
			{ onError: 'continueRegularOutput' },
		);
		const body = {
			items: items.map((item, index) => ({
				firstName: item.firstName,
				aliasLastName: item.aliasLastName,
				metadata: item.metadata,
				email: newEmail(`bad-${index}`),
			})),
		};
		const { execution, requests } = await run('bad create input', [splitItems, node], body);
		expect(execution.status).toBe('success');
		const output = nodeOutput(execution, NODE) as Json[];
		expect(output).toHaveLength(items.length);
		items.forEach((item, index) => expect(output[index].error).toMatch(item.error));
		expect(requests).toEqual([]);
	});
});

describe('another company group', () => {
	test("West's token cannot read or change an East case: each operation on it fails with a 403 that says the case belongs to another group; nothing changes", async () => {
		const created = await orderCase('east');
		const before = sandbox.admin.getCase(created.id);
		const caseId = byId(created.id);
		const operations: Array<[string, 'GET' | 'POST', Json]> = [
			['Case > Get', 'GET', { resource: 'case', operation: 'get', caseId }],
			[
				'Case > Get Data',
				'GET',
				{ resource: 'case', operation: 'getData', caseId, serviceTypeId: byId(SCREENING) },
			],
			[
				'Case > Add Services',
				'POST',
				{ resource: 'case', operation: 'addServices', caseId, services: [EDUCATION_VERIFICATION] },
			],
			['CPLC > Get Definitions', 'GET', { resource: 'cplc', operation: 'getDefinitions', caseId }],
			['Testimony > Create', 'POST', nurseTestimonyParameters(caseId)],
		];
		const WEST = '7a9d4c1b-2e3f-4a5b-8c6d-9e0f1a2b3c02';
		for (const [name, method, parameters] of operations) {
			const requests = requestsFrom(sandbox);
			const execution = await (
				await start(`west ${name}`, [actionNode(parameters, west)])
			).finished();
			const firstRun = refusedWestRuns === 0;
			refusedWestRuns++;
			expect({ name, status: execution.status }).toEqual({ name, status: 'error' });
			const error = nodeError(execution);
			expect({ name, message: error.message }).toEqual({
				name,
				message: 'The API refused access to this case (403)',
			});
			expect(error.description).toBe(
				`The API said: Case ${created.id} is not accessible with this token. The case ID may be wrong, or the case belongs to another company group: a credential's client access token sees only its own group's cases. The credential's key pair was exchanged for a new token and the API still refused it; if this persists, check the credential with the service operator.`,
			);
			// The API answers 403 for a revoked token too: one new exchange and one resend, refused again. West's
			// first run exchanged its key pair for that very request (a new credential): its token is fresh, so
			// the 403 stands without a resend.
			expect({
				name,
				requests: requests
					.all()
					.filter((entry) => entry.path === '/auth/api' || entry.groupProfileId === WEST)
					.map((entry) =>
						entry.path === '/auth/api'
							? `exchange ${entry.status}`
							: `${entry.method} ${entry.status}`,
					),
			}).toEqual({
				name,
				requests: firstRun
					? ['exchange 200', `${method} 403`]
					: [`${method} 403`, 'exchange 200', `${method} 403`],
			});
		}
		expect(sandbox.admin.getCase(created.id)).toEqual(before);
		// East still reads it.
		const { execution } = await run('east get', [
			actionNode({ resource: 'case', operation: 'get', caseId }, east),
		]);
		expect(nodeOutput(execution, NODE)).toEqual([expect.objectContaining({ id: created.id })]);
	});
});

describe('an API that does not answer in time', () => {
	test('the slow Case > Create: after the node\'s 60 s timeout, "got no answer" with the "may or may not" wording; sent once; the API did create the case (why the node never retries)', async () => {
		const execution = await slow.started.finished(90_000);
		expect(execution.status).toBe('error');
		const error = nodeError(execution);
		expect(error.message).toBe('The request POST /case/create got no answer within 60 seconds');
		expect(error.description).toMatch(MAY_OR_MAY_NOT);
		// The sandbox finishes the request after its 70 s delay: one create, and the case exists.
		const slowCreates = () =>
			creates(slow.requests.api()).filter((entry) => (entry.body as Json).email === slow.email);
		await waitFor(() => (slowCreates().length > 0 ? true : undefined), {
			timeoutMs: 30_000,
			describe: () => 'the slow create never finished',
		});
		expect(slowCreates().map((entry) => entry.status)).toEqual([200]);
		expect(await casesFor(slow.email)).toHaveLength(1);
	}, 150_000);
});
