/**
 * Every operation of the Background Check node, run in real n8n 2.8.4 executions (the packed package
 * installed as a community package) against the sandbox: the node's output as n8n saved it, and the
 * request the sandbox received (method, path, body). Also Continue On Fail and a validation error in a
 * real run. One n8n and one sandbox for the file; each test deploys its own webhook-started workflow.
 */
import type { Sandbox } from '../../sandbox';
import { CASE_DATA_STATUSES, PENDING_STATUSES } from '../../nodes/shared/catalog';
import {
	actionNode,
	byId,
	createApiCredential,
	executionError,
	fromList,
	requestLine,
	requestsFrom,
	runOnce,
	startTestSandbox,
	type WorkflowRun,
} from '../harness/backgroundCheck';
import {
	COUNTY_CRIMINAL,
	EMPLOYMENT_VERIFICATION,
	FACIS,
	fullCaseOrderBody,
	fullCaseOrderParameters,
	PENDING,
	SSN_TRACE,
} from '../fixtures/fullCaseOrder';
import { nurseTestimonyBody, nurseTestimonyParameters } from '../fixtures/nurseTestimony';
import { nodeOutput, type Credential, type N8nNode } from '../harness/n8nApi';
import { startTestN8n, type TestN8n } from '../harness/n8nInstance';

let n8n: TestN8n;
let sandbox: Sandbox;
let credential: Credential;
/** The file's request log marker: every request any test made, for the one-exchange check at the end. */
let fileRequests: ReturnType<typeof requestsFrom>;

beforeAll(async () => {
	sandbox = await startTestSandbox();
	fileRequests = requestsFrom(sandbox);
	n8n = await startTestN8n('action-node');
	credential = await createApiCredential(n8n.api, sandbox);
}, 180_000);

afterAll(async () => {
	await n8n?.stop();
	await sandbox?.stop();
});

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Webhook -> [before...] -> Background Check(parameters); the run must succeed. */
async function run(
	label: string,
	parameters: Record<string, unknown>,
	body: unknown = {},
	before: N8nNode[] = [],
): Promise<WorkflowRun<Json> & { output: Json[] }> {
	const result = await runOnce<Json>(
		n8n.api,
		sandbox,
		label,
		[...before, actionNode(parameters, credential)],
		body,
	);
	if (result.execution.status !== 'success') {
		throw new Error(
			`${label}: execution ${result.execution.status}: ${executionError(result.execution)}`,
		);
	}
	const output = nodeOutput(result.execution, 'Background Check') as Json[];
	// What the webhook answered is what the node output (responseMode lastNode, all entries).
	expect(result.items).toEqual(output);
	return { ...result, output };
}

/** The requests of a run other than the token exchange. */
const apiCalls = (result: WorkflowRun<Json>) =>
	result.requests.filter((entry) => entry.path !== '/auth/api');

let candidateNumber = 0;
async function createCase(services: string[] = [SSN_TRACE]): Promise<Json> {
	candidateNumber++;
	const { output } = await run('fixture case', {
		resource: 'case',
		operation: 'create',
		candidateFirstName: 'Ann',
		candidateLastName: "O'Neil",
		candidateEmail: `e2e-candidate-${candidateNumber}-${Date.now()}@example.com`,
		services,
	});
	return output[0];
}

/** A node that turns body.content (base64) into the binary field `data` with a file name and type. */
function fileFromBody(fileName: string, mimeType: string): N8nNode {
	return {
		name: 'To File',
		type: 'n8n-nodes-base.convertToFile',
		typeVersion: 1.1,
		position: [220, 0],
		parameters: {
			operation: 'toBinary',
			sourceProperty: 'body.content',
			binaryPropertyName: 'data',
			options: { fileName, mimeType },
		},
	};
}

async function createSecureDocument(): Promise<string> {
	const { output } = await run(
		'fixture document',
		{ resource: 'secureDocument', operation: 'create' },
		{ content: Buffer.from('%PDF-1.4 license').toString('base64') },
		[fileFromBody('license.pdf', 'application/pdf')],
	);
	return output[0].id;
}

