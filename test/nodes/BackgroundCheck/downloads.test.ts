/**
 * The operations that output files (Report > Download ..., Secure Document > Download and Get Many), through a
 * recording fake of n8n's request helpers: every request to the API fits the reference (requestProblems) and
 * every answer given to the node is one the reference gives (answerProblems); a pre-signed address is fetched
 * without the credential; the file is n8n binary data with its name and type; answers that are not what they
 * should be are clear errors.
 */
import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';

import { answerProblems, requestProblems } from '../../../api/contract';
import { BackgroundCheck } from '../../../nodes/BackgroundCheck/BackgroundCheck.node';
import { fileHeaders } from '../../../nodes/shared/transport';
import {
	byId,
	createRecordingContext,
	runRecorded,
	type RecordedRequest,
	type RecordingAnswer,
} from '../../helpers/executeContext';
import { CONTRACT_ANSWERS } from './contractAnswers';

const CASE_ID = 'a09215ff-f46c-49a6-9767-762da1f3afd2';
const SCREENINGS = ['12345678-f4ae-4579-b43d-5ab19c93add0', '66068dd2-2bdb-44c7-97c9-14bd92eeed7c'];
const SIGNED_QUERY = 'AWSAccessKeyId=AKIDEXAMPLE&Expires=1699391676&Signature=sL5Am9sMbvWSd8';
const STORAGE_URL = `https://storage.download.test/bucket/98704f90-report.pdf?${SIGNED_QUERY}`;
const CASE_DATA = (
	CONTRACT_ANSWERS['GET /case/id/{caseId}/data/{serviceTypeId}'] as { data: IDataObject[] }
).data[0];
const PDF = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(2048, 7), Buffer.from('%%EOF')]);

interface Served {
	status?: number;
	body?: unknown;
	headers?: Record<string, string>;
}

/**
 * Answers API requests with `api` (checked against the reference, with the content type it would have) and
 * requests to the storage host with `storage`.
 */
function answering(
	api: (request: RecordedRequest) => Served,
	storage: Served = {},
	{ outsideContract = false } = {},
): RecordingAnswer {
	return (request) => {
		if (!request.authenticated) return { status: 200, body: PDF, ...storage };
		const served = api(request);
		const status = served.status ?? 200;
		const contentType = served.headers?.['content-type'];
		const body = Buffer.isBuffer(served.body) ? undefined : served.body;
		if (!outsideContract)
			expect(answerProblems(request.method, request.path, status, contentType, body)).toEqual([]);
		return { status, ...served };
	};
}

const url = (body: string = STORAGE_URL): Served => ({
	body,
	headers: { 'content-type': 'text/html; charset=utf-8' },
});

async function run(parameters: IDataObject, answer: RecordingAnswer, continueOnFail = false) {
	return await runRecorded({
		parameters: { caseId: byId(CASE_ID), ...parameters },
		answer,
		continueOnFail,
	});
}

function expectContractRequests(requests: RecordedRequest[]) {
	for (const request of requests.filter((entry) => entry.authenticated))
		expect({
			request: `${request.method} ${request.path}`,
			problems: requestProblems({
				method: request.method,
				path: request.path,
				query: request.query,
				headers: request.headers,
				body: request.body,
			}),
		}).toEqual({ request: `${request.method} ${request.path}`, problems: [] });
}

const REPORT = { resource: 'report', operation: 'downloadCaseReport' };

