/* eslint-disable @typescript-eslint/no-explicit-any -- sandbox answers are read as loose JSON */
/**
 * What a client does with a case after ordering it, as the sandbox serves it by the API reference: cancel it or
 * its services, archive, begin processing, place, pre-adverse action, the candidate and the invitation, the
 * configuration, reports and documents (pre-signed URLs on the sandbox's storage), the countries.
 */
import { errorExample } from '../../api/contract';
import { SERVICE_TYPES } from '../../nodes/shared/catalog';
import { DEMO_GROUPS } from '../../sandbox';
import {
	CASE_ALREADY_STARTED,
	INVALID_CASE,
	SERVICE_CANNOT_BE_CANCELED,
	SSN_TRACE_REQUIRED,
	UNABLE_TO_CANCEL,
} from '../../sandbox/routes/caseActions';
import { caseBody, orderOf, tokenFor, useReceiver, useSandboxClient } from '../helpers/sandbox';

const REPORT_BYTES = 64 * 1024;
const client = useSandboxClient({ reportPdfBytes: REPORT_BYTES });
const receiver = useReceiver();
beforeEach(() => client.admin.createSubscription({ url: receiver.url }));

const SSN_TRACE = '29cd44ab-a8f0-4b27-868e-dc4be88ff541';
const NATIONAL = 'd8e3dbdb-c2d7-4787-9736-86fffab74da4';
const COUNTY = 'fa226cb7-1214-4cdf-9296-6120a7376926';
const EMPLOYMENT = '9ac65633-b4c4-4062-875c-3556db9d2a08';
const EDUCATION = '85307784-1f84-471a-8596-c8ea088c3a62';
const DRUG_PANEL = 'service-drug-10-panel';
const SCREENING = SERVICE_TYPES.find((type) => type.name === 'Screening')!.id;
const DAY_SECONDS = 24 * 3600;

/** A case of the customer-provided-PII flow, its candidate's date of birth and government ID given. */
const customerPiiBody = (overrides: Record<string, unknown> = {}) =>
	caseBody({
		autoProcess: true,
		candidateConsentProvided: true,
		orderData: [
			{ caseOrderDataTypeId: 'codt-dob', metadata: { dob: '1985-02-03' } },
			{ caseOrderDataTypeId: 'codt-govt-id', metadata: { govtId: '111-22-3333' } },
		],
		...overrides,
	});

const adminCase = (caseId: string) => client.admin.getCase(caseId);

/** Moves a case on (admin) until it has reached `step` of the lifecycle (4: Complete). */
function advanceTo(caseId: string, step: 2 | 3 | 4): void {
	const reached = (record: any) =>
		step === 4
			? record.caseStatus === 'Complete'
			: step === 3
				? record.caseStatus !== 'Pending' || record.secondaryStatus === undefined
				: record.secondaryStatus !== 'Waiting for Authorization';
	for (let guard = 0; guard < 20 && !reached(adminCase(caseId)); guard++)
		client.admin.advanceCase(caseId);
	expect(reached(adminCase(caseId))).toBe(true);
}

const put = (path: string) => client.call('PUT', path);
const post = (path: string, body?: unknown) => client.call('POST', path, { body });
const get = (path: string) => client.call('GET', path);

/** The events received for a case, in order, after every delivery has its outcome. */
async function eventsOf(caseId: string, event = 'case.statuschange'): Promise<any[]> {
	await client.admin.idle();
	return receiver.received
		.map((hook) => hook.json)
		.filter(
			(json) =>
				json.event === event &&
				(event === 'case.statuschange' ? json.eventObject.id : json.eventObject.caseId) === caseId,
		)
		.map((json) => json.eventObject);
}

/** A GET outside the API (a pre-signed URL): status, type, disposition and the bytes. */
async function download(url: string, headers: Record<string, string> = {}) {
	const response = await fetch(url, { headers });
	return {
		status: response.status,
		contentType: response.headers.get('content-type'),
		disposition: response.headers.get('content-disposition'),
		bytes: Buffer.from(await response.arrayBuffer()),
	};
}

/** An API GET answered with bytes (a PDF): as `download`, with the bearer token. */
const apiBytes = (path: string) =>
	download(`${client.sandbox.url}${path}`, { authorization: `Bearer ${client.token}` });

const isPdf = (bytes: Buffer) =>
	bytes.subarray(0, 5).toString('latin1') === '%PDF-' &&
	bytes.subarray(-6).toString('latin1') === '%%EOF\n';

describe('the reference error texts', () => {
	it('come from the contract, as the reference gives them', () => {
		expect(CASE_ALREADY_STARTED).toBe('Cannot cancel a case that has already started.');
		expect(UNABLE_TO_CANCEL).toBe('Unable to cancel case.');
		expect(SERVICE_CANNOT_BE_CANCELED).toBe('Service cannot be canceled.');
		expect(SSN_TRACE_REQUIRED).toBe(
			'SSN Trace is required when County, State, or Federal Criminal Search are ordered.',
		);
		expect(INVALID_CASE).toBe('Invalid case');
		expect(errorExample('POST', '/case/id/{caseId}/cancel', 422)).toBe(CASE_ALREADY_STARTED);
	});
});