describe('Secure Document', () => {
	test('Create sends the binary file of the item (base64, file name, format) and outputs the document', async () => {
		const content = Buffer.from('%PDF-1.4 diploma scan');
		const result = await run(
			'secure document create',
			{
				resource: 'secureDocument',
				operation: 'create',
				options: { description: 'Nursing diploma' },
			},
			{ content: content.toString('base64') },
			[fileFromBody('diploma.PDF', 'application/pdf')],
		);
		const [request] = apiCalls(result);
		expect(apiCalls(result)).toHaveLength(1);
		expect(request).toMatchObject({ method: 'POST', path: '/document/secure/create', status: 201 });
		expect(request.body).toEqual({
			documents: [
				{
					fileName: 'diploma.PDF',
					fileFormat: 'pdf',
					description: 'Nursing diploma',
					content: content.toString('base64'),
				},
			],
		});
		expect(result.output).toEqual([
			expect.objectContaining({
				id: expect.any(String),
				fileName: 'diploma.PDF',
				fileFormat: 'pdf',
				sizeBytes: content.length,
			}),
		]);
	});
});

describe('Case', () => {
	test('Create sends every typed field, the order data and the merged JSON body; outputs the case with status meanings', async () => {
		const documentId = await createSecureDocument();
		const email = `maria.garcia.${Date.now()}@example.com`;
		const result = await run(
			'case create',
			// Values from the incoming item, through n8n expressions.
			fullCaseOrderParameters(
				{ firstName: '={{ $json.body.firstName }}', email: '={{ $json.body.email }}' },
				documentId,
			),
			{ firstName: 'Maria', email },
		);

		expect(apiCalls(result)).toHaveLength(1);
		const request = apiCalls(result)[0];
		expect(request).toMatchObject({ method: 'POST', path: '/case/create', status: 201 });
		expect(request.body).toEqual(fullCaseOrderBody(email, documentId));

		expect(result.output).toHaveLength(1);
		const created = result.output[0];
		expect(created).toMatchObject({
			candidate: { email, firstName: 'Maria' },
			packageId: 'pkg-healthcare',
			apiTrackingCode: 'REQ-1001',
		});
		expect(sandbox.admin.getCase(created.id)).toMatchObject({
			id: created.id,
			groupProfileId: 'group-profile-east',
		});
		const serviceIds = (created.services as Json[]).map((service) => service.serviceId);
		expect(serviceIds).toEqual(
			expect.arrayContaining(['service-bankruptcy', 'service-drug-5555N-panel', SSN_TRACE]),
		);
		expect(serviceIds).not.toContain(FACIS);
		for (const service of created.services as Json[]) {
			expect(service).toMatchObject({
				statusId: PENDING.statusId,
				statusName: 'pending',
				statusMeaning: 'In progress',
			});
		}
		// n8n links the output item to the webhook's item.
		const runData = result.execution.data!.resultData.runData['Background Check'][0].data!.main[0]!;
		expect((runData[0] as { pairedItem?: unknown }).pairedItem).toEqual({ item: 0 });
	});

	test('Get finds the case by ID (from an expression) and from the list mode of the case locator', async () => {
		const created = await createCase();
		const byExpression = await run(
			'case get by id',
			{ resource: 'case', operation: 'get', caseId: byId('={{ $json.body.caseId }}') },
			{ caseId: created.id },
		);
		const fromListMode = await run('case get from list', {
			resource: 'case',
			operation: 'get',
			caseId: fromList(created.id),
		});
		for (const result of [byExpression, fromListMode]) {
			expect(apiCalls(result).map(requestLine)).toEqual([`GET /case/id/${created.id} 200`]);
			expect(result.output).toHaveLength(1);
			expect(result.output[0]).toMatchObject({ id: created.id, candidate: created.candidate });
			expect(result.output[0].services[0]).toMatchObject({
				statusName: 'pending',
				statusMeaning: 'In progress',
			});
		}
	});

	test('Get Many reads every page with Return All and one page for a limit', async () => {
		for (let index = 0; index < 11; index++) await createCase();
		const total = (
			await run('case count', { resource: 'case', operation: 'getMany', returnAll: true })
		).output.length;
		expect(total).toBeGreaterThanOrEqual(11);

		const all = await run('case get many all', {
			resource: 'case',
			operation: 'getMany',
			returnAll: true,
		});
		expect(all.output).toHaveLength(total);
		expect(new Set(all.output.map((item) => item.id)).size).toBe(total);
		const pages = Math.ceil(total / 10);
		expect(apiCalls(all).map((entry) => [entry.method, entry.path, entry.query.page])).toEqual(
			Array.from({ length: pages }, (_, page) => ['GET', '/case/list', String(page)]),
		);

		const limited = await run('case get many limit', {
			resource: 'case',
			operation: 'getMany',
			returnAll: false,
			limit: 3,
		});
		expect(limited.output).toHaveLength(3);
		expect(apiCalls(limited).map((entry) => [entry.path, entry.query.page])).toEqual([
			['/case/list', '0'],
		]);
	});

	test('Add Services posts services[].id (catalog and custom IDs) and outputs the case with them', async () => {
		const created = await createCase();
		const result = await run('case add services', {
			resource: 'case',
			operation: 'addServices',
			caseId: byId(created.id),
			services: ['service-bankruptcy', FACIS],
			customServiceIds: 'drug-service-H17P-panel',
		});
		expect(apiCalls(result).map(requestLine)).toEqual([
			`POST /case/id/${created.id}/add/services 200`,
		]);
		expect(apiCalls(result)[0].body).toEqual({
			services: [{ id: 'service-bankruptcy' }, { id: FACIS }, { id: 'drug-service-H17P-panel' }],
		});
		expect((result.output[0].services as Json[]).map((service) => service.serviceId)).toEqual(
			expect.arrayContaining([SSN_TRACE, 'service-bankruptcy', FACIS, 'drug-service-H17P-panel']),
		);
	});

	test('Get Data outputs one item per case data with status and pending-status names and meanings', async () => {
		const created = await createCase([EMPLOYMENT_VERIFICATION, 'service-drug-10-panel']);
		sandbox.admin.scriptCase(created.id, { holdAtStep: 3 });
		// Walk the case until the drug screening shows a pending status.
		for (let step = 0; step < 3; step++) sandbox.admin.advanceCase(created.id);
		const employmentType = (created.services as Json[]).find(
			(service) => service.serviceId === EMPLOYMENT_VERIFICATION,
		)!.serviceTypeId;

		const result = await run('case get data', {
			resource: 'case',
			operation: 'getData',
			caseId: byId(created.id),
			serviceTypeId: byId(employmentType),
		});
		expect(apiCalls(result).map(requestLine)).toEqual([
			`GET /case/id/${created.id}/data/${employmentType} 200`,
		]);
		expect(result.output.length).toBeGreaterThanOrEqual(2);
		for (const item of result.output) {
			const known = CASE_DATA_STATUSES.find((status) => status.statusId === item.statusId)!;
			expect(item).toMatchObject({ statusName: known.status, statusMeaning: known.meaning });
		}
		const employment = result.output.find((item) => item.serviceId === EMPLOYMENT_VERIFICATION)!;
		expect(employment.details.records[0]).toMatchObject({
			searchId: expect.any(String),
			statusMeaning: expect.any(String),
		});
		const drug = result.output.find((item) => item.serviceId === 'service-drug-10-panel')!;
		const pending = PENDING_STATUSES.find(
			(status) => status.pendingStatusId === drug.pendingStatusId,
		);
		expect(pending).toBeDefined();
		expect(drug).toMatchObject({
			pendingStatusName: pending!.name,
			pendingStatusAppliesTo: 'drug screenings',
		});
	});
});