describe('Report > Download Case Report', () => {
	it('asks for the whole report, then fetches the address without the credential', async () => {
		const { output, requests } = await run(
			REPORT,
			answering(() => url()),
		);
		expectContractRequests(requests);
		expect(
			requests.map((request) => [request.method, request.path, request.authenticated]),
		).toEqual([
			['GET', `/case/id/${CASE_ID}/report/pdf/download/url`, true],
			['GET', 'https://storage.download.test/bucket/98704f90-report.pdf', false],
		]);
		expect(requests[1].headers.Authorization).toBeUndefined();
		expect(requests[1].query.Signature).toBe('sL5Am9sMbvWSd8');
		expect(output).toHaveLength(1);
		expect(output[0].json).toEqual({
			caseId: CASE_ID,
			excludeAttachments: false,
			fileName: `case-report-${CASE_ID}.pdf`,
			mimeType: 'application/pdf',
			fileSize: PDF.length,
		});
		expect(output[0].binary?.data).toMatchObject({
			fileName: `case-report-${CASE_ID}.pdf`,
			mimeType: 'application/pdf',
			fileExtension: 'pdf',
		});
		expect(Buffer.from(output[0].binary!.data.data, 'base64')).toEqual(PDF);
		expect(output[0].pairedItem).toEqual({ item: 0 });
	});

	it('asks for the chosen screenings with POST, in the binary field and under the name chosen', async () => {
		const { output, requests } = await run(
			{
				...REPORT,
				binaryPropertyName: 'report',
				options: { caseDataIds: SCREENINGS, excludeAttachments: true, fileName: 'Garcia.pdf' },
			},
			answering(() => url()),
		);
		expectContractRequests(requests);
		expect(requests[0]).toMatchObject({
			method: 'POST',
			path: `/case/id/${CASE_ID}/report/pdf/download/url`,
			body: { caseDataIds: SCREENINGS, excludeCaseDataAttachments: true },
		});
		expect(output[0].binary?.report).toMatchObject({ fileName: 'Garcia.pdf' });
		expect(output[0].json).toMatchObject({ caseDataIds: SCREENINGS, fileName: 'Garcia.pdf' });
	});

	it('without screenings chosen but attachments left out, reads the screenings to name them all', async () => {
		const { requests } = await run(
			{ ...REPORT, options: { excludeAttachments: true } },
			answering((request) =>
				request.method === 'GET' && request.path.includes('/data/')
					? {
							body: { data: SCREENINGS.map((id) => ({ ...CASE_DATA, id, caseId: CASE_ID })) },
							headers: { 'content-type': 'application/json' },
						}
					: url(),
			),
		);
		expectContractRequests(requests);
		expect(requests.map((request) => `${request.method} ${request.path}`).slice(0, 2)).toEqual([
			`GET /case/id/${CASE_ID}/data/30bc2c03-c8dd-409a-8da6-e0070ea6a681`,
			`POST /case/id/${CASE_ID}/report/pdf/download/url`,
		]);
		expect(requests[1].body).toEqual({ caseDataIds: SCREENINGS, excludeCaseDataAttachments: true });
	});

	it('refused by the storage: an error naming the host, never the signature or the token', async () => {
		const { output } = await run(
			REPORT,
			answering(() => url(), { status: 403, body: Buffer.from('<Error>AccessDenied</Error>') }),
			true,
		);
		const text = JSON.stringify(output[0].json);
		expect(output[0].json.error).toBe('Downloading the case report failed (HTTP 403)');
		expect(text).toContain('storage.download.test');
		expect(text).not.toContain('sL5Am9sMbvWSd8');
		expect(text).not.toContain('recorded-token');
		expect(output[0].binary).toBeUndefined();
	});

	it.each([
		['no address', ''],
		['text that is not an address', 'The report is being generated'],
		['an address of another scheme', 'file:///etc/passwd'],
	])('the API answering %s: an error, and nothing fetched', async (_case, body) => {
		const { output, requests } = await run(
			REPORT,
			// Not an answer the reference gives (a URI): what the node does when the API breaks it.
			answering(
				() => ({ body, headers: { 'content-type': 'text/html' } }),
				{},
				{ outsideContract: true },
			),
			true,
		);
		expect(output[0].json.error).toBe('The API answered no download address for the case report');
		expect(requests.filter((request) => !request.authenticated)).toEqual([]);
	});

	it('a file that is not a PDF: an error, no file output', async () => {
		const { output } = await run(
			REPORT,
			answering(() => url(), {
				body: Buffer.from('<html>Sign in</html>'),
				headers: { 'content-type': 'text/html' },
			}),
			true,
		);
		expect(output[0].json.error).toBe('The API sent the case report that is not a PDF');
		expect(output[0].binary).toBeUndefined();
	});

	it('a report not ready (422): the API’s text as the error item', async () => {
		const { output } = await run(
			REPORT,
			answering(() => ({
				status: 422,
				body: {
					message: 'The report is not ready.',
					error: 'Unprocessable Entity',
					statusCode: 422,
				},
			})),
			true,
		);
		expect(output[0].json.error).toBe('The report is not ready.');
	});

	it.each([
		[{ binaryPropertyName: ' ' }, 'Put Output File in Field is empty [item 0]'],
		[{ caseId: byId('../list') }, 'Case ID "../list" is not a valid ID [item 0]'],
		[{ options: { caseDataIds: ['a b'] } }, 'Screening "a b" is not a valid ID [item 0]'],
	])('bad input %j: an error naming the field, before any request', async (parameters, message) => {
		const { output, requests } = await run(
			{ ...REPORT, ...parameters },
			answering(() => url()),
			true,
		);
		expect(output[0].json.error).toBe(message);
		expect(requests).toEqual([]);
	});
});