describe('POST /case/id/{caseId}/cancel', () => {
	it('cancels a case waiting for its candidate: Complete / Canceled, its services canceled, webhooks sent, no more moves', async () => {
		const created = await client.createCase(caseBody(orderOf(SSN_TRACE, NATIONAL)));
		client.admin.advanceCase(created.id); // onboarding began: still before processing
		const canceled = await post(`/case/id/${created.id}/cancel`);
		expect(canceled).toMatchObject({ status: 200, body: '' });

		const read = await client.getCase(created.id);
		expect(read).toMatchObject({
			caseStatus: 'Complete',
			secondaryStatus: 'Canceled',
			secondaryCaseStatusId: '4155584b-708c-4108-86a8-8f3321b9b17c',
			invitationStatusName: 'cancelled',
		});
		const caseData = await client.getCaseData(created.id);
		expect(caseData.map((entry) => entry.status)).toEqual(['canceled', 'canceled']);
		const events = await eventsOf(created.id);
		expect(events.at(-1)).toMatchObject({ caseStatus: 'Complete', secondaryStatus: 'Canceled' });
		expect(
			(await eventsOf(created.id, 'casedata.statuschange')).map((event) => event.status),
		).toEqual(['canceled', 'canceled']);

		await client.admin.advanceClock(3600);
		expect(client.admin.advanceCase(created.id).advanced).toBe(false);
		expect((await client.getCase(created.id)).secondaryStatus).toBe('Canceled');
		// Nothing can be added to it any more.
		const added = await post(`/case/id/${created.id}/add/services`, { services: [{ id: COUNTY }] });
		expect(added).toMatchObject({
			status: 422,
			body: { message: ['The case is Canceled: no service can be added'] },
		});
	});

	it("refuses a case that began processing, and one canceled already, with the reference's texts", async () => {
		const started = await client.createCase();
		advanceTo(started.id, 3);
		const late = await post(`/case/id/${started.id}/cancel`);
		expect(late.status).toBe(422);
		expect(late.body).toEqual({
			message: 'Cannot cancel a case that has already started.',
			error: 'Unprocessable Entity',
			statusCode: 422,
		});

		const waiting = await client.createCase();
		expect((await post(`/case/id/${waiting.id}/cancel`)).status).toBe(200);
		const again = await post(`/case/id/${waiting.id}/cancel`);
		expect(again).toMatchObject({ status: 422, body: { message: 'Unable to cancel case.' } });
	});

	it('answers 404 for an unknown case and for another group’s (it declares no 403), 401 without a token', async () => {
		expect((await post('/case/id/no-such-case/cancel')).status).toBe(404);
		const west = await tokenFor(client.sandbox, 1);
		const theirs = await client.call('POST', '/case/create', { token: west, body: caseBody() });
		expect((await post(`/case/id/${theirs.body.caseId}/cancel`)).status).toBe(404);
		const anonymous = await client.call('POST', `/case/id/${theirs.body.caseId}/cancel`, {
			token: undefined,
		});
		expect(anonymous.status).toBe(401);
	});
});

describe('POST /case/id/{caseId}/services/cancel', () => {
	it('cancels pending services; a processing case left with none pending completes', async () => {
		const created = await client.createCase(caseBody(orderOf(SSN_TRACE, NATIONAL)));
		expect(
			(await post(`/case/id/${created.id}/services/cancel`, { serviceIds: [NATIONAL] })).status,
		).toBe(200);
		const [ssn, national] = await client.getCaseData(created.id);
		expect([ssn.status, national.status]).toEqual(['pending', 'canceled']);
		expect(await eventsOf(created.id, 'casedata.statuschange')).toEqual([
			expect.objectContaining({ serviceId: NATIONAL, status: 'canceled' }),
		]);

		advanceTo(created.id, 3);
		expect((await client.getCase(created.id)).caseStatus).toBe('Pending');
		expect(
			(await post(`/case/id/${created.id}/services/cancel`, { serviceIds: [SSN_TRACE] })).status,
		).toBe(200);
		expect((await client.getCase(created.id)).caseStatus).toBe('Complete');
	});

	it("refuses a finished service, one the case does not have, and SSN Trace without the criminal searches, with the reference's texts", async () => {
		const created = await client.createCase(caseBody(orderOf(SSN_TRACE, NATIONAL, COUNTY)));
		const ssnAlone = await post(`/case/id/${created.id}/services/cancel`, {
			serviceIds: [SSN_TRACE],
		});
		expect(ssnAlone).toMatchObject({
			status: 422,
			body: {
				message:
					'SSN Trace is required when County, State, or Federal Criminal Search are ordered.',
			},
		});
		const unknown = await post(`/case/id/${created.id}/services/cancel`, {
			serviceIds: [EDUCATION],
		});
		expect(unknown).toMatchObject({
			status: 422,
			body: { message: 'Service cannot be canceled.' },
		});
		// With the criminal search it is required for, SSN Trace can go.
		expect(
			(await post(`/case/id/${created.id}/services/cancel`, { serviceIds: [SSN_TRACE, COUNTY] }))
				.status,
		).toBe(200);

		advanceTo(created.id, 4);
		const done = await post(`/case/id/${created.id}/services/cancel`, { serviceIds: [NATIONAL] });
		expect(done).toMatchObject({ status: 422, body: { message: 'Service cannot be canceled.' } });
		expect((await post('/case/id/nope/services/cancel', { serviceIds: [NATIONAL] })).status).toBe(
			404,
		);
		// The body is the reference's: serviceIds required.
		expect((await post(`/case/id/${created.id}/services/cancel`, {})).status).toBe(422);
	});
});

