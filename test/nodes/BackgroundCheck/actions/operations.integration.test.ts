/**
 * Every operation of the Background Check node, run through its execute function against the sandbox over
 * real HTTP: the output items (the API's answers unwrapped), and the request the sandbox received (method,
 * path, query, body), which the sandbox checks against the API reference.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { requestProblems } from '../../../../api/contract';
import { CASE_DATA_STATUSES, SERVICE_TYPES } from '../../../../nodes/shared/catalog';
import {
	COUNTY_CRIMINAL,
	EDUCATION_VERIFICATION,
	EMPLOYMENT_VERIFICATION,
	FACIS,
	fullCaseOrderBody,
	fullCaseOrderParameters,
	HEALTHCARE_PACKAGE,
	ORDERED_BY,
	PENDING,
	SSN_TRACE,
} from '../../../fixtures/fullCaseOrder';
import { nurseTestimonyBody, nurseTestimonyParameters } from '../../../fixtures/nurseTestimony';
import { byId, fromList, itemWithFile } from '../../../helpers/executeContext';
import {
	BASIC_CRIMINAL,
	caseParameters,
	HEALTHCARE,
	orderCase,
	useNodeSandbox,
} from '../../../helpers/nodeSandbox';

const SCREENING = SERVICE_TYPES.find((type) => type.name === 'Screening')!.id;

const context = useNodeSandbox();

const run = (resource: string, operation: string, parameters: IDataObject = {}) =>
	context.run({ resource, operation, ...parameters });
const uploadDocuments = (items: INodeExecutionData[], parameters: IDataObject = {}) =>
	context.run({ resource: 'secureDocument', operation: 'create', ...parameters }, { items });

/** Expects the last API request to be `method path`, answered 200, with exactly `body` when given. */
function expectLastRequest(method: string, path: string, body?: unknown) {
	const request = context.apiRequests().at(-1)!;
	expect(request).toMatchObject({ method, path, status: 200 });
	if (body !== undefined) expect(request.body).toEqual(body);
}

const requestLines = () =>
	context.apiRequests().map((entry) => `${entry.method} ${entry.path}${queryOf(entry.query)}`);
const queryOf = (query: Record<string, string>) => {
	const text = new URLSearchParams(query).toString();
	return text ? `?${text}` : '';
};

async function uploadAuthorization(): Promise<string> {
	const pdf = itemWithFile('authorization.pdf', Buffer.from('%PDF-1.4 signed'), 'application/pdf');
	const [document] = await uploadDocuments([pdf]);
	if (document.json.error) throw new Error(`upload failed: ${JSON.stringify(document.json)}`);
	return document.json.secureDocumentId as string;
}

