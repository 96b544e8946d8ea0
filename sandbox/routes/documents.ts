/**
 * Spec 4.3 POST /document/secure/create. Body (sandbox shape):
 *   { documents: [{ fileName, fileFormat?, description?, content? (base64) }] }
 * A body without `documents` is taken as one document record. The IDs returned are what
 * `secureDocumentIds` in order data and testimony refer to.
 */
import { randomUUID } from 'crypto';

import { isPlainObject } from '../../nodes/shared/values';
import { created, requireObjectBody } from '../http';
import type { SecureDocumentRecord } from '../state';
import { BodyProblems, type ApiRoute } from './common';

export const documentRoutes: ApiRoute[] = [
	{
		method: 'POST',
		path: '/document/secure/create',
		handle: (request, context) => {
			const body = requireObjectBody(request.body);
			const records: unknown[] = Array.isArray(body.documents) ? body.documents : [body];
			const problems = new BodyProblems();
			if (records.length === 0) problems.add('documents must list at least one document');
			records.forEach((record, index) => {
				if (!isPlainObject(record)) return problems.add(`documents[${index}] must be an object`);
				for (const key of ['fileName', 'fileFormat', 'description', 'content']) {
					if (record[key] !== undefined && typeof record[key] !== 'string')
						problems.add(`documents[${index}].${key} must be a string`);
				}
			});
			problems.throwIfAny();

			const now = context.clock.nowIso();
			const secureDocumentList = (records as Record<string, string | undefined>[]).map(
				(record, index) => {
					const document: SecureDocumentRecord = {
						id: randomUUID(),
						groupProfileId: request.principal.groupProfileId,
						fileName: record.fileName ?? `document-${index + 1}`,
						fileFormat: record.fileFormat ?? null,
						description: record.description ?? null,
						sizeBytes: Buffer.from(record.content ?? '', 'base64').length,
						crStamp: now,
					};
					context.world.store.secureDocuments.set(document.id, document);
					return { ...document };
				},
			);
			return created({ secureDocumentList });
		},
	},
];