describe('archive and unarchive', () => {
	it('archive answers text "success" and sets archived; the lists follow; unarchive reverses it', async () => {
		const created = await client.createCase();
		const archived = await post(`/case/archive/${created.id}`);
		expect(archived).toMatchObject({ status: 200, body: 'success' });
		expect(archived.contentType).toMatch(/^text\/plain/);
		expect((await client.getCase(created.id)).archived).toBe(1);
		expect((await get('/case/list')).body.cases).toEqual([]);
		expect((await get('/case/list/all')).body.cases.map((entry: any) => entry.id)).toEqual([
			created.id,
		]);
		// Archiving twice is still a success.
		expect((await post(`/case/archive/${created.id}`)).status).toBe(200);

		expect(await post(`/case/unarchive/${created.id}`)).toMatchObject({ status: 200, body: '' });
		expect((await client.getCase(created.id)).archived).toBe(0);
		expect((await get('/case/list')).body.cases).toHaveLength(1);
	});

	it('refuses: archive of an unknown case 404 "Invalid case" as text, another group’s 403; unarchive of one not archived 422, of an unknown one 403', async () => {
		const unknown = await post('/case/archive/no-such-case');
		expect(unknown).toMatchObject({ status: 404, body: 'Invalid case' });
		expect(unknown.contentType).toMatch(/^text\/plain/);
		const west = await tokenFor(client.sandbox, 1);
		const theirs = await client.call('POST', '/case/create', { token: west, body: caseBody() });
		expect((await post(`/case/archive/${theirs.body.caseId}`)).status).toBe(403);

		const created = await client.createCase();
		expect(await post(`/case/unarchive/${created.id}`)).toMatchObject({
			status: 422,
			body: { message: 'Could not unarchive case: it is not archived' },
		});
		expect((await post('/case/unarchive/no-such-case')).status).toBe(403);
	});
});

describe('PUT /case/id/{caseId}/action/beginprocessing', () => {
	it('starts a customer-provided-PII case at once: Pending with no secondary status, with its webhook and stamps', async () => {
		const created = await client.createCase(customerPiiBody());
		expect((await put(`/case/id/${created.id}/action/beginprocessing`)).status).toBe(200);
		const read = await client.getCase(created.id);
		expect(read.caseStatus).toBe('Pending');
		expect(read.secondaryStatus).toBeUndefined();
		expect(read.beginProcessingStamp).toBe(read.modStamp);
		expect((await eventsOf(created.id)).map((event) => event.secondaryStatus)).toEqual([
			'Waiting for Authorization',
			null,
		]);
		// It moves on by itself from there.
		advanceTo(created.id, 4);

		const again = await put(`/case/id/${created.id}/action/beginprocessing`);
		expect(again).toMatchObject({
			status: 422,
			body: { message: 'The case has already begun processing' },
		});
	});

	it('refuses an invited case whose candidate gave no date of birth yet; takes it once one is given, or once onboarding began', async () => {
		const invited = await client.createCase();
		const early = await put(`/case/id/${invited.id}/action/beginprocessing`);
		expect(early.status).toBe(422);
		expect(early.body.message).toMatch(/^The case is not ready to begin processing/);
		const update = await post(`/candidate/id/${invited.candidateId}/update/case/id/${invited.id}`, {
			dob: '1979-12-31',
		});
		expect(update.status).toBe(200);
		expect((await put(`/case/id/${invited.id}/action/beginprocessing`)).status).toBe(200);

		const onboarding = await client.createCase();
		client.admin.advanceCase(onboarding.id);
		expect((await put(`/case/id/${onboarding.id}/action/beginprocessing`)).status).toBe(200);
		expect((await put('/case/id/no-such-case/action/beginprocessing')).status).toBe(403);
	});
});