describe('every request the sandbox received in this file', () => {
	afterEach(() => {
		for (const entry of context.allRequests())
			expect({
				request: `${entry.method} ${entry.path}`,
				problems: entry.path.startsWith('/storage/')
					? []
					: requestProblems({
							method: entry.method,
							path: entry.path,
							query: entry.query,
							body: entry.body ?? undefined,
						}),
			}).toEqual({ request: `${entry.method} ${entry.path}`, problems: [] });
	});

	describe('Case', () => {
		it('Create sends the flat body of the customer-provided data flow and outputs the new case’s IDs', async () => {
			const documentId = await uploadAuthorization();
			const email = `maria.garcia.${Date.now()}@example.com`;
			const output = await context.run(
				fullCaseOrderParameters({ firstName: 'Maria', email }, documentId),
			);

			expectLastRequest('POST', '/case/create', fullCaseOrderBody(email, documentId));
			expect(output).toHaveLength(1);
			expect(output[0].pairedItem).toEqual({ item: 0 });
			expect(output[0].json).toEqual({
				caseId: expect.any(String),
				caseInvitationId: expect.any(String),
			});

			const [read] = await run('case', 'get', { caseId: byId(output[0].json.caseId as string) });
			expect(read.json).toMatchObject({
				id: output[0].json.caseId,
				candidateEmail: email,
				candidateGivenName: 'Maria',
				candidateFamilyName: 'Garcia-López',
				packageId: HEALTHCARE_PACKAGE,
				apiTrackingCode: 'REQ-1001',
				isCustomerProvidedPii: 1,
			});
		});

		it('Create sends the ordering user as the karmacheck-on-behalf-of header', async () => {
			const email = `ordered.${Date.now()}@example.com`;
			await context.run(
				caseParameters({ candidateEmail: email, options: { orderedBy: ORDERED_BY } }),
			);
			const request = context.apiRequests().at(-1)!;
			expect(request).toMatchObject({ method: 'POST', path: '/case/create', status: 200 });
			expect(request.headers['karmacheck-on-behalf-of']).toBe(ORDERED_BY);
		});

		it('Create in the candidate onboarding flow sends the minimum, with the package picked from the list', async () => {
			const email = `ann.${Date.now()}@example.com`;
			const [created] = await context.run(
				caseParameters({ packageId: fromList(BASIC_CRIMINAL), candidateEmail: email }),
			);
			expectLastRequest('POST', '/case/create', {
				packageId: BASIC_CRIMINAL,
				email,
				givenName: 'Ann',
				familyName: "O'Neil",
			});
			expect(Object.keys(created.json).sort()).toEqual(['caseId', 'caseInvitationId']);
		});

		it('Get returns the case itself, picked from the list or by ID, with the names of its status IDs', async () => {
			const created = await orderCase(context);
			for (const caseId of [fromList(created.id), byId(created.id)]) {
				const output = await run('case', 'get', { caseId });
				expect(output).toHaveLength(1);
				expect(output[0].json).toMatchObject({
					id: created.id,
					candidateEmail: created.email,
					candidateGivenName: 'Ann',
					caseStatus: 'Pending',
					caseStatusName: 'Pending',
					secondaryStatusName: 'Waiting for Authorization',
				});
				expect(output[0].json).not.toHaveProperty('cases');
			}
			expect(requestLines()).toEqual(
				expect.arrayContaining([`GET /case/id/${created.id}`, `GET /case/id/${created.id}`]),
			);
		});

		it('Get Many returns the active cases, all of them with Return All and Limit applied here', async () => {
			const ids = [];
			for (let index = 0; index < 4; index++) ids.push((await orderCase(context)).id);
			const before = context.apiRequests().length;

			const all = await run('case', 'getMany', { returnAll: true });
			expect(all.map((item) => item.json.id)).toEqual(expect.arrayContaining(ids));
			expect(all.every((item) => (item.pairedItem as { item: number }).item === 0)).toBe(true);
			expect(await run('case', 'getMany', { limit: 3 })).toHaveLength(3);
			expect(requestLines().slice(before)).toEqual(['GET /case/list', 'GET /case/list']);
		});

		it('Get Many of all cases filters by package', async () => {
			const healthcare = await orderCase(context, { packageId: byId(HEALTHCARE) });
			const basic = await orderCase(context);
			const before = context.apiRequests().length;
			const output = await run('case', 'getMany', {
				scope: 'all',
				returnAll: true,
				filters: { packageId: HEALTHCARE },
			});
			const ids = output.map((item) => item.json.id);
			expect(ids).toContain(healthcare.id);
			expect(ids).not.toContain(basic.id);
			expect(requestLines().slice(before)).toEqual([`GET /case/list/all?packageId=${HEALTHCARE}`]);
		});

		it('Add Services posts services[].id with order data, and outputs what was added', async () => {
			const created = await orderCase(context, {
				packageId: byId(HEALTHCARE),
				excludeServices: [EDUCATION_VERIFICATION],
			});
			const education = {
				institution: 'Valley State University',
				city: 'Austin',
				state: 'TX',
				country: 'US',
				current: false,
				monthEnd: '05',
				yearEnd: '2015',
			};
			const [output] = await run('case', 'addServices', {
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
			expectLastRequest('POST', `/case/id/${created.id}/add/services`, {
				services: [{ id: EDUCATION_VERIFICATION }],
				orderData: [
					{
						caseOrderDataTypeId: 'codt-education',
						serviceId: EDUCATION_VERIFICATION,
						metadata: education,
					},
				],
				orderConfig: {
					serviceConfigs: { [EDUCATION_VERIFICATION]: { verificationMethod: 'psv' } },
				},
			});
			expect(output.json).toEqual({
				caseId: created.id,
				success: true,
				serviceIds: [EDUCATION_VERIFICATION],
			});
			const services = context.sandbox.admin
				.getCase(created.id)
				.caseData.map((caseData) => caseData.serviceId);
			expect(services).toContain(EDUCATION_VERIFICATION);
		});

		it('Get Data returns one item per case data of the service type, with status names and meanings', async () => {
			const created = await orderCase(context, { packageId: byId(HEALTHCARE) });
			const output = await run('case', 'getData', {
				caseId: byId(created.id),
				serviceTypeId: fromList(SCREENING),
			});
			expectLastRequest('GET', `/case/id/${created.id}/data/${SCREENING}`);
			expect(output.length).toBeGreaterThanOrEqual(2);
			for (const item of output) {
				const known = CASE_DATA_STATUSES.find((status) => status.statusId === item.json.statusId)!;
				expect(item.json).toMatchObject({
					caseId: created.id,
					serviceTypeId: SCREENING,
					statusName: known.status,
					statusMeaning: known.meaning,
				});
			}
			expect(output.map((item) => item.json.serviceId)).toEqual(
				expect.arrayContaining([SSN_TRACE, EMPLOYMENT_VERIFICATION]),
			);
			expect(output.find((item) => item.json.serviceId === SSN_TRACE)!.json).toMatchObject({
				statusId: PENDING.statusId,
			});
		});
	});

	describe('Case actions, candidate, invitation and adverse action', () => {
		/** Runs with Continue On Fail: a refusal comes out as the item's `error`. */
		const tryRun = (resource: string, operation: string, parameters: IDataObject) =>
			context.run({ resource, operation, ...parameters }, { continueOnFail: true });
		const writesTo = (method: string, path: string) =>
			context.apiRequests().filter((entry) => entry.method === method && entry.path === path);

		/** A case of the Basic Criminal package whose candidate's date of birth is known, so it can begin processing. */
		async function caseReadyToProcess(): Promise<string> {
			const created = await orderCase(context);
			const [updated] = await run('case', 'updateCandidateInfo', {
				caseId: byId(created.id),
				updateFields: { dob: '1980-02-22', phone: '+1 800 555-0164' },
			});
			expect(updated.json).toMatchObject({ caseId: created.id, updated: true });
			return created.id;
		}

		/** Begins processing and advances the case until it is Complete. */
		async function completedCase(caseId: string): Promise<void> {
			await run('case', 'beginProcessing', { caseId: byId(caseId) });
			for (let step = 0; step < 20 && context.sandbox.admin.advanceCase(caseId).advanced; step++);
			expect(context.sandbox.admin.getCase(caseId).caseStatus).toBe('Complete');
		}

		it('Cancel cancels a case waiting for its candidate, once; canceling it again gives the API’s 422 text', async () => {
			const created = await orderCase(context);
			const path = `/case/id/${created.id}/cancel`;
			const [canceled] = await run('case', 'cancel', { caseId: fromList(created.id) });
			expect(canceled.json).toEqual({ caseId: created.id, canceled: true });
			expectLastRequest('POST', path);
			expect(context.apiRequests().at(-1)!.body).toBeNull();

			const [again] = await tryRun('case', 'cancel', { caseId: byId(created.id) });
			expect(again.json.error).toBe('Unable to cancel case.');
			expect(again.json.errorDescription).toBe(
				`The API cancels a case only before it has started. (HTTP 422 on POST ${path})`,
			);
			expect(writesTo('POST', path).map((entry) => entry.status)).toEqual([200, 422]);
		});

		it('Cancel Services cancels a pending service; SSN Trace is refused while a county search needs it', async () => {
			const created = await orderCase(context);
			const path = `/case/id/${created.id}/services/cancel`;
			const [refused] = await tryRun('case', 'cancelServices', {
				caseId: byId(created.id),
				serviceIds: [SSN_TRACE],
			});
			expect(refused.json.error).toBe(
				'SSN Trace is required when County, State, or Federal Criminal Search are ordered.',
			);
			const [canceled] = await run('case', 'cancelServices', {
				caseId: byId(created.id),
				serviceIds: `${COUNTY_CRIMINAL}, ${COUNTY_CRIMINAL}`,
			});
			expectLastRequest('POST', path, { serviceIds: [COUNTY_CRIMINAL] });
			expect(canceled.json).toEqual({
				caseId: created.id,
				canceled: true,
				serviceIds: [COUNTY_CRIMINAL],
			});
			const county = context.sandbox.admin
				.getCase(created.id)
				.caseData.find((entry) => entry.serviceId === COUNTY_CRIMINAL)!;
			expect(county.status).toBe('canceled');
			expect(writesTo('POST', path)).toHaveLength(2);
		});

		it('Archive answers text "success" and takes the case out of the active cases; Unarchive brings it back', async () => {
			const created = await orderCase(context);
			const activeIds = async () =>
				(await run('case', 'getMany', { returnAll: true })).map((item) => item.json.id);

			const [archived] = await run('case', 'archive', { caseId: byId(created.id) });
			expect(archived.json).toEqual({ caseId: created.id, archived: true });
			expectLastRequest('POST', `/case/archive/${created.id}`);
			expect(await activeIds()).not.toContain(created.id);

			const [unarchived] = await run('case', 'unarchive', { caseId: byId(created.id) });
			expect(unarchived.json).toEqual({ caseId: created.id, unarchived: true });
			expect(await activeIds()).toContain(created.id);
			const [again] = await tryRun('case', 'unarchive', { caseId: byId(created.id) });
			expect(again.json.error).toMatch(/^Could not unarchive case/);
		});

		it('Begin Processing is refused until the date of birth is known, then starts the screenings and locks the personal data', async () => {
			const created = await orderCase(context);
			const [refused] = await tryRun('case', 'beginProcessing', { caseId: byId(created.id) });
			expect(refused.json.error).toMatch(/not ready to begin processing/);
			expect(refused.json.errorDescription).toMatch(/^The case is not ready to begin processing/);

			const [updated] = await run('case', 'updateCandidateInfo', {
				caseId: byId(created.id),
				updateFields: { dob: '1980-02-22' },
			});
			const candidateId = updated.json.candidateId as string;
			expect(requestLines().slice(-2)).toEqual([
				`GET /case/id/${created.id}`,
				`POST /candidate/id/${candidateId}/update/case/id/${created.id}`,
			]);
			const [begun] = await run('case', 'beginProcessing', { caseId: byId(created.id) });
			expect(begun.json).toEqual({ caseId: created.id, processingBegun: true });
			expectLastRequest('PUT', `/case/id/${created.id}/action/beginprocessing`);

			const [locked] = await tryRun('case', 'updateCandidateInfo', {
				caseId: byId(created.id),
				candidateId,
				updateFields: { givenName: 'Annie' },
			});
			expect(locked.json.errorDescription).toMatch(
				/^The request held no update the API could apply/,
			);
			const [info] = await run('case', 'getCandidateInfo', { caseId: byId(created.id) });
			expect(info.json).toMatchObject({ id: candidateId, dob: '1980-02-22', piiLocked: 1 });
			expect(info.json).not.toHaveProperty('password');
		});

		it('Start Pre-Adverse Action on a complete case with a finding, then Place', async () => {
			const caseId = await caseReadyToProcess();
			context.sandbox.admin.scriptCase(caseId, {
				services: { [SSN_TRACE]: { finalStatus: 'consider' } },
			});
			const [early] = await tryRun('adverseAction', 'startPreAdverse', {
				caseId: byId(caseId),
				reason: 'Records found',
			});
			expect(early.json.error).toMatch(/^The case cannot be put into Pre-Adverse Action/);
			await completedCase(caseId);

			const [started] = await run('adverseAction', 'startPreAdverse', {
				caseId: byId(caseId),
				reason: 'Records found in the SSN Trace.',
				adverseScreeningSelections: [SSN_TRACE],
			});
			expectLastRequest('POST', `/case/id/${caseId}/action/preadverse`, {
				reason: 'Records found in the SSN Trace.',
				adverseScreeningSelections: [SSN_TRACE],
			});
			expect(started.json).toEqual({
				caseId,
				preAdverseActionStarted: true,
				reason: 'Records found in the SSN Trace.',
				adverseScreeningSelections: [SSN_TRACE],
			});
			const [read] = await run('case', 'get', { caseId: byId(caseId) });
			expect(read.json).toMatchObject({ adverseActionStatusName: 'Pre-Adverse' });

			const [placed] = await run('case', 'place', { caseId: byId(caseId) });
			expect(placed.json).toEqual({ caseId, placed: true });
			expectLastRequest('PUT', `/case/id/${caseId}/action/place`);
			const [after] = await run('case', 'get', { caseId: byId(caseId) });
			expect(after.json).toMatchObject({ caseStatus: 'Adjudicated', resultType: 'Placed' });
		});

		it('Place is refused for a case that is not complete', async () => {
			const created = await orderCase(context);
			const [refused] = await tryRun('case', 'place', { caseId: byId(created.id) });
			expect(refused.json.error).toMatch(/^The case could not be put into Placed/);
			expect(refused.json.errorDescription).toMatch(/^The case is not ready to be placed/);
		});

		it('Get Services lists the services ordered for the case, of one type or all', async () => {
			const created = await orderCase(context, { packageId: byId(HEALTHCARE) });
			const all = await run('case', 'getServices', {
				caseId: byId(created.id),
				returnAll: true,
			});
			expect(all.map((item) => item.json.serviceId)).toEqual(
				expect.arrayContaining([SSN_TRACE, EMPLOYMENT_VERIFICATION]),
			);
			for (const item of all) expect(item.json.caseId).toBe(created.id);
			const screenings = await run('case', 'getServices', {
				caseId: byId(created.id),
				serviceType: 'screenings',
				returnAll: true,
			});
			expect(screenings.length).toBeGreaterThan(0);
			for (const item of screenings) expect(item.json.serviceTypeId).toBe(SCREENING);
			expect(await run('case', 'getServices', { caseId: byId(created.id), limit: 1 })).toHaveLength(
				1,
			);
			expect(requestLines()).toEqual(
				expect.arrayContaining([
					`GET /case/id/${created.id}/services`,
					`GET /case/id/${created.id}/services/screenings`,
				]),
			);
		});

		it('Get Order Configuration returns the case’s configuration with its ID', async () => {
			const created = await orderCase(context, {
				orderConfig: { aliasNameConfiguration: 'alias-all' },
			});
			const [config] = await run('case', 'getOrderConfiguration', { caseId: byId(created.id) });
			expectLastRequest('GET', `/config/case/id/${created.id}`);
			expect(config.json).toMatchObject({
				caseId: created.id,
				aliasNameConfiguration: { rawValue: 'alias-all' },
			});
		});

		it('Get Candidate Info says when no candidate is linked yet', async () => {
			const created = await orderCase(context);
			const [missing] = await tryRun('case', 'getCandidateInfo', { caseId: byId(created.id) });
			expect(missing.json.error).toEqual(expect.any(String));
			expect(missing.json.errorDescription).toMatch(/^No candidate is linked to the case yet/);
		});

		it('Invitation Get, Refresh and Resend: the invitation without its token, a new one sent to its email', async () => {
			const created = await orderCase(context);
			const [invitation] = await run('invitation', 'get', { caseId: byId(created.id) });
			expectLastRequest('GET', `/invitation/case/${created.id}`);
			expect(invitation.json).toMatchObject({
				caseId: created.id,
				id: created.caseInvitationId,
				email: created.email,
			});
			expect(invitation.json).not.toHaveProperty('invitationToken');

			const [refreshed] = await run('invitation', 'refresh', { caseId: byId(created.id) });
			expect(refreshed.json).toEqual({ caseId: created.id, refreshed: true });
			expectLastRequest('PUT', `/case/id/${created.id}/action/refreshinvite`);

			const [resent] = await run('invitation', 'resend', { caseId: byId(created.id) });
			expect(resent.json).toEqual({ caseId: created.id, resent: true, email: created.email });
			expectLastRequest('POST', `/case/id/${created.id}/action/resendinvite`, {
				email: created.email,
			});
			const newEmail = `new.${Date.now()}@example.com`;
			await run('invitation', 'resend', { caseId: byId(created.id), newEmail });
			expectLastRequest('POST', `/case/id/${created.id}/action/resendinvite`, {
				email: newEmail,
			});
			const [after] = await run('invitation', 'get', { caseId: byId(created.id) });
			expect(after.json.id).not.toBe(created.caseInvitationId);
			expect(after.json.email).toBe(newEmail);
		});
	});

	describe('Case Data', () => {
		it('Cancel Search posts to the search record with no body and outputs what was canceled', async () => {
			const created = await orderCase(context, { packageId: byId(HEALTHCARE) });
			const caseData = context.sandbox.admin
				.getCase(created.id)
				.caseData.find((entry) => entry.serviceId === EMPLOYMENT_VERIFICATION)!;
			const searches = JSON.parse(caseData.details as string) as {
				records: Array<{ searchId: string }>;
			};
			const searchId = searches.records[0].searchId;

			const [output] = await run('caseData', 'cancelSearch', { caseDataId: caseData.id, searchId });
			const request = context.apiRequests().at(-1)!;
			expect(request).toMatchObject({
				method: 'POST',
				path: `/case/data/id/${caseData.id}/search/id/${searchId}/cancel`,
			});
			expect([200, 204]).toContain(request.status);
			expect(request.body).toBeNull();
			expect(output.json).toEqual({ caseDataId: caseData.id, searchId, success: true });
		});
	});

	describe('Package', () => {
		it('Get Services returns one item per service of the package, cut to the limit unless Return All', async () => {
			const all = await run('package', 'getServices', {
				packageId: fromList(BASIC_CRIMINAL),
				returnAll: true,
			});
			expect(all.map((item) => item.json.serviceId)).toEqual([
				SSN_TRACE,
				'd8e3dbdb-c2d7-4787-9736-86fffab74da4',
				'fa226cb7-1214-4cdf-9296-6120a7376926',
				'03635d39-c9df-418f-948d-10d38a7e06db',
			]);
			expect(all[0].json).toMatchObject({ serviceName: 'SSN Trace', serviceId: SSN_TRACE });
			expect(
				await run('package', 'getServices', { packageId: byId(BASIC_CRIMINAL), limit: 2 }),
			).toHaveLength(2);
			const line = `GET /package/id/${BASIC_CRIMINAL}/services`;
			expect(requestLines()).toEqual([line, line]);
		});
	});

	describe('Secure Document', () => {
		// The sandbox refuses a PUT with an Authorization header, and a create whose file was not PUT (it logs
		// the API's requests, not the storage's).
		it('Upload asks for an upload address, PUTs the file there without the token, and creates the document', async () => {
			const content = Buffer.from('%PDF-1.4 diploma scan');
			const created = await orderCase(context);
			const before = context.apiRequests().length;
			const file = itemWithFile('diploma.PDF', content, 'application/pdf');
			const [output] = await uploadDocuments([file], {
				options: { accessCaseId: created.id, description: 'Nursing diploma' },
			});
			const [upload, create, ...others] = context.apiRequests().slice(before);
			expect(others).toEqual([]);
			expect(upload).toMatchObject({
				method: 'POST',
				path: '/document/secure/upload',
				status: 200,
			});
			expect(upload.body).toEqual({
				files: [
					{
						documentTypeId: 'candidate-disclosures-and-authorizations',
						mimeType: 'application/pdf',
					},
				],
			});
			expect(create).toMatchObject({
				method: 'POST',
				path: '/document/secure/create',
				status: 200,
			});
			expect(create.body).toEqual({
				list: [
					{
						originalFileName: 'diploma.PDF',
						documentTypeId: 'candidate-disclosures-and-authorizations',
						fileKey: expect.any(String),
						fileFormat: 'pdf',
						description: 'Nursing diploma',
					},
				],
				accessGrants: { caseId: created.id },
			});
			expect(output.json).toMatchObject({
				secureDocumentId: expect.any(String),
				originalFileName: 'diploma.PDF',
				fileFormat: 'pdf',
				caseId: created.id,
			});
			expect(output.pairedItem).toEqual({ item: 0 });
		});

		it('Upload sends one file per named binary field, in one request per step', async () => {
			const item = itemWithFile('front.png', Buffer.from('front'), 'image/png', 'front');
			item.binary!.back = itemWithFile('back.jpg', Buffer.from('back'), 'image/jpeg').binary!.data;
			const output = await uploadDocuments([item], { binaryPropertyName: 'front, back' });
			expect(output.map((entry) => [entry.json.originalFileName, entry.json.fileFormat])).toEqual([
				['front.png', 'png'],
				['back.jpg', 'jpg'],
			]);
			expect(new Set(output.map((entry) => entry.json.secureDocumentId)).size).toBe(2);
			expect(requestLines()).toEqual([
				'POST /document/secure/upload',
				'POST /document/secure/create',
			]);
		});
	});

	describe('Verification Book', () => {
		const search = (parameters: IDataObject) => run('verificationBook', 'search', parameters);

		it('Search advances the page with Return All until the last page', async () => {
			const output = await search({ entryType: 'vbt_education', returnAll: true });
			expect(output.length).toBeGreaterThan(0);
			expect(new Set(output.map((item) => item.json.id)).size).toBe(output.length);
			const pages = context.apiRequests().map((entry) => entry.body as IDataObject);
			expect(pages.map((body) => (body.listMetadata as IDataObject).page)).toEqual(
				pages.map((_body, index) => index),
			);
			for (const body of pages)
				expect(body.searchDetails).toEqual({ vbookTypeId: 'vbt_education' });
		});

		it('Search sends the name and book, and reads one page of the limit’s size', async () => {
			const output = await search({ entryType: 'vbt_education', query: 'University', limit: 3 });
			expect(output.length).toBeGreaterThan(0);
			expect(output.length).toBeLessThanOrEqual(3);
			for (const item of output) expect(item.json.name).toMatch(/University/);
			expect(context.apiRequests().map((entry) => entry.body)).toEqual([
				{
					searchDetails: { vbookTypeId: 'vbt_education', nameQuery: 'University' },
					listMetadata: { page: 0, pageSize: 3 },
				},
			]);
		});
	});

	describe('Testimony and CPLC', () => {
		it('Create, Update and Get Definitions work together on one case', async () => {
			const created = await orderCase(context, { packageId: byId(HEALTHCARE) });
			const caseId = byId(created.id);

			const [testimony] = await context.run(nurseTestimonyParameters(caseId));
			expectLastRequest('POST', `/testimony/create/case/id/${created.id}`, nurseTestimonyBody());
			expect(testimony.json).toEqual({
				id: expect.any(String),
				caseId: created.id,
				testimonyTypeId: 'testimony-type-cplc',
			});

			const [updated] = await run('testimony', 'update', {
				...nurseTestimonyParameters(fromList(created.id)),
				operation: 'update',
				testimonyId: testimony.json.id,
				licenseFields: { state: 'OK' },
			});
			const update = nurseTestimonyBody();
			update.details.fields = update.details.fields
				.filter((field) => field.fieldId !== 'expirationDate')
				.map((field) => (field.fieldId === 'state' ? { ...field, value: 'OK' } : field));
			expectLastRequest(
				'POST',
				`/testimony/id/${testimony.json.id}/update/case/id/${created.id}`,
				update,
			);
			expect(updated.json).toMatchObject({ id: expect.any(String), caseId: created.id });

			const employment = await run('testimony', 'create', {
				caseId,
				testimonyTypeId: 'aa99dc08-0238-4050-9176-bf322e077f71',
				details: JSON.stringify({
					employer: 'Acme',
					city: 'Austin',
					state: 'TX',
					country: 'US',
					current: true,
					position: 'Driver',
					monthBegin: '04',
					yearBegin: '2019',
					monthEnd: '',
					yearEnd: '',
				}),
			});
			expect(employment[0].json.id).toEqual(expect.any(String));

			const definitions = await run('cplc', 'getDefinitions', { caseId });
			expectLastRequest('GET', `/service/cplc/case/id/${created.id}`);
			expect(definitions.map((item) => item.json.id)).toContain('cplc-registered-nurse');
			const ordinals = (definitions[0].json.fields as Array<{ ordinal: number }>).map(
				(field) => field.ordinal,
			);
			expect(ordinals).toEqual([...ordinals].sort((a, b) => a - b));
		});
	});

	describe('Reference lists', () => {
		it('Shipment Mask > Get Many returns the masks', async () => {
			const output = await run('shipmentMask', 'getMany', { returnAll: true });
			expect(output.length).toBeGreaterThan(0);
			for (const item of output)
				expect(item.json).toEqual({
					sku: expect.any(String),
					name: expect.any(String),
					inStock: expect.any(Boolean),
				});
			expect(requestLines()).toEqual(['GET /shipment/mask/list']);
		});

		it('Company User > Get Many returns the users of the credential’s group, cut to the limit', async () => {
			const output = await run('companyUser', 'getMany', { limit: 1 });
			expect(output).toHaveLength(1);
			expect(output[0].json).toMatchObject({
				id: expect.any(String),
				givenName: expect.any(String),
				familyName: expect.any(String),
			});
			expect(requestLines()).toEqual(['GET /company/user/list']);
		});
	});
});

it('Create excludes a service of the package', async () => {
	const created = await orderCase(context, {
		packageId: byId(HEALTHCARE),
		excludeServices: [FACIS],
	});
	const services = context.sandbox.admin
		.getCase(created.id)
		.caseData.map((caseData) => caseData.serviceId);
	expect(services).not.toContain(FACIS);
	expect(services).toContain(SSN_TRACE);
});
