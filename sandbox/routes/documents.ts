/**
 * Secure documents, in the reference's three steps: `POST /document/secure/upload` hands out a pre-signed URL
 * and a file key per file; the file is PUT at that URL (`putUpload`: no bearer token, the signature in the URL
 * is the authorization); `POST /document/secure/create` makes documents of uploaded files. Plus the document
 * types, the MIME types and a case's documents.
 */
import { createHmac, randomUUID, timingSafeEqual } from 'crypto';

import { contract } from '../../api/contract';
import { isPlainObject } from '../../nodes/shared/values';
import { badRequest, forbidden, HttpError, ok, requireObjectBody } from '../http';
import type { SandboxStore, SecureDocumentRecord } from '../state';
import { BodyProblems, requireOwnCase, type ApiRoute } from './common';

/** Where the pre-signed upload URLs point, outside the API's paths. */
export const UPLOAD_PATH_PREFIX = '/storage/uploads/';

const SIGNING_KEY = randomUUID();
const MIME_TYPES = ['application/pdf', 'image/jpeg', 'image/png'];

/**
 * The document types, as `GET /document/secure/type/list` lists them: the reference's type IDs beside its kinds,
 * in the same order (paired by position, as the catalog pairs status IDs and names).
 */
const DOCUMENT_TYPES = (() => {
	const schemas = contract.components.schemas as Record<
		string,
		{ enum?: string[]; items?: unknown }
	>;
	const ids = schemas.DocumentTypeID.enum!;
	const kinds = (
		schemas.DocumentType.items as { properties: { secureDocumentType: { enum: string[] } } }
	).properties.secureDocumentType.enum;
	return ids.map((id, index) => ({
		id,
		secureDocumentType: kinds[index],
		displayName: kinds[index]
			.split('-')
			.map((word) => word.charAt(0).toUpperCase() + word.slice(1))
			.join(' '),
	}));
})();

/** The document types are the reference's list: a document of another type could not be listed as the reference lists them. */
function checkDocumentTypes(entries: Record<string, unknown>[], path: string): void {
	const problems = new BodyProblems();
	entries.forEach((entry, index) => {
		if (!DOCUMENT_TYPES.some((type) => type.id === entry.documentTypeId))
			problems.add(
				`${path}[${index}].documentTypeId ${JSON.stringify(entry.documentTypeId)} is not a document type (GET /document/secure/type/list)`,
			);
	});
	problems.throwIfAny();
}

const signature = (fileKey: string) =>
	createHmac('sha256', SIGNING_KEY).update(fileKey).digest('base64url');

/**
 * A file PUT at its pre-signed URL. Refused: an unknown or wrongly signed URL (403), and a request carrying an
 * Authorization header (400), so that a client sending its bearer token there is seen in tests.
 */
export function putUpload(
	store: SandboxStore,
	fileKey: string,
	offeredSignature: string | null,
	authorization: string | undefined,
	bytes: Buffer,
): void {
	if (authorization !== undefined)
		throw badRequest('A pre-signed upload URL takes no Authorization header');
	const upload = store.uploads.get(fileKey);
	const expected = Buffer.from(signature(fileKey));
	const offered = Buffer.from(offeredSignature ?? '');
	if (!upload || expected.length !== offered.length || !timingSafeEqual(expected, offered))
		throw new HttpError(403, 'The upload URL is not valid');
	upload.bytes = bytes;
}

export const documentRoutes: ApiRoute[] = [
	{
		method: 'POST',
		path: '/document/secure/upload',
		handle: (request, context) => {
			const files = requireObjectBody(request.body).files as Record<string, string>[];
			checkDocumentTypes(files, 'files');
			const host = request.headers.host ?? '127.0.0.1';
			const list = files.map((file) => {
				const fileKey = `${request.principal.groupProfileId}/${randomUUID()}`;
				context.world.store.uploads.set(fileKey, {
					fileKey,
					groupProfileId: request.principal.groupProfileId,
					documentTypeId: file.documentTypeId,
					mimeType: file.mimeType,
				});
				const url = `http://${host}${UPLOAD_PATH_PREFIX}${encodeURIComponent(fileKey)}?signature=${signature(fileKey)}`;
				return { url, fileKey };
			});
			return ok({ list });
		},
	},
	{
		method: 'POST',
		path: '/document/secure/create',
		handle: (request, context) => {
			const body = requireObjectBody(request.body);
			const entries = (body.list as Record<string, unknown>[]) ?? [];
			checkDocumentTypes(entries, 'list');
			const problems = new BodyProblems();
			const { store } = context.world;
			entries.forEach((entry, index) => {
				const upload = store.uploads.get(String(entry.fileKey));
				if (!upload || upload.groupProfileId !== request.principal.groupProfileId)
					problems.add(`list[${index}].fileKey was not handed out to this group`);
				else if (upload.bytes === undefined)
					problems.add(`list[${index}].fileKey: no file was put at its upload URL`);
			});
			const grants = isPlainObject(body.accessGrants) ? body.accessGrants : undefined;
			if (grants) requireOwnCase(context, request, String(grants.caseId));
			problems.throwIfAny();

			const now = context.clock.nowIso();
			const list = entries.map((entry) => {
				const upload = store.uploads.get(String(entry.fileKey))!;
				const document: SecureDocumentRecord = {
					id: randomUUID(),
					groupProfileId: request.principal.groupProfileId,
					originalFileName: String(entry.originalFileName),
					documentTypeId: String(entry.documentTypeId),
					fileKey: upload.fileKey,
					fileFormat: typeof entry.fileFormat === 'string' ? entry.fileFormat : null,
					title: typeof entry.title === 'string' ? entry.title : null,
					description: typeof entry.description === 'string' ? entry.description : null,
					sizeBytes: upload.bytes!.length,
					caseIds: grants ? [String(grants.caseId)] : [],
					crStamp: now,
				};
				store.secureDocuments.set(document.id, document);
				return { secureDocumentId: document.id };
			});
			return ok({ list });
		},
	},
	{
		method: 'GET',
		path: '/document/secure/type/list',
		handle: () => ok(structuredClone(DOCUMENT_TYPES)),
	},
	{
		method: 'GET',
		path: '/document/secure/mimetypes',
		handle: () => ok({ list: [...MIME_TYPES] }),
	},
	{
		method: 'GET',
		path: '/document/secure/list/case/id/{caseId}',
		handle: (request, context) => {
			const record = requireOwnCase(context, request);
			const documents = [...context.world.store.secureDocuments.values()].filter((document) =>
				document.caseIds.includes(record.id),
			);
			if (
				documents.some((document) => document.groupProfileId !== request.principal.groupProfileId)
			)
				throw forbidden('The case has documents of another group');
			return ok(
				documents.map((document) => ({
					id: document.id,
					documentTypeId: document.documentTypeId,
					title: document.title,
					description: document.description,
					fileName: document.originalFileName,
					fileKey: document.fileKey,
					fileFormat: document.fileFormat ?? '',
					crUserId: request.principal.id,
					displayReport: 0,
				})),
			);
		},
	},
];
