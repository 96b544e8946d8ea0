/**
 * Every operation of the Background Check node, run in real n8n executions (the packed package installed as
 * a community package, on the pinned runtime) against the sandbox, which answers and refuses as the API
 * reference does: the node's output as n8n saved it, and the request the sandbox received (method, path,
 * query, body). Also Continue On Fail, a validation error and a 409 in a real run, and bulk orders under
 * faults. One n8n and one sandbox for the file; each test deploys its own webhook-started workflow.
 */
import type { Sandbox } from '../../sandbox';
import { CASE_DATA_STATUSES, PENDING_STATUSES, SERVICE_TYPES } from '../../nodes/shared/catalog';
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
	EDUCATION_VERIFICATION,
	EMPLOYMENT_VERIFICATION,
	FACIS,
	fullCaseOrderBody,
	fullCaseOrderParameters,
	HEALTHCARE_PACKAGE,
	ORDERED_BY,
	PENDING,
	SSN_TRACE,
} from '../fixtures/fullCaseOrder';
import { nurseTestimonyBody, nurseTestimonyParameters } from '../fixtures/nurseTestimony';
import { BASIC_CRIMINAL, caseParameters, HEALTHCARE } from '../helpers/nodeSandbox';
import { call, tokenFor } from '../helpers/sandbox';
import { nodeOutput, type Credential, type N8nNode } from '../harness/n8nApi';
import { startTestN8n, type TestN8n } from '../harness/n8nInstance';

const SCREENING = SERVICE_TYPES.find((type) => type.name === 'Screening')!.id;
const DISCLOSURES_AND_AUTHORIZATIONS = 'candidate-disclosures-and-authorizations';

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

/** The run data items of a node (json and pairedItem), as n8n saved them. */
function savedItems(
	result: WorkflowRun<Json>,
	node = 'Background Check',
): Array<{ json: Json; pairedItem?: unknown }> {
	return result.execution.data!.resultData.runData[node][0].data!.main[0]! as Array<{
		json: Json;
		pairedItem?: unknown;
	}>;
}

/** Orders a case of `packageId` (candidate onboarding) through the node: its ID and candidate email. */
async function createCase(
	packageId = BASIC_CRIMINAL,
	overrides: Record<string, unknown> = {},
): Promise<{ id: string; email: string }> {
	const parameters = caseParameters({ packageId: byId(packageId), ...overrides });
	const { output } = await run('fixture case', parameters);
	expect(output).toEqual([{ caseId: expect.any(String), caseInvitationId: expect.any(String) }]);
	return { id: output[0].caseId, email: parameters.candidateEmail as string };
}

/** The case data of a case, as the sandbox holds them (details parsed). */
const caseDataOf = (caseId: string): Array<{ id: string; serviceId: string; details: Json }> =>
	sandbox.admin.getCase(caseId).caseData.map((caseData) => ({
		id: caseData.id,
		serviceId: caseData.serviceId as string,
		details: JSON.parse(String(caseData.details || '{}')) as Json,
	}));

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

/** Uploads a signed authorization (PDF) through the node; its secure document ID. */
async function uploadAuthorization(): Promise<string> {
	const { output } = await run(
		'fixture document',
		{ resource: 'secureDocument', operation: 'create' },
		{ content: Buffer.from('%PDF-1.4 signed authorization').toString('base64') },
		[fileFromBody('authorization.pdf', 'application/pdf')],
	);
	return output[0].secureDocumentId;
}