describe('PUT /case/id/{caseId}/action/place', () => {
	it('places a complete case: Adjudicated, result Placed, with its webhook; refuses a pending, a placed and an unknown case', async () => {
		const created = await client.createCase();
		const pending = await put(`/case/id/${created.id}/action/place`);
		expect(pending).toMatchObject({
			status: 422,
			body: { message: 'The case could not be put into Placed: the case is not complete' },
		});
		advanceTo(created.id, 4);
		expect((await put(`/case/id/${created.id}/action/place`)).status).toBe(200);
		expect(await client.getCase(created.id)).toMatchObject({
			caseStatus: 'Adjudicated',
			caseStatusId: '47463524-937e-46b1-8799-873f63e7b402',
			resultType: 'Placed',
			resultTypeId: 'bbbd9fa2-598f-43f6-8363-b8b55e7aa777',
		});
		expect((await eventsOf(created.id)).at(-1)).toMatchObject({
			caseStatus: 'Adjudicated',
			resultType: 'Placed',
		});
		expect((await put(`/case/id/${created.id}/action/place`)).body.message).toBe(
			'The case could not be put into Placed: the case is Placed already',
		);
		expect((await put('/case/id/no-such-case/action/place')).status).toBe(404);
	});
});

describe('pre-adverse action', () => {
	it('begins on a complete case with results to review; its documents follow; placing it ends the process', async () => {
		const created = await client.createCase(caseBody(orderOf(SSN_TRACE, NATIONAL), '+consider'));
		advanceTo(created.id, 4);
		const before = await get(`/case/id/${created.id}/preadverse/notice/pdf`);
		expect(before).toMatchObject({
			status: 422,
			body: { message: 'The case is not in an adverse action process.' },
		});

		const reason = 'Record found in the national criminal search';
		const begun = await post(`/case/id/${created.id}/action/preadverse`, {
			reason,
			adverseScreeningSelections: [NATIONAL],
		});
		expect(begun.status).toBe(200);
		const read = await client.getCase(created.id);
		expect(read).toMatchObject({
			caseStatus: 'Adjudicated',
			resultType: 'Pre-Adverse Action',
			resultTypeId: '14bba02d-e6c7-45bf-a993-e28c306303c6',
			adverseActionStatusName: 'Pre-Adverse',
			adverseActionStatusId: 'bb34dc52-4e3b-4baf-8e0b-b6603f9e2a84',
		});
		expect((await eventsOf(created.id)).at(-1)).toMatchObject({
			caseStatus: 'Adjudicated',
			resultType: 'Pre-Adverse Action',
		});

		const notice = await apiBytes(`/case/id/${created.id}/preadverse/notice/pdf`);
		expect(notice).toMatchObject({ status: 200, contentType: 'application/pdf' });
		expect(notice.disposition).toMatch(/^inline/);
		expect(isPdf(notice.bytes)).toBe(true);
		expect(notice.bytes.includes(reason)).toBe(true);
		expect(notice.bytes.includes('National Criminal Search')).toBe(true);
		const report = await apiBytes(`/case/id/${created.id}/preadverse/report/pdf/download`);
		expect(report.disposition).toMatch(/^attachment/);
		expect(report.bytes.length).toBe(REPORT_BYTES);
		expect(isPdf(report.bytes)).toBe(true);
		expect(report.bytes.includes('National Criminal Search: Consider')).toBe(true);
		// `type` is notice or report: anything else is refused (422, the status the operation declares).
		expect((await get(`/case/id/${created.id}/preadverse/letter/pdf`)).status).toBe(422);

		const twice = await post(`/case/id/${created.id}/action/preadverse`, {});
		expect(twice.body.message).toBe(
			'The case cannot be put into Pre-Adverse Action: the case is Pre-Adverse Action already',
		);
		expect((await put(`/case/id/${created.id}/action/place`)).status).toBe(200);
		expect(await client.getCase(created.id)).toMatchObject({
			resultType: 'Placed',
			adverseActionStatusName: 'Cancel',
		});
	});

	it('takes no body (the reference calls it optional); refuses a pending case, one with nothing to review, unknown selections and an unknown case', async () => {
		const pending = await client.createCase(caseBody({}, '+consider'));
		expect((await post(`/case/id/${pending.id}/action/preadverse`)).body.message).toBe(
			'The case cannot be put into Pre-Adverse Action: the case is not complete',
		);
		const clear = await client.createCase();
		advanceTo(clear.id, 4);
		expect((await post(`/case/id/${clear.id}/action/preadverse`)).status).toBe(422);

		advanceTo(pending.id, 4);
		const unknown = await post(`/case/id/${pending.id}/action/preadverse`, {
			adverseScreeningSelections: [DRUG_PANEL],
		});
		expect(unknown.body.message).toMatch(/names services the case does not have: service-drug/);
		expect((await post(`/case/id/${pending.id}/action/preadverse`)).status).toBe(200);
		expect((await post('/case/id/no-such-case/action/preadverse')).status).toBe(404);
	});
});