describe('Case Data', () => {
	test('Cancel Search posts to the search record and outputs the case data with the record canceled', async () => {
		const created = await createCase([EMPLOYMENT_VERIFICATION]);
		const caseData = sandbox.admin.getCase(created.id).caseData[0];
		const searchId = caseData.details.records![0].searchId;

		const result = await run(
			'case data cancel search',
			{
				resource: 'caseData',
				operation: 'cancelSearch',
				caseDataId: '={{ $json.body.caseDataId }}',
				searchId: '={{ $json.body.searchId }}',
			},
			{ caseDataId: caseData.id, searchId },
		);
		expect(apiCalls(result).map(requestLine)).toEqual([
			`POST /case/data/id/${caseData.id}/search/id/${searchId}/cancel 200`,
		]);
		// The node sends no fields; n8n drops an empty JSON body before sending (removeEmptyBody).
		expect(apiCalls(result)[0].body).toBeNull();
		expect(result.output[0]).toMatchObject({ id: caseData.id, serviceId: EMPLOYMENT_VERIFICATION });
		expect(result.output[0].details.records[0]).toMatchObject({
			searchId,
			statusName: 'canceled',
			statusMeaning: 'Not performed',
		});
	});
});

describe('Package', () => {
	test('Get Services outputs one item per service of the package, cut to the limit unless Return All', async () => {
		const all = await run('package services', {
			resource: 'package',
			operation: 'getServices',
			packageId: 'pkg-basic-criminal',
			returnAll: true,
		});
		expect(apiCalls(all).map(requestLine)).toEqual([
			'GET /package/id/pkg-basic-criminal/services 200',
		]);
		expect(all.output).toEqual([
			{ serviceName: 'SSN Trace', serviceId: SSN_TRACE },
			{ serviceName: expect.any(String), serviceId: 'd8e3dbdb-c2d7-4787-9736-86fffab74da4' },
			{ serviceName: expect.any(String), serviceId: COUNTY_CRIMINAL },
			{ serviceName: expect.any(String), serviceId: '03635d39-c9df-418f-948d-10d38a7e06db' },
		]);
		const limited = await run('package services limit', {
			resource: 'package',
			operation: 'getServices',
			packageId: 'pkg-basic-criminal',
			limit: 2,
		});
		expect(limited.output).toHaveLength(2);
	});
});