describe('Secure Document', () => {
	test('Upload asks for an upload address, PUTs the binary file of the item there without the token, and creates the document for the case', async () => {
		const created = await createCase();
		const content = Buffer.from('%PDF-1.4 diploma scan');
		const result = await run(
			'secure document upload',
			{
				resource: 'secureDocument',
				operation: 'create',
				options: { description: 'Nursing diploma', accessCaseId: created.id },
			},
			{ content: content.toString('base64') },
			[fileFromBody('diploma.PDF', 'application/pdf')],
		);
		// The sandbox refuses a PUT that carries an Authorization header, and a create whose file was not PUT;
		// the PUT goes to storage, not to the API, and is not in the API's request log.
		const [upload, create, ...others] = apiCalls(result);
		expect(others).toEqual([]);
		expect(requestLine(upload)).toBe('POST /document/secure/upload 200');
		expect(upload.body).toEqual({
			files: [{ documentTypeId: DISCLOSURES_AND_AUTHORIZATIONS, mimeType: 'application/pdf' }],
		});
		expect(requestLine(create)).toBe('POST /document/secure/create 200');
		expect(create.body).toEqual({
			list: [
				{
					originalFileName: 'diploma.PDF',
					documentTypeId: DISCLOSURES_AND_AUTHORIZATIONS,
					fileKey: expect.any(String),
					fileFormat: 'pdf',
					description: 'Nursing diploma',
				},
			],
			accessGrants: { caseId: created.id },
		});
		expect(result.output).toEqual([
			{
				secureDocumentId: expect.any(String),
				originalFileName: 'diploma.PDF',
				documentTypeId: DISCLOSURES_AND_AUTHORIZATIONS,
				fileKey: (create.body as Json).list[0].fileKey,
				fileFormat: 'pdf',
				description: 'Nursing diploma',
				caseId: created.id,
			},
		]);
		expect(savedItems(result)[0].pairedItem).toEqual({ item: 0 });
	});
});

