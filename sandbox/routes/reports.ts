/**
 * Reports and documents of a case, as the reference hands them out:
 * - the case report (`GET` whole case, `POST` chosen case data): a pre-signed URL, `text/html`, valid 60 s, on the
 *   sandbox's own storage (sandbox/storage.ts), serving a PDF of the case data as they stood when asked;
 * - the legal documents (`/case/id/{caseId}/data/{serviceId}/pdf`, `/pdf/download`): the PDF itself, inline or as
 *   an attachment, for the legal services every sandbox case has (LEGAL_SERVICES), ready once onboarding is
 *   complete;
 * - the pre-adverse action documents (`/case/id/{caseId}/preadverse/{notice|report}/pdf`, `/pdf/download`): the
 *   notice and the case report as it stood when the action began, inline or as an attachment;
 * - a secure document (`GET /document/secure/id/{secureDocumentId}/download/url`): a pre-signed URL valid 60 min,
 *   serving the bytes that were uploaded.
 */
import { createHash } from 'crypto';

import { LEGAL_SERVICES } from '../fixtures';
import { httpError, notFound, requireObjectBody, type ApiRequest, type ApiResponse } from '../http';
import { buildPdf } from '../pdf';
import type { ApiClient, CaseDataRecord, CaseRecord } from '../state';
import { presignDownload, REPORT_URL_SECONDS, SECURE_DOCUMENT_URL_SECONDS } from '../storage';
import type { SandboxContext } from '../world';
import { requireOwnCase, type ApiRoute } from './common';

const PDF = 'application/pdf';

const unprocessable = (message: string) => httpError(422, message);

/** A URL answered as the reference answers it: the URL as the body, `text/html`. */
const urlAnswer = (url: string): ApiResponse => ({
	status: 200,
	body: url,
	headers: { 'content-type': 'text/html; charset=utf-8' },
});

/** A PDF answered in the body: inline (`/pdf`) or as an attachment (`/pdf/download`). */
const pdfAnswer = (bytes: Buffer, fileName: string, download: boolean): ApiResponse => ({
	status: 200,
	body: bytes,
	headers: {
		'content-type': PDF,
		'content-disposition': `${download ? 'attachment' : 'inline'}; filename="${fileName}"`,
	},
});

const hostOf = (request: ApiRequest<ApiClient>) => request.headers.host ?? '127.0.0.1';

const candidateLine = (record: CaseRecord) =>
	`Candidate: ${[record.candidateGivenName, record.candidateMiddleName, record.candidateFamilyName]
		.filter((name) => name)
		.join(' ')} <${record.candidateEmail}>`;

function caseLines(record: CaseRecord, at: string): string[] {
	return [
		`Case ${record.id}`,
		candidateLine(record),
		`Package: ${record.packageName}`,
		`Status: ${record.caseStatus}${record.secondaryStatus ? ` / ${record.secondaryStatus}` : ''}; result ${record.resultType}`,
		`As of ${at}`,
	];
}

const caseDataLine = (entry: Pick<CaseDataRecord, 'id' | 'serviceName' | 'statusDisplayName'>) =>
	`${entry.serviceName}: ${entry.statusDisplayName} (case data ${entry.id})`;

const seedOf = (...parts: unknown[]) =>
	createHash('sha256').update(JSON.stringify(parts)).digest('hex');

/** The report's pre-signed URL: the case data chosen, as they stand now. */
function reportUrl(
	request: ApiRequest<ApiClient>,
	context: SandboxContext,
	record: CaseRecord,
	caseData: CaseDataRecord[],
	excludeAttachments: boolean,
): ApiResponse {
	const at = context.clock.nowIso();
	const lines = [
		...caseLines(record, at),
		`Attachments: ${excludeAttachments ? 'excluded' : 'included'}`,
		'',
		...caseData.map(caseDataLine),
	];
	const seed = seedOf(
		record.id,
		caseData.map((entry) => [entry.id, entry.modStamp]),
		excludeAttachments,
		at,
	);
	const size = context.world.reportPdfBytes;
	return urlAnswer(
		presignDownload(context.world.store, hostOf(request), {
			fileName: `${record.id}-report.pdf`,
			contentType: PDF,
			seconds: REPORT_URL_SECONDS,
			bytes: () => buildPdf({ title: 'Background check report', lines, seed, size }),
		}),
	);
}

/** A report needs the case to have begun processing: before, there is nothing to report. */
function requireReportReady(record: CaseRecord): void {
	if (record.beginProcessingStamp === undefined)
		throw unprocessable('The report is not ready: the case has not begun processing');
}