describe('Report > Download Legal Document and Download Pre-Adverse Document', () => {
	const SERVICE = 'service-fcra';

	it('downloads a legal document from the API itself, named as the API names it', async () => {
		const { output, requests } = await run(
			{ resource: 'report', operation: 'downloadLegalDocument', serviceId: SERVICE },
			answering(() => ({
				body: PDF,
				headers: {
					'content-type': 'application/pdf',
					'content-disposition': 'attachment; filename="fcra-authorization.pdf"',
				},
			})),
		);
		expectContractRequests(requests);
		expect(requests.map((request) => `${request.method} ${request.path}`)).toEqual([
			`GET /case/id/${CASE_ID}/data/${SERVICE}/pdf/download`,
		]);
		expect(output[0].json).toMatchObject({
			caseId: CASE_ID,
			serviceId: SERVICE,
			fileName: 'fcra-authorization.pdf',
		});
		expect(Buffer.from(output[0].binary!.data.data, 'base64')).toEqual(PDF);
	});

	it.each(['notice', 'report'])('downloads the pre-adverse %s', async (type) => {
		const { output, requests } = await run(
			{ resource: 'report', operation: 'downloadPreAdverseDocument', type },
			answering(() => ({ body: PDF, headers: { 'content-type': 'application/pdf' } })),
		);
		expectContractRequests(requests);
		expect(requests[0].path).toBe(`/case/id/${CASE_ID}/preadverse/${type}/pdf/download`);
		expect(output[0].json).toMatchObject({
			type,
			fileName: `pre-adverse-${type}-${CASE_ID}.pdf`,
		});
	});

	it('a case not in an adverse action process (422 as JSON bytes): the API’s text', async () => {
		const { output } = await run(
			{ resource: 'report', operation: 'downloadPreAdverseDocument', type: 'notice' },
			answering(() => ({
				status: 422,
				body: Buffer.from(
					JSON.stringify({
						message: 'The case is not in an adverse action process.',
						error: 'Unprocessable Entity',
						statusCode: 422,
					}),
				),
				headers: { 'content-type': 'application/json' },
			})),
			true,
		);
		expect(output[0].json.error).toBe('The case is not in an adverse action process.');
	});

	it('refuses a document name the API does not have, before any request', async () => {
		const { output, requests } = await run(
			{ resource: 'report', operation: 'downloadPreAdverseDocument', type: '../../case/list' },
			answering(() => ({ body: PDF })),
			true,
		);
		expect(output[0].json.error).toBe(
			'Type "../../case/list" is not a pre-adverse action document [item 0]',
		);
		expect(requests).toEqual([]);
	});
});