describe('Case', () => {
	test('Create sends the flat body of the customer-provided data flow (values from expressions) and outputs the new case’s IDs; Get reads it back', async () => {
		const documentId = await uploadAuthorization();
		const email = `maria.garcia.${Date.now()}@example.com`;
		const result = await runOnce<Json>(
			n8n.api,
			sandbox,
			'case create',
			[
				// Values from the incoming item, through n8n expressions.
				actionNode(
					fullCaseOrderParameters(
						{ firstName: '={{ $json.body.firstName }}', email: '={{ $json.body.email }}' },
						documentId,
					),
					credential,
				),
				actionNode(
					{ resource: 'case', operation: 'get', caseId: byId('={{ $json.caseId }}') },
					credential,
					{ name: 'Read Case' },
				),
			],
			{ firstName: 'Maria', email },
		);
		expect(result.execution.status).toBe('success');

		const [create, read, ...others] = apiCalls(result);
		expect(others).toEqual([]);
		expect(create).toMatchObject({ method: 'POST', path: '/case/create', status: 200 });
		expect(create.body).toEqual(fullCaseOrderBody(email, documentId));
		expect(create.headers['karmacheck-on-behalf-of']).toBe(ORDERED_BY);

		const created = savedItems(result);
		expect(created).toEqual([
			{
				json: { caseId: expect.any(String), caseInvitationId: expect.any(String) },
				pairedItem: { item: 0 },
			},
		]);
		const caseId = created[0].json.caseId as string;
		expect(requestLine(read)).toBe(`GET /case/id/${caseId} 200`);
		expect(result.items).toEqual([
			expect.objectContaining({
				id: caseId,
				candidateEmail: email,
				candidateGivenName: 'Maria',
				candidateFamilyName: 'Garcia-López',
				packageId: HEALTHCARE_PACKAGE,
				apiTrackingCode: 'REQ-1001',
				isCustomerProvidedPii: 1,
				caseStatusName: expect.any(String),
			}),
		]);
		expect(sandbox.admin.getCase(caseId)).toMatchObject({
			id: caseId,
			groupProfileId: '4e0c2a8e-5b1f-4d3c-9a7e-2f6b1c8d3e01',
		});
		// The package's services but the excluded one.
		const serviceIds = caseDataOf(caseId).map((caseData) => caseData.serviceId);
		expect(serviceIds).toEqual(
			expect.arrayContaining([SSN_TRACE, EMPLOYMENT_VERIFICATION, 'service-drug-10-panel']),
		);
		expect(serviceIds).not.toContain(FACIS);
	});

	test('Get returns the case itself (by ID from an expression, and from the list mode of the case locator) with the names of its status IDs', async () => {
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
			expect(result.output[0]).toMatchObject({
				id: created.id,
				candidateEmail: created.email,
				candidateGivenName: 'Ann',
				candidateFamilyName: "O'Neil",
				packageId: BASIC_CRIMINAL,
				caseStatus: 'Pending',
				caseStatusName: 'Pending',
				secondaryStatusName: 'Waiting for Authorization',
			});
			expect(result.output[0]).not.toHaveProperty('cases');
		}
	});

	test('Get Many reads the active cases in one request, all of them with Return All and cut to the limit; All Cases adds the archived ones and filters by package', async () => {
		const ids: string[] = [];
		for (let index = 0; index < 4; index++) ids.push((await createCase()).id);
		const healthcare = await createCase(HEALTHCARE);
		// A case replaced by a new one for the same candidate is archived.
		const replacement = await createCase(BASIC_CRIMINAL, {
			candidateEmail: healthcare.email,
			candidateFields: { orderOverride: 'replace', replaceCaseId: healthcare.id },
		});
		expect(sandbox.admin.getCase(healthcare.id)).toMatchObject({ archived: 1 });

		const all = await run('case get many all', {
			resource: 'case',
			operation: 'getMany',
			returnAll: true,
		});
		expect(apiCalls(all).map(requestLine)).toEqual(['GET /case/list 200']);
		expect(apiCalls(all)[0].query).toEqual({});
		const listed = all.output.map((item) => item.id);
		expect(listed).toEqual(expect.arrayContaining([...ids, replacement.id]));
		expect(listed).not.toContain(healthcare.id);
		expect(new Set(listed).size).toBe(listed.length);
		for (const item of all.output)
			expect(item).toMatchObject({ caseStatusName: expect.any(String) });
		expect(savedItems(all).every((item) => (item.pairedItem as Json).item === 0)).toBe(true);

		const limited = await run('case get many limit', {
			resource: 'case',
			operation: 'getMany',
			returnAll: false,
			limit: 3,
		});
		expect(limited.output).toHaveLength(3);
		expect(apiCalls(limited).map(requestLine)).toEqual(['GET /case/list 200']);

		const archivedToo = await run('case get many of a package', {
			resource: 'case',
			operation: 'getMany',
			scope: 'all',
			returnAll: true,
			filters: { packageId: HEALTHCARE },
		});
		expect(apiCalls(archivedToo).map((entry) => [requestLine(entry), entry.query])).toEqual([
			['GET /case/list/all 200', { packageId: HEALTHCARE }],
		]);
		expect(archivedToo.output.map((item) => item.id)).toContain(healthcare.id);
		for (const item of archivedToo.output) expect(item.packageId).toBe(HEALTHCARE);
	});

	test('Add Services posts services[].id with order data and config, and outputs what was added', async () => {
		const created = await createCase(HEALTHCARE, { excludeServices: [EDUCATION_VERIFICATION] });
		expect(caseDataOf(created.id).map((caseData) => caseData.serviceId)).not.toContain(
			EDUCATION_VERIFICATION,
		);
		const education = {
			institution: 'Valley State University',
			city: 'Austin',
			state: 'TX',
			country: 'US',
			current: false,
			monthEnd: '05',
			yearEnd: '2015',
		};
		const result = await run('case add services', {
			resource: 'case',
			operation: 'addServices',
			caseId: byId(created.id),
			services: [EDUCATION_VERIFICATION],
			orderData: {
				other: [
					{
						type: 'codt-education',
						serviceId: EDUCATION_VERIFICATION,
						metadata: JSON.stringify(education),
					},
				],
			},
			orderConfig: { educationVerificationMethod: 'psv' },
		});
		expect(apiCalls(result).map(requestLine)).toEqual([
			`POST /case/id/${created.id}/add/services 200`,
		]);
		expect(apiCalls(result)[0].body).toEqual({
			services: [{ id: EDUCATION_VERIFICATION }],
			orderData: [
				{
					caseOrderDataTypeId: 'codt-education',
					serviceId: EDUCATION_VERIFICATION,
					metadata: education,
				},
			],
			orderConfig: { serviceConfigs: { [EDUCATION_VERIFICATION]: { verificationMethod: 'psv' } } },
		});
		expect(result.output).toEqual([
			{ caseId: created.id, success: true, serviceIds: [EDUCATION_VERIFICATION] },
		]);
		expect(caseDataOf(created.id).map((caseData) => caseData.serviceId)).toContain(
			EDUCATION_VERIFICATION,
		);
	});

	test('Get Data outputs one item per case data of the service type, with status and pending-status names and meanings', async () => {
		const created = await createCase(HEALTHCARE);
		sandbox.admin.scriptCase(created.id, { holdAtStep: 3 });
		// Walk the case until the drug screening shows a pending status.
		for (let step = 0; step < 3; step++) sandbox.admin.advanceCase(created.id);

		const result = await run('case get data', {
			resource: 'case',
			operation: 'getData',
			caseId: byId(created.id),
			serviceTypeId: fromList(SCREENING),
		});
		expect(apiCalls(result).map(requestLine)).toEqual([
			`GET /case/id/${created.id}/data/${SCREENING} 200`,
		]);
		expect(result.output.length).toBeGreaterThanOrEqual(2);
		for (const item of result.output) {
			const known = CASE_DATA_STATUSES.find((status) => status.statusId === item.statusId)!;
			expect(item).toMatchObject({
				caseId: created.id,
				serviceTypeId: SCREENING,
				statusName: known.status,
				statusMeaning: known.meaning,
			});
		}
		const employment = result.output.find((item) => item.serviceId === EMPLOYMENT_VERIFICATION)!;
		expect(JSON.parse(employment.details).records[0]).toMatchObject({
			searchId: expect.any(String),
		});
		const drug = result.output.find((item) => item.serviceId === 'service-drug-10-panel')!;
		const pending = PENDING_STATUSES.find(
			(status) => status.pendingStatusId === drug.pendingStatusId,
		);
		expect(pending).toBeDefined();
		expect(drug).toMatchObject({
			statusId: PENDING.statusId,
			pendingStatusName: pending!.name,
			pendingStatusAppliesTo: 'drug screenings',
		});
	});
});