describe('case reports: a pre-signed URL on the sandbox storage, valid 60 s', () => {
	it('GET answers the URL as text/html; the URL serves the case report PDF without a token until it expires', async () => {
		const created = await client.createCase(customerPiiBody());
		const early = await get(`/case/id/${created.id}/report/pdf/download/url`);
		expect(early).toMatchObject({
			status: 422,
			body: { message: 'The report is not ready: the case has not begun processing' },
		});
		advanceTo(created.id, 4);

		const answer = await get(`/case/id/${created.id}/report/pdf/download/url`);
		expect(answer.status).toBe(200);
		expect(answer.contentType).toMatch(/^text\/html/);
		const url = new URL(answer.body);
		expect(url.origin).toBe(client.sandbox.url);
		expect(url.pathname).toMatch(/^\/storage\/downloads\/[^/]+\/[^/]+-report\.pdf$/);

		const first = await download(answer.body);
		expect(first).toMatchObject({ status: 200, contentType: 'application/pdf' });
		expect(first.bytes.length).toBe(REPORT_BYTES);
		expect(isPdf(first.bytes)).toBe(true);
		expect(first.bytes.includes(created.id)).toBe(true);
		// Any number of downloads while it is valid, never with an Authorization header.
		expect((await download(answer.body)).bytes.equals(first.bytes)).toBe(true);
		expect((await download(answer.body, { authorization: `Bearer ${client.token}` })).status).toBe(
			403,
		);
		const forged = new URL(answer.body);
		forged.searchParams.set('signature', 'x'.repeat(43));
		expect((await download(forged.toString())).status).toBe(403);

		// The URL's 60 seconds are real seconds: a sandbox clock moved a day ahead does not end them.
		await client.admin.advanceClock(24 * 3600);
		expect((await download(answer.body)).status).toBe(200);
		const issuedAt = Date.now();
		client.admin.setStorageClock(() => issuedAt + 59_000);
		expect((await download(answer.body)).status).toBe(200);
		client.admin.setStorageClock(() => issuedAt + 61_000);
		const expired = await download(answer.body);
		client.admin.setStorageClock(undefined);
		expect(expired.status).toBe(403);
		expect(JSON.parse(expired.bytes.toString()).message).toBe('Request has expired');

		// Another case's report is another file.
		const other = await client.createCase(customerPiiBody());
		advanceTo(other.id, 4);
		const otherUrl = (await get(`/case/id/${other.id}/report/pdf/download/url`)).body;
		const otherBytes = (await download(otherUrl)).bytes;
		expect(otherBytes.length).toBe(REPORT_BYTES);
		expect(otherBytes.equals(first.bytes)).toBe(false);
		expect((await get('/case/id/no-such-case/report/pdf/download/url')).status).toBe(404);
	});

	it('POST reports the chosen case data once they are complete; refuses pending, foreign and no case data', async () => {
		const created = await client.createCase(
			caseBody(orderOf(SSN_TRACE, NATIONAL, DRUG_PANEL, EMPLOYMENT)),
		);
		advanceTo(created.id, 3);
		client.admin.advanceCase(created.id); // SSN Trace and the national search finish; the drug test does not
		const data = (await get(`/case/id/${created.id}/data/${SCREENING}`)).body.data as any[];
		const done = data.filter((entry) => entry.status !== 'pending');
		const pending = data.filter((entry) => entry.status === 'pending');
		expect(done.length).toBeGreaterThan(0);
		expect(pending.length).toBeGreaterThan(0);
		const path = `/case/id/${created.id}/report/pdf/download/url`;

		const chosen = await post(path, { caseDataIds: [done[0].id] });
		expect(chosen.status).toBe(200);
		expect(chosen.contentType).toMatch(/^text\/html/);
		const bytes = (await download(chosen.body)).bytes;
		expect(isPdf(bytes)).toBe(true);
		expect(bytes.includes(done[0].id)).toBe(true);
		expect(bytes.includes(pending[0].id)).toBe(false);
		const without = await post(path, {
			caseDataIds: [done[0].id],
			excludeCaseDataAttachments: true,
		});
		const withoutBytes = (await download(without.body)).bytes;
		expect(withoutBytes.includes('Attachments: excluded')).toBe(true);
		expect(withoutBytes.equals(bytes)).toBe(false);

		const notReady = await post(path, { caseDataIds: [done[0].id, pending[0].id] });
		expect(notReady.status).toBe(422);
		expect(notReady.body.message).toMatch(/^The report is not ready/);
		expect((await post(path, { caseDataIds: ['not-a-case-data'] })).body.message).toMatch(
			/^A data issue exists/,
		);
		expect((await post(path, { caseDataIds: [] })).status).toBe(422);
		expect((await post(path, {})).status).toBe(422);
	});
});

describe('legal documents: /case/id/{caseId}/data/{serviceId}/pdf and /pdf/download answer the PDF itself', () => {
	it('inline or as an attachment once onboarding is complete; refuses before, and for a service that is not legal', async () => {
		const created = await client.createCase();
		const early = await get(`/case/id/${created.id}/data/esig/pdf`);
		expect(early).toMatchObject({
			status: 422,
			body: { message: 'The document is not ready: the candidate has not completed onboarding' },
		});
		expect((await get(`/case/id/${created.id}/data/fcra/pdf/download`)).body.message).toMatch(
			/^Unable to download file/,
		);
		advanceTo(created.id, 3);

		const inline = await apiBytes(`/case/id/${created.id}/data/esig/pdf`);
		expect(inline).toMatchObject({ status: 200, contentType: 'application/pdf' });
		expect(inline.disposition).toMatch(/^inline/);
		expect(isPdf(inline.bytes)).toBe(true);
		expect(inline.bytes.includes('Electronic Signature Consent')).toBe(true);
		const attachment = await apiBytes(`/case/id/${created.id}/data/disclosure/pdf/download`);
		expect(attachment.disposition).toMatch(/^attachment/);
		expect(isPdf(attachment.bytes)).toBe(true);

		expect((await get(`/case/id/${created.id}/data/${SSN_TRACE}/pdf`)).status).toBe(404);
		expect((await get('/case/id/no-such-case/data/esig/pdf')).status).toBe(404);
	});
});