function customReport(request: ApiRequest<ApiClient>, context: SandboxContext): ApiResponse {
	const record = requireOwnCase(context, request);
	const body = requireObjectBody(request.body);
	const ids = [...new Set((body.caseDataIds as unknown[]).map(String))];
	const all = context.world.store.caseDataOf(record);
	if (ids.length === 0) throw unprocessable('A data issue exists: caseDataIds names no case data');
	const unknown = ids.filter((id) => !all.some((entry) => entry.id === id));
	if (unknown.length > 0)
		throw unprocessable(`A data issue exists: not case data of this case: ${unknown.join(', ')}`);
	const chosen = ids.map((id) => all.find((entry) => entry.id === id)!);
	const pending = chosen.filter((entry) => entry.status === 'pending');
	if (pending.length > 0)
		throw unprocessable(
			`The report is not ready: a custom report needs every case data requested complete (pending: ${pending.map((entry) => entry.id).join(', ')})`,
		);
	return reportUrl(request, context, record, chosen, body.excludeCaseDataAttachments === true);
}

function legalDocument(request: ApiRequest<ApiClient>, context: SandboxContext, download: boolean) {
	const record = requireOwnCase(context, request);
	const { serviceId } = request.params;
	const title = LEGAL_SERVICES[serviceId];
	if (!title)
		throw notFound(
			`Case ${record.id} has no legal service ${serviceId} (the sandbox's legal documents: ${Object.keys(LEGAL_SERVICES).join(', ')})`,
		);
	if (record.completedOnboardingStamp === undefined)
		throw unprocessable(
			`${download ? 'Unable to download file' : 'The document is not ready'}: the candidate has not completed onboarding`,
		);
	const signed = record.completedOnboardingStamp;
	const bytes = buildPdf({
		title,
		lines: [
			`Case ${record.id}`,
			candidateLine(record),
			`Acknowledged ${signed}`,
			`Legal service: ${serviceId}`,
		],
		seed: seedOf(record.id, serviceId, signed),
	});
	return pdfAnswer(bytes, `${record.id}-${serviceId}.pdf`, download);
}

function preAdverseDocument(
	request: ApiRequest<ApiClient>,
	context: SandboxContext,
	download: boolean,
) {
	const record = requireOwnCase(context, request);
	const action = record.adverseAction;
	if (!action) throw unprocessable('The case is not in an adverse action process.');
	const type = request.params.type as 'notice' | 'report';
	const names = action.serviceIds.map(
		(serviceId) =>
			context.world.store.caseDataOf(record).find((entry) => entry.serviceId === serviceId)
				?.serviceName ?? serviceId,
	);
	const bytes =
		type === 'notice'
			? buildPdf({
					title: 'Pre-adverse action notice',
					lines: [
						candidateLine(record),
						`Case ${record.id}`,
						`Date: ${action.crStamp}`,
						`Reason: ${action.reason ?? 'not given'}`,
						`Screenings: ${names.length > 0 ? names.join(', ') : 'not given'}`,
					],
					seed: seedOf(record.id, action.id, 'notice'),
				})
			: buildPdf({
					title: 'Background check report (pre-adverse action)',
					lines: [...caseLines(record, action.crStamp), '', ...action.caseData.map(caseDataLine)],
					seed: seedOf(record.id, action.id, 'report'),
					size: context.world.reportPdfBytes,
				});
	return pdfAnswer(bytes, `${record.id}-preadverse-${type}.pdf`, download);
}

export const reportRoutes: ApiRoute[] = [
	{
		method: 'GET',
		path: '/case/id/{caseId}/report/pdf/download/url',
		handle: (request, context) => {
			const record = requireOwnCase(context, request);
			requireReportReady(record);
			return reportUrl(request, context, record, context.world.store.caseDataOf(record), false);
		},
	},
	{
		method: 'POST',
		path: '/case/id/{caseId}/report/pdf/download/url',
		handle: (request, context) => customReport(request, context),
	},
	{
		method: 'GET',
		path: '/case/id/{caseId}/data/{serviceId}/pdf',
		handle: (request, context) => legalDocument(request, context, false),
	},
	{
		method: 'GET',
		path: '/case/id/{caseId}/data/{serviceId}/pdf/download',
		handle: (request, context) => legalDocument(request, context, true),
	},
	{
		method: 'GET',
		path: '/case/id/{caseId}/preadverse/{type}/pdf',
		handle: (request, context) => preAdverseDocument(request, context, false),
	},
	{
		method: 'GET',
		path: '/case/id/{caseId}/preadverse/{type}/pdf/download',
		handle: (request, context) => preAdverseDocument(request, context, true),
	},
	{
		method: 'GET',
		path: '/document/secure/id/{secureDocumentId}/download/url',
		handle: (request, context) => {
			const { store } = context.world;
			const id = request.params.secureDocumentId;
			const document = store.secureDocuments.get(id);
			if (!document) throw notFound(`No secure document ${id}`);
			if (document.groupProfileId !== request.principal.groupProfileId)
				throw httpError(403, `Secure document ${id} is not accessible with this token`);
			const upload = store.uploads.get(document.fileKey)!;
			const bytes = upload.bytes!;
			return urlAnswer(
				presignDownload(store, hostOf(request), {
					fileName: document.originalFileName,
					contentType: upload.mimeType,
					seconds: SECURE_DOCUMENT_URL_SECONDS,
					bytes: () => bytes,
				}),
			);
		},
	},
];