describe('Case Data', () => {
	test('Cancel Search posts to the search record with no body and outputs what was canceled', async () => {
		const created = await createCase(HEALTHCARE);
		const caseData = caseDataOf(created.id).find(
			(entry) => entry.serviceId === EMPLOYMENT_VERIFICATION,
		)!;
		const searchId = caseData.details.records[0].searchId as string;

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
		expect(result.output).toEqual([{ caseDataId: caseData.id, searchId, success: true }]);
		const after = caseDataOf(created.id).find((entry) => entry.id === caseData.id)!;
		expect(after.details.records[0]).toMatchObject({ searchId, status: 'canceled' });
	});
});

describe('Package', () => {
	test('Get Services outputs one item per service of the package, cut to the limit unless Return All', async () => {
		const all = await run('package services', {
			resource: 'package',
			operation: 'getServices',
			packageId: fromList(BASIC_CRIMINAL),
			returnAll: true,
		});
		expect(apiCalls(all).map(requestLine)).toEqual([
			`GET /package/id/${BASIC_CRIMINAL}/services 200`,
		]);
		expect(all.output.map((item) => item.serviceId)).toEqual([
			SSN_TRACE,
			'd8e3dbdb-c2d7-4787-9736-86fffab74da4',
			'fa226cb7-1214-4cdf-9296-6120a7376926',
			'03635d39-c9df-418f-948d-10d38a7e06db',
		]);
		expect(all.output[0]).toMatchObject({ serviceName: 'SSN Trace', serviceId: SSN_TRACE });
		const limited = await run('package services limit', {
			resource: 'package',
			operation: 'getServices',
			packageId: byId(BASIC_CRIMINAL),
			limit: 2,
		});
		expect(limited.output).toHaveLength(2);
	});
});

describe('Verification Book', () => {
	test('Search with Return All reads the whole book from page 0 (searchDetails and listMetadata in the body)', async () => {
		const result = await run('vbook all', {
			resource: 'verificationBook',
			operation: 'search',
			entryType: 'vbt_employment',
			returnAll: true,
		});
		expect(result.output).toHaveLength(15);
		expect(new Set(result.output.map((item) => item.id)).size).toBe(15);
		expect(apiCalls(result).map((entry) => [requestLine(entry), entry.body])).toEqual([
			[
				'POST /vbook/search 200',
				{
					searchDetails: { vbookTypeId: 'vbt_employment' },
					listMetadata: { page: 0, pageSize: 50 },
				},
			],
		]);
	});

	test('Search sends the name and the book, and reads one page of the limit’s size', async () => {
		const result = await run('vbook query', {
			resource: 'verificationBook',
			operation: 'search',
			query: 'University',
			entryType: 'vbt_education',
			limit: 3,
		});
		expect(result.output).toHaveLength(3);
		for (const item of result.output) expect(item.name).toMatch(/University/);
		expect(apiCalls(result).map((entry) => entry.body)).toEqual([
			{
				searchDetails: { vbookTypeId: 'vbt_education', nameQuery: 'University' },
				listMetadata: { page: 0, pageSize: 3 },
			},
		]);
	});
});