describe('Secure Document > Get Many and Download', () => {
	const DOCUMENTS = [
		{
			id: 'doc-1',
			documentTypeId: 'education-document',
			title: null,
			description: null,
			fileName: 'id.png',
			fileKey: 'k1',
			fileFormat: 'png',
			crUserId: 'u1',
			displayReport: 0,
		},
		{
			id: 'doc-2',
			documentTypeId: 'employment-document',
			title: 'Diploma',
			description: null,
			fileName: 'diploma.pdf',
			fileKey: 'k2',
			fileFormat: 'pdf',
			crUserId: 'u1',
			displayReport: 1,
		},
	];

	it('lists the documents of a case, filtered by type and cut to the limit', async () => {
		const answer = answering(() => ({
			body: DOCUMENTS,
			headers: { 'content-type': 'application/json' },
		}));
		const all = await run(
			{ resource: 'secureDocument', operation: 'getMany', returnAll: true },
			answer,
		);
		expectContractRequests(all.requests);
		expect(all.requests[0].path).toBe(`/document/secure/list/case/id/${CASE_ID}`);
		expect(all.output.map((item) => item.json.id)).toEqual(['doc-1', 'doc-2']);
		expect(all.output[0].json.caseId).toBe(CASE_ID);
		const filtered = await run(
			{
				resource: 'secureDocument',
				operation: 'getMany',
				returnAll: true,
				filters: { documentTypeIds: ['employment-document'] },
			},
			answer,
		);
		expect(filtered.output.map((item) => item.json.id)).toEqual(['doc-2']);
		const limited = await run(
			{ resource: 'secureDocument', operation: 'getMany', limit: 1 },
			answer,
		);
		expect(limited.output.map((item) => item.json.id)).toEqual(['doc-1']);
	});

	it('downloads a document through its pre-signed address, with the storage’s type and the address’s name', async () => {
		const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
		const { output, requests } = await runRecorded({
			parameters: { resource: 'secureDocument', operation: 'download', secureDocumentId: 'doc-1' },
			answer: answering(
				() => url('https://storage.download.test/docs/id%20card.png?X-Amz-Signature=abc'),
				{
					body: png,
					headers: { 'content-type': 'image/png' },
				},
			),
		});
		expectContractRequests(requests);
		expect(requests.map((request) => [request.path, request.authenticated])).toEqual([
			['/document/secure/id/doc-1/download/url', true],
			['https://storage.download.test/docs/id%20card.png', false],
		]);
		expect(output[0].json).toEqual({
			secureDocumentId: 'doc-1',
			fileName: 'id card.png',
			mimeType: 'image/png',
			fileSize: png.length,
		});
		expect(Buffer.from(output[0].binary!.data.data, 'base64')).toEqual(png);
	});
});

describe('the token goes to its API only', () => {
	it('no request of the node lets n8n carry the credential along a redirect to another host', async () => {
		const { context } = createRecordingContext({
			parameters: { ...REPORT, caseId: byId(CASE_ID) },
			answer: (request) => (request.authenticated ? url() : { body: PDF }),
		});
		const authenticated = context.helpers.httpRequestWithAuthentication;
		const sent: IHttpRequestOptions[] = [];
		context.helpers.httpRequestWithAuthentication = async function (type, options, additional) {
			sent.push(options);
			return await authenticated.call(this, type, options, additional);
		};
		await new BackgroundCheck().execute!.call(context);
		expect(sent).toHaveLength(1);
		expect(sent[0].sendCredentialsOnCrossOriginRedirect).toBe(false);
	});
});

describe('fileHeaders', () => {
	it.each([
		[{ 'content-type': 'application/pdf; charset=binary' }, { mimeType: 'application/pdf' }],
		[{ 'content-disposition': 'attachment; filename="report.pdf"' }, { fileName: 'report.pdf' }],
		[
			{ 'content-disposition': "attachment; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf" },
			{ fileName: 'résumé.pdf' },
		],
		[{ 'content-disposition': 'attachment; filename="../../etc/passwd"' }, { fileName: 'passwd' }],
		[{ 'content-disposition': "attachment; filename*=UTF-8''%E0%A4%A" }, {}],
		[{}, {}],
	])('%j -> %j', (headers, expected) => {
		expect(fileHeaders(headers)).toEqual(expected);
	});
});