describe('secure documents', () => {
	async function uploadDocument(bytes: Buffer, mimeType: string, token = client.token) {
		const [type] = (await get('/document/secure/type/list')).body;
		const upload = await client.call('POST', '/document/secure/upload', {
			token,
			body: { files: [{ documentTypeId: type.id, mimeType }] },
		});
		const [{ url, fileKey }] = upload.body.list;
		expect((await fetch(url, { method: 'PUT', body: bytes })).status).toBe(200);
		const created = await client.call('POST', '/document/secure/create', {
			token,
			body: { list: [{ originalFileName: 'scan.png', documentTypeId: type.id, fileKey }] },
		});
		return created.body.list[0].secureDocumentId as string;
	}

	it('GET .../download/url answers a URL, valid 60 min, serving the uploaded bytes as uploaded', async () => {
		const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 255]);
		const id = await uploadDocument(bytes, 'image/png');
		const answer = await get(`/document/secure/id/${id}/download/url`);
		expect(answer.status).toBe(200);
		expect(answer.contentType).toMatch(/^text\/html/);
		const file = await download(answer.body);
		expect(file).toMatchObject({ status: 200, contentType: 'image/png' });
		expect(file.bytes.equals(bytes)).toBe(true);
		expect((await download(answer.body, { authorization: 'Bearer x' })).status).toBe(403);
		const issuedAt = Date.now();
		client.admin.setStorageClock(() => issuedAt + 3_599_000);
		expect((await download(answer.body)).status).toBe(200);
		client.admin.setStorageClock(() => issuedAt + 3_601_000);
		expect((await download(answer.body)).status).toBe(403);
		client.admin.setStorageClock(undefined);
	});

	it('refuses another group’s document (403) and an unknown one (404)', async () => {
		const west = await tokenFor(client.sandbox, 1);
		const theirs = await uploadDocument(Buffer.from('x'), 'image/png', west);
		expect((await get(`/document/secure/id/${theirs}/download/url`)).status).toBe(403);
		expect((await get('/document/secure/id/nope/download/url')).status).toBe(404);
	});
});

describe('services of one type and the configuration', () => {
	it('GET /case/id/{caseId}/services/{serviceType} lists the services of that type only', async () => {
		const created = await client.createCase(caseBody(orderOf('service-idv-id', DRUG_PANEL)));
		const idv = await get(`/case/id/${created.id}/services/idv`);
		expect(idv.body.serviceGroupServices.map((entry: any) => entry.serviceId)).toEqual([
			'service-idv-id',
		]);
		const screenings = await get(`/case/id/${created.id}/services/screenings`);
		expect(screenings.body.serviceGroupServices.map((entry: any) => entry.serviceId)).toEqual([
			DRUG_PANEL,
		]);
		const legal = await get(`/case/id/${created.id}/services/legal`);
		expect(legal.body.serviceGroupServices.map((entry: any) => entry.serviceId)).toEqual([
			'esig',
			'fcra',
			'disclosure',
		]);
		expect((await get(`/case/id/${created.id}/services/other`)).status).toBe(400);
		expect((await get('/case/id/no-such-case/services/idv')).status).toBe(404);
	});

	it('GET /config/case/id/{caseId} answers the order’s contacts and the package’s configurations, ordered values or defaults', async () => {
		const contact = { type: 'default', email: 'ops@example.com', name: 'Ops' };
		const created = await client.createCase(
			caseBody({
				...orderOf(SSN_TRACE, EMPLOYMENT),
				orderConfig: {
					contacts: [contact],
					aliasNameConfiguration: 'alias-all',
					serviceConfigs: { [EMPLOYMENT]: { verificationMethod: 'psv-first' } },
				},
			}),
		);
		const config = (await get(`/config/case/id/${created.id}`)).body;
		expect(config.contacts).toEqual([contact]);
		expect(config.serviceConfigs[EMPLOYMENT].verificationMethod).toMatchObject({
			rawValue: 'psv-first',
			configDisplayLabel: 'Verification Method',
		});
		// Education is in the package (healthcare), though not ordered: its default.
		expect(config.serviceConfigs[EDUCATION].verificationMethod).toMatchObject({
			rawValue: 'docs-acceptable',
			valueDisplayLabel: 'Documents Acceptable',
		});
		expect(config.aliasNameConfiguration).toMatchObject({
			rawValue: 'alias-all',
			appliesTo: { serviceCategoryIds: ['service-cat-criminal'] },
		});
		expect(config.diluteDrugPolicy.rawValue).toBe('company-default');
		expect(config.ohsDrugPassportExpirationPolicy.valueDescription).toBe(
			'Refer to company settings.',
		);

		const basic = await client.createCase();
		const plain = (await get(`/config/case/id/${basic.id}`)).body;
		expect(Object.keys(plain)).toEqual(['aliasNameConfiguration']);
		expect(plain.aliasNameConfiguration.rawValue).toBe('no-alias');
		expect((await get('/config/case/id/no-such-case')).status).toBe(404);
	});
});