describe('Testimony and CPLC', () => {
	test('Testimony Create and Update (POST, the whole testimony), then CPLC Get Definitions, on one case', async () => {
		const created = await createCase(HEALTHCARE);

		const createRun = await run('testimony create', nurseTestimonyParameters(byId(created.id)));
		expect(apiCalls(createRun).map(requestLine)).toEqual([
			`POST /testimony/create/case/id/${created.id} 200`,
		]);
		expect(apiCalls(createRun)[0].body).toEqual(nurseTestimonyBody());
		const testimony = createRun.output[0];
		expect(createRun.output).toEqual([
			{ id: expect.any(String), caseId: created.id, testimonyTypeId: 'testimony-type-cplc' },
		]);

		const updateRun = await run(
			'testimony update',
			{
				...nurseTestimonyParameters(fromList(created.id)),
				operation: 'update',
				testimonyId: '={{ $json.body.testimonyId }}',
				licenseFields: { state: 'OK' },
				customFields: { field: [{ fieldId: 'additionalInfo', value: 'Compact license' }] },
			},
			{ testimonyId: testimony.id },
		);
		expect(apiCalls(updateRun).map(requestLine)).toEqual([
			`POST /testimony/id/${testimony.id}/update/case/id/${created.id} 200`,
		]);
		const update = nurseTestimonyBody();
		update.details.fields = [
			...update.details.fields
				.filter((field) => field.fieldId !== 'expirationDate')
				.map((field) => (field.fieldId === 'state' ? { ...field, value: 'OK' } : field)),
			{ fieldId: 'additionalInfo', value: 'Compact license' },
		];
		expect(apiCalls(updateRun)[0].body).toEqual(update);
		expect(updateRun.output).toEqual([
			expect.objectContaining({
				id: expect.any(String),
				caseId: created.id,
				testimonyTypeId: 'testimony-type-cplc',
				updatedTestimonyId: testimony.id,
			}),
		]);

		const definitions = await run('cplc definitions', {
			resource: 'cplc',
			operation: 'getDefinitions',
			caseId: byId(created.id),
		});
		expect(apiCalls(definitions).map(requestLine)).toEqual([
			`GET /service/cplc/case/id/${created.id} 200`,
		]);
		const nurse = definitions.output.find((item) => item.id === 'cplc-registered-nurse')!;
		expect(nurse).toMatchObject({ name: 'RN', enabled: true });
		const ordinals = (nurse.fields as Json[]).map((field) => field.ordinal);
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
		expect(result.output).toEqual([
			{ sku: 'MASK-N95-M', name: 'N95 respirator, medium', inStock: true },
			{ sku: 'MASK-N95-L', name: 'N95 respirator, large', inStock: true },
			{ sku: 'MASK-SURGICAL', name: 'Surgical mask', inStock: false },
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
			expect(item).toMatchObject({
				id: expect.any(String),
				givenName: expect.any(String),
				familyName: expect.any(String),
				groupProfileId: '4e0c2a8e-5b1f-4d3c-9a7e-2f6b1c8d3e01',
			});
	});
});

/** Case > Create from the item's fields (Split Out makes one item per candidate). */
const createFromItem = (): Record<string, unknown> => ({
	resource: 'case',
	operation: 'create',
	packageId: byId(BASIC_CRIMINAL),
	candidateFirstName: '={{ $json.firstName }}',
	candidateLastName: '={{ $json.lastName }}',
	candidateEmail: '={{ $json.email }}',
});

const splitCandidates: N8nNode = {
	name: 'Split Out',
	type: 'n8n-nodes-base.splitOut',
	typeVersion: 1,
	position: [220, 0],
	parameters: { fieldToSplitOut: 'body.candidates', include: 'noOtherFields', options: {} },
};

describe('Errors in a real run', () => {
	/** Webhook -> Split Out (body.candidates, one item each) -> Background Check: Case > Create from the item. */
	function orderEachCandidate(onError?: 'continueRegularOutput'): N8nNode[] {
		return [splitCandidates, actionNode(createFromItem(), credential, { onError })];
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
		const runData = savedItems(result);
		expect(runData).toHaveLength(3);
		for (const index of [0, 2]) {
			expect(runData[index].json).toEqual({
				caseId: expect.any(String),
				caseInvitationId: expect.any(String),
			});
			expect(sandbox.admin.getCase(runData[index].json.caseId)).toMatchObject({
				candidateEmail: candidates[index].email,
				candidateGivenName: candidates[index].firstName,
			});
		}
		// The error item: the message names the body field, the characters and the item (one problem: no description).
		expect(Object.keys(runData[1].json)).toEqual(['error']);
		expect(runData[1].json.error).toMatch(
			/^givenName contains characters the API does not accept \("!"\).*\[item 1\]$/,
		);
		expect(runData.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(result.items).toEqual(runData.map((item) => item.json));
		// Only the two good candidates were sent.
		expect(
			apiCalls(result).map((entry) => [entry.method, entry.path, (entry.body as Json).email]),
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
			/^familyName contains characters the API does not accept \(space\).*\[item 0\]$/,
		);
		expect(result.requests).toEqual([]);
	});

	test('an order for a candidate who has a case already: the 409 names the existing case, and nothing is created', async () => {
		const existing = await createCase();
		const before = sandbox.admin.casesPerCandidate().get(existing.email.toLowerCase());
		const result = await runOnce<Json>(n8n.api, sandbox, 'order twice', orderEachCandidate(), {
			candidates: [{ firstName: 'Ann', lastName: 'Lee', email: existing.email }],
		});
		expect(result.execution.status).toBe('error');
		expect(executionError(result.execution)).toBe(
			`The candidate already has a case in this group: ${existing.id}`,
		);
		expect(apiCalls(result).map(requestLine)).toEqual(['POST /case/create 409']);
		expect(sandbox.admin.casesPerCandidate().get(existing.email.toLowerCase())).toBe(before);
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
					splitCandidates,
					actionNode(createFromItem(), bulkCredential, { onError: 'continueRegularOutput' }),
				],
				{ candidates },
			);
			expect(result.execution.status).toBe('success');
			const output = savedItems(result);
			expect(output.map((item) => item.pairedItem)).toEqual(
				candidates.map((_, item) => ({ item })),
			);

			// The cases the API holds, per candidate: one list read (the reference's list has no pages).
			const listed = await call(api, 'GET', '/case/list', { token: await tokenFor(api) });
			const cases = new Map<string, string[]>();
			for (const entry of listed.body.cases as Array<{ id: string; candidateEmail: string }>)
				cases.set(entry.candidateEmail, [...(cases.get(entry.candidateEmail) ?? []), entry.id]);

			const creates = result.requests.filter((entry) => entry.path === '/case/create');
			const notTaken = (entry: (typeof creates)[number]) =>
				(entry.status === 429 || entry.status === 503) && entry.handledStatus === null;
			let errors = 0;
			candidates.forEach(({ email }, index) => {
				const caseIds = cases.get(email) ?? [];
				const sends = creates.filter((entry) => (entry.body as Json).email === email);
				expect({ email, twoCases: caseIds.length > 1 }).toEqual({ email, twoCases: false });
				expect(sends.slice(0, -1).every(notTaken)).toBe(true);
				const { json } = output[index];
				if (json.error === undefined) expect(json.caseId).toBe(caseIds[0]);
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
	test('one token exchange served every execution of the file, and no request was refused for its token', () => {
		const all = fileRequests.all();
		expect(all.filter((entry) => entry.path === '/auth/api').map(requestLine)).toEqual([
			'POST /auth/api 200',
		]);
		expect(all.filter((entry) => entry.status === 401 || entry.status === 403)).toEqual([]);
	});
});