describe('Verification Book', () => {
	test('Search walks every page with Return All (0-based page in the body)', async () => {
		const result = await run('vbook all', {
			resource: 'verificationBook',
			operation: 'search',
			returnAll: true,
		});
		expect(result.output).toHaveLength(25);
		expect(apiCalls(result).map((entry) => [entry.method, entry.path, entry.body])).toEqual([
			['POST', '/vbook/search', { page: 0 }],
			['POST', '/vbook/search', { page: 1 }],
			['POST', '/vbook/search', { page: 2 }],
		]);
	});

	test('Search sends the text and entry type and reads one page for a small limit', async () => {
		const result = await run('vbook query', {
			resource: 'verificationBook',
			operation: 'search',
			query: 'University',
			entryType: 'school',
			limit: 3,
		});
		expect(result.output).toHaveLength(3);
		for (const item of result.output)
			expect(item).toMatchObject({ type: 'school', name: expect.stringContaining('University') });
		expect(apiCalls(result).map((entry) => entry.body)).toEqual([
			{ query: 'University', type: 'school', page: 0 },
		]);
	});
});

describe('Testimony and CPLC', () => {
	test('Testimony Create and Update, then CPLC Get Definitions, on one case', async () => {
		const created = await createCase();
		const documentId = await createSecureDocument();

		const createRun = await run(
			'testimony create',
			nurseTestimonyParameters(byId(created.id), documentId),
		);
		expect(apiCalls(createRun).map(requestLine)).toEqual([
			`POST /testimony/create/case/id/${created.id} 201`,
		]);
		expect(apiCalls(createRun)[0].body).toEqual(nurseTestimonyBody(documentId));
		const testimony = createRun.output[0];
		expect(testimony).toMatchObject({
			id: expect.any(String),
			caseId: created.id,
			cplcId: 'cplc-registered-nurse',
		});

		const updateRun = await run('testimony update', {
			resource: 'testimony',
			operation: 'update',
			testimonyId: testimony.id,
			caseId: fromList(created.id),
			licenseFields: { state: 'OK' },
			customFields: { field: [{ fieldId: 'additionalInfo', value: 'Compact license' }] },
		});
		expect(apiCalls(updateRun).map(requestLine)).toEqual([
			`PUT /testimony/id/${testimony.id}/update/case/id/${created.id} 200`,
		]);
		expect(apiCalls(updateRun)[0].body).toEqual({
			fields: [
				{ fieldId: 'state', value: 'OK' },
				{ fieldId: 'additionalInfo', value: 'Compact license' },
			],
		});
		expect(updateRun.output[0].fields).toEqual(
			expect.arrayContaining([
				{ fieldId: 'state', value: 'OK' },
				{ fieldId: 'licenseNumber', value: 'RN123456' },
				{ fieldId: 'additionalInfo', value: 'Compact license' },
			]),
		);

		const definitions = await run('cplc definitions', {
			resource: 'cplc',
			operation: 'getDefinitions',
			caseId: byId(created.id),
		});
		expect(apiCalls(definitions).map(requestLine)).toEqual([
			`GET /service/cplc/case/id/${created.id} 200`,
		]);
		expect(definitions.output).toHaveLength(1);
		expect(definitions.output[0]).toMatchObject({
			id: 'cplc-registered-nurse',
			name: 'RN',
			enabled: true,
		});
		const ordinals = (definitions.output[0].fields as Json[]).map((field) => field.ordinal);
		expect(ordinals).toEqual([...ordinals].sort((a, b) => a - b));
	});
});