describe('the candidate', () => {
	it('GET /candidate/info/case/id/{caseId}: 404 until the candidate begins onboarding; the customer’s data at once', async () => {
		const invited = await client.createCase();
		const early = await get(`/candidate/info/case/id/${invited.id}`);
		expect(early.status).toBe(404);
		client.admin.advanceCase(invited.id);
		const onboarding = (await get(`/candidate/info/case/id/${invited.id}`)).body.candidate;
		expect(onboarding).toMatchObject({
			id: invited.candidateId,
			candidateId: invited.candidateId,
			email: invited.candidateEmail,
			username: invited.candidateEmail,
			password: '########',
			fullName: "Ann O'Neil",
			piiLocked: 0,
			secured: 1,
		});

		const customer = await client.createCase(customerPiiBody());
		const info = (await get(`/candidate/info/case/id/${customer.id}`)).body.candidate;
		expect(info).toMatchObject({ dob: '1985-02-03', govtId: 'XXX-XX-3333', secured: 0 });
		// Without a date of birth the reference's candidate cannot be answered yet.
		const noDob = await client.createCase(customerPiiBody({ orderData: undefined }));
		expect((await get(`/candidate/info/case/id/${noDob.id}`)).status).toBe(404);
		expect((await get('/candidate/info/case/id/no-such-case')).status).toBe(404);
	});

	it('POST /candidate/id/{candidateId}/update/case/id/{caseId}: sets what can be set; once PII is locked, only the phone and a missing government ID', async () => {
		const created = await client.createCase();
		const path = `/candidate/id/${created.candidateId}/update/case/id/${created.id}`;
		const update = await post(path, {
			givenName: 'Anna',
			middleName: 'May',
			email: 'anna.new@example.com',
			dob: '1988-07-06',
			phone: '+15125550111',
		});
		expect(update).toMatchObject({ status: 200, body: '' });
		expect(await client.getCase(created.id)).toMatchObject({
			candidateGivenName: 'Anna',
			candidateEmail: 'anna.new@example.com',
		});
		expect((await get(`/candidate/info/case/id/${created.id}`)).body.candidate).toMatchObject({
			fullName: "Anna May O'Neil",
			dob: '1988-07-06',
			phone: '+15125550111',
		});

		advanceTo(created.id, 3);
		const locked = await post(path, { familyName: 'Lee', dob: '1980-01-01' });
		expect(locked.status).toBe(400);
		expect(locked.body.message).toEqual([
			'The request holds no valid update',
			'dob cannot be changed once PII is locked',
			'familyName cannot be changed once PII is locked',
		]);
		// Valid fields are set, the others ignored.
		expect((await post(path, { familyName: 'Lee', govtId: '999-88-7777' })).status).toBe(200);
		const info = (await get(`/candidate/info/case/id/${created.id}`)).body.candidate;
		expect(info).toMatchObject({ familyName: "O'Neil", govtId: 'XXX-XX-7777', piiLocked: 1 });
		expect((await post(path, { govtId: '111-11-1111' })).status).toBe(400);
	});

	it('refuses another candidate (403), empty and invalid names (400), an email of another candidate (ignored)', async () => {
		const created = await client.createCase();
		const other = await client.createCase();
		const path = `/candidate/id/${created.candidateId}/update/case/id/${created.id}`;
		expect(
			(
				await post(`/candidate/id/${other.candidateId}/update/case/id/${created.id}`, {
					phone: null,
				})
			).status,
		).toBe(403);
		expect((await post(path, { givenName: '' })).body.message).toContain(
			'givenName cannot be empty',
		);
		expect((await post(path, { givenName: 'Ann <script>' })).status).toBe(400);
		expect((await post(path, { email: other.candidateEmail })).body.message).toContain(
			'email is associated with another candidate',
		);
		expect((await post(path, { email: 'not an email' })).status).toBe(400);
		expect(
			(await post('/candidate/id/x/update/case/id/no-such-case', { phone: null })).status,
		).toBe(403);
	});
});