describe('Reference lists', () => {
	test('Shipment Mask > Get Many outputs the masks', async () => {
		const result = await run('shipment masks', {
			resource: 'shipmentMask',
			operation: 'getMany',
			returnAll: true,
		});
		expect(apiCalls(result).map(requestLine)).toEqual(['GET /shipment/mask/list 200']);
		expect(result.output.map((item) => item.id)).toEqual([
			'shipment-mask-candidate-home',
			'shipment-mask-employer-site',
			'shipment-mask-clinic',
		]);
	});

	test("Company User > Get Many outputs the users of the credential's group, cut to the limit", async () => {
		const result = await run('company users', {
			resource: 'companyUser',
			operation: 'getMany',
			limit: 2,
		});
		expect(apiCalls(result).map(requestLine)).toEqual(['GET /company/user/list 200']);
		expect(result.output).toHaveLength(2);
		for (const item of result.output)
			expect(item).toMatchObject({ groupProfileId: 'group-profile-east' });
	});
});

describe('Errors in a real run', () => {
	/** Webhook -> Split Out (body.candidates, one item each) -> Background Check: Case > Create from the item. */
	function orderEachCandidate(onError?: 'continueRegularOutput'): N8nNode[] {
		return [
			{
				name: 'Split Out',
				type: 'n8n-nodes-base.splitOut',
				typeVersion: 1,
				position: [220, 0],
				parameters: { fieldToSplitOut: 'body.candidates', include: 'noOtherFields', options: {} },
			},
			actionNode(
				{
					resource: 'case',
					operation: 'create',
					candidateFirstName: '={{ $json.firstName }}',
					candidateLastName: '={{ $json.lastName }}',
					candidateEmail: '={{ $json.email }}',
					services: [SSN_TRACE],
				},
				credential,
				{ onError },
			),
		];
	}

	test('Continue On Fail: the bad item becomes an error item linked to it, the other items are ordered and the run succeeds', async () => {
		const stamp = Date.now();
		const candidates = [
			{ firstName: 'Ann', lastName: 'Lee', email: `cof-1-${stamp}@example.com` },
			{ firstName: 'Bob!', lastName: 'Lee', email: `cof-2-${stamp}@example.com` },
			{ firstName: 'Cy', lastName: 'Lee', email: `cof-3-${stamp}@example.com` },
		];
		const result = await runOnce<Json>(
			n8n.api,
			sandbox,
			'continue on fail',
			orderEachCandidate('continueRegularOutput'),
			{ candidates },
		);
		expect(result.response.status).toBe(200);
		expect(result.execution.status).toBe('success');
		const runData = result.execution.data!.resultData.runData['Background Check'][0].data!
			.main[0]! as Array<{ json: Json; pairedItem?: unknown }>;
		expect(runData).toHaveLength(3);
		expect(runData[0].json).toMatchObject({ candidate: { email: candidates[0].email } });
		// The error item: the message names the field, the characters and the item (one problem: no description).
		expect(Object.keys(runData[1].json)).toEqual(['error']);
		expect(runData[1].json.error).toMatch(
			/^candidate\.firstName contains characters the API does not accept \("!"\).*\[item 1\]$/,
		);
		expect(runData[2].json).toMatchObject({ candidate: { email: candidates[2].email } });
		expect(runData.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(result.items).toEqual(runData.map((item) => item.json));
		// Only the two good candidates were sent.
		expect(
			apiCalls(result).map((entry) => [
				entry.method,
				entry.path,
				(entry.body as Json).candidate.email,
			]),
		).toEqual([
			['POST', '/case/create', candidates[0].email],
			['POST', '/case/create', candidates[2].email],
		]);
	});

	test('a name with characters the API refuses fails the run with the field and item named, and nothing is sent', async () => {
		const candidates = [
			{ firstName: 'Ann', lastName: 'Van Dyke', email: `bad-name-${Date.now()}@example.com` },
		];
		const result = await runOnce<Json>(n8n.api, sandbox, 'validation error', orderEachCandidate(), {
			candidates,
		});
		expect(result.response.status).toBeGreaterThanOrEqual(400);
		expect(result.execution.status).toBe('error');
		expect(result.execution.data!.resultData.lastNodeExecuted).toBe('Background Check');
		expect(executionError(result.execution)).toMatch(
			/^candidate\.lastName contains characters the API does not accept \(space\).*\[item 0\]$/,
		);
		expect(result.requests).toEqual([]);
	});
});

describe('Bulk orders', () => {
	test('200 Case > Create at the default Concurrent Requests under faults: each candidate one case or one error item, never two cases; only refused writes sent again', async () => {
		// An API that does not refuse a second order for a candidate, so that an order sent twice shows as two cases.
		const api = await startTestSandbox({ refuseSameCandidate: false });
		try {
			const bulkCredential = await createApiCredential(n8n.api, api, { name: 'bulk orders' });
			const create = { method: 'POST', pathPrefix: '/case/create' } as const;
			// 30 creates per second per token (more are answered 429 with Retry-After: only a run with several
			// requests in flight at 100 ms each reaches it), then, in the order requests arrive: faults before the
			// route ran (no case) and after it (a case whose answer is lost), and a 503 with Retry-After.
			api.admin.injectFault({ ...create, kind: 'rateLimit', perSecond: 30 });
			const segments: Array<Parameters<Sandbox['admin']['injectFault']>[0]> = [];
			for (const fault of [
				{ kind: 'status', status: 500 },
				{ kind: 'status', status: 502, afterHandling: true },
				{ kind: 'drop' },
				{ kind: 'drop', afterHandling: true },
				{ kind: 'status', status: 503, retryAfterSeconds: 1 },
			] as const) {
				segments.push({ ...create, kind: 'latency', latencyMs: 100, times: 25 });
				segments.push({ ...create, ...fault, times: 3 });
			}
			for (const segment of segments) api.admin.injectFault(segment);
			api.admin.injectFault({ ...create, kind: 'latency', latencyMs: 100 });

			const stamp = Date.now();
			const candidates = Array.from({ length: 200 }, (_, index) => ({
				firstName: 'Ann',
				lastName: 'Lee',
				email: `bulk-${index}-${stamp}@example.com`,
			}));
			const result = await runOnce<Json>(
				n8n.api,
				api,
				'bulk orders',
				[
					{
						name: 'Split Out',
						type: 'n8n-nodes-base.splitOut',
						typeVersion: 1,
						position: [220, 0],
						parameters: {
							fieldToSplitOut: 'body.candidates',
							include: 'noOtherFields',
							options: {},
						},
					},
					actionNode(
						{
							resource: 'case',
							operation: 'create',
							candidateFirstName: '={{ $json.firstName }}',
							candidateLastName: '={{ $json.lastName }}',
							candidateEmail: '={{ $json.email }}',
							services: [SSN_TRACE],
						},
						bulkCredential,
						{ onError: 'continueRegularOutput' },
					),
				],
				{ candidates },
			);
			expect(result.execution.status).toBe('success');
			const output = result.execution.data!.resultData.runData['Background Check'][0].data!
				.main[0]! as Array<{ json: Json; pairedItem?: unknown }>;
			expect(output.map((item) => item.pairedItem)).toEqual(
				candidates.map((_, item) => ({ item })),
			);

			const token = (
				(await (
					await fetch(`${api.url}/auth/api`, {
						method: 'POST',
						headers: { 'content-type': 'application/json' },
						body: JSON.stringify(api.demoCredentials[0]),
					})
				).json()) as { token: string }
			).token;
			const cases = new Map<string, string[]>();
			for (let page = 0; page < 3; page++) {
				const listed = (await (
					await fetch(`${api.url}/case/list?page=${page}&pageSize=100`, {
						headers: { authorization: `Bearer ${token}` },
					})
				).json()) as { caseList: Array<{ id: string; candidate: { email: string } }> };
				for (const entry of listed.caseList)
					cases.set(entry.candidate.email, [...(cases.get(entry.candidate.email) ?? []), entry.id]);
			}
			const creates = result.requests.filter((entry) => entry.path === '/case/create');
			const notTaken = (entry: (typeof creates)[number]) =>
				(entry.status === 429 || entry.status === 503) && entry.handledStatus === null;
			let errors = 0;
			candidates.forEach(({ email }, index) => {
				const caseIds = cases.get(email) ?? [];
				const sends = creates.filter((entry) => (entry.body as Json).candidate.email === email);
				expect({ email, twoCases: caseIds.length > 1 }).toEqual({ email, twoCases: false });
				expect(sends.slice(0, -1).every(notTaken)).toBe(true);
				const { json } = output[index];
				if (json.error === undefined) expect(json.id).toBe(caseIds[0]);
				else {
					errors++;
					expect(json.errorDescription).toMatch(/may or may not have been carried out/);
				}
			});
			// 12 sends failed for good (3 each: 500, 502 after the route ran, drop, drop after the route ran); the
			// 503s with Retry-After and the 429s were sent again.
			expect(errors).toBe(12);
			expect(cases.size).toBe(200 - 6);
			expect(creates.filter((entry) => entry.status === 429).length).toBeGreaterThan(0);
			expect(creates.filter((entry) => entry.status === 503)).toHaveLength(3);
			expect(result.requests.filter((entry) => entry.path === '/auth/api')).toHaveLength(1);
		} finally {
			await api.stop();
		}
	}, 120_000);
});

describe('the whole file', () => {
	test('one token exchange served every execution of the file', () => {
		const all = fileRequests.all();
		expect(all.filter((entry) => entry.path === '/auth/api').map(requestLine)).toEqual([
			'POST /auth/api 200',
		]);
		expect(all.filter((entry) => entry.status === 401)).toEqual([]);
	});
});