describe('the invitation', () => {
	it('GET /invitation/case/{caseId}: pending with its token, 14 days to run; expired after; none for customer-provided PII', async () => {
		const created = await client.createCase();
		client.admin.scriptCase(created.id, { holdAtStep: 1 });
		const { invitation } = (await get(`/invitation/case/${created.id}`)).body;
		expect(invitation).toMatchObject({
			id: created.caseInvitationId,
			email: created.candidateEmail,
			invitationStatusId: '3f5e6898-6641-4685-8ee0-1363b7e10c98',
			packageId: created.packageId,
		});
		expect(Date.parse(invitation.expiresStamp) - Date.parse(invitation.crStamp)).toBe(
			14 * DAY_SECONDS * 1000,
		);
		expect((await client.getCase(created.id)).invitationStatusName).toBe('pending');

		await client.admin.advanceClock(14 * DAY_SECONDS);
		expect((await client.getCase(created.id)).invitationStatusName).toBe('expired');
		expect((await get(`/invitation/case/${created.id}`)).body.invitation.invitationStatusId).toBe(
			'b5af27f7-8a03-4820-b2bd-82587dcacf5b',
		);

		const customer = await client.createCase(customerPiiBody());
		expect((await get(`/invitation/case/${customer.id}`)).status).toBe(404);
		expect((await client.getCase(customer.id)).invitationStatusName).toBeUndefined();
		expect((await get('/invitation/case/no-such-case')).status).toBe(404);
	});

	it('refresh gives it 14 days again while the candidate has not begun; resend replaces it; both refused once onboarding began', async () => {
		const created = await client.createCase();
		client.admin.scriptCase(created.id, { holdAtStep: 1 });
		await client.admin.advanceClock(10 * DAY_SECONDS);
		expect((await put(`/case/id/${created.id}/action/refreshinvite`)).status).toBe(200);
		const refreshed = (await get(`/invitation/case/${created.id}`)).body.invitation;
		expect(Date.parse(refreshed.expiresStamp) - Date.parse(refreshed.modStamp)).toBe(
			14 * DAY_SECONDS * 1000,
		);
		await client.admin.advanceClock(14 * DAY_SECONDS);
		expect((await put(`/case/id/${created.id}/action/refreshinvite`)).body.message).toMatch(
			/^The invitation expired/,
		);

		const resent = await post(`/case/id/${created.id}/action/resendinvite`, {
			email: 'ann.other@example.com',
		});
		expect(resent.status).toBe(200);
		const replaced = (await get(`/invitation/case/${created.id}`)).body.invitation;
		expect(replaced).toMatchObject({ email: 'ann.other@example.com' });
		expect(replaced.id).not.toBe(refreshed.id);
		expect(replaced.invitationToken).not.toBe(refreshed.invitationToken);
		expect(replaced.invitationStatusId).toBe('3f5e6898-6641-4685-8ee0-1363b7e10c98');
		expect(await client.getCase(created.id)).toMatchObject({
			caseInvitationId: replaced.id,
			invitationEmail: 'ann.other@example.com',
		});

		client.admin.advanceCase(created.id);
		expect((await put(`/case/id/${created.id}/action/refreshinvite`)).body.message).toBe(
			'The candidate already began or finished onboarding.',
		);
		expect(
			(await post(`/case/id/${created.id}/action/resendinvite`, { email: 'a@example.com' })).body
				.message,
		).toBe(
			'Could not resend the invitation: the existing invitation was already used to create a candidate',
		);
		advanceTo(created.id, 3);
		expect((await client.getCase(created.id)).invitationStatusName).toBe('completed');
	});

	it('refuses the customer-provided-PII case (422), an unknown case (403) and an email that is not one (422)', async () => {
		const customer = await client.createCase(customerPiiBody());
		expect((await put(`/case/id/${customer.id}/action/refreshinvite`)).status).toBe(422);
		expect(
			(await post(`/case/id/${customer.id}/action/resendinvite`, { email: 'a@example.com' }))
				.status,
		).toBe(422);
		expect((await put('/case/id/no-such-case/action/refreshinvite')).status).toBe(403);
		const created = await client.createCase();
		expect(
			(await post(`/case/id/${created.id}/action/resendinvite`, { email: 'nope' })).status,
		).toBe(422);
	});
});

describe('GET /candidate/countries', () => {
	it('lists countries with their ISO 3166 codes', async () => {
		const { list } = (await get('/candidate/countries')).body;
		expect(list).toContainEqual({ iso31662: 'US', iso31663: 'USA', country: 'United States' });
		for (const entry of list) {
			expect(entry.iso31662).toMatch(/^[A-Z]{2}$/);
			expect(entry.iso31663).toMatch(/^[A-Z]{3}$/);
		}
	});
});

describe('another group', () => {
	it('cannot act on the case: 403 where the operation declares it', async () => {
		const created = await client.createCase();
		const west = await tokenFor(client.sandbox, 1);
		const as = (method: string, path: string, body?: unknown) =>
			client.call(method, path, { token: west, body });
		expect((await as('PUT', `/case/id/${created.id}/action/place`)).status).toBe(403);
		expect((await as('POST', `/case/id/${created.id}/action/preadverse`)).status).toBe(403);
		expect((await as('GET', `/invitation/case/${created.id}`)).status).toBe(403);
		expect((await as('GET', `/case/id/${created.id}/report/pdf/download/url`)).status).toBe(403);
		expect((await as('GET', `/config/case/id/${created.id}`)).status).toBe(403);
		expect(DEMO_GROUPS).toHaveLength(2);
	});
});
