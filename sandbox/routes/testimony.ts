/**
 * Spec 4.3 testimony create / update. Body (sandbox shape):
 *   { cplcId, fields: [{ fieldId, value }], staffingAgency? (at most 100 characters), secureDocumentIds? }
 * `fieldId`s are those of the CPLC definition (2.3); its required fields must have a value. An update may
 * send any part; fields are merged by `fieldId`, the definition cannot change.
 */
import { randomUUID } from 'crypto';

import { CPLC_DEFINITIONS, type CplcDefinition } from '../fixtures';
import { isPlainObject } from '../../nodes/shared/values';
import { created, notFound, ok, requireObjectBody } from '../http';
import type { ApiClient, TestimonyField, TestimonyRecord } from '../state';
import type { SandboxContext } from '../world';
import { BodyProblems, requireOwnCase, type ApiRoute } from './common';

const isTestimonyField = (value: unknown): value is TestimonyField =>
	isPlainObject(value) && typeof value.fieldId === 'string' && typeof value.value === 'string';

function checkTestimonyBody(
	body: Record<string, unknown>,
	context: SandboxContext,
	caller: ApiClient,
): BodyProblems {
	const problems = new BodyProblems();
	problems.checkBody(body, false);
	problems.checkArray('fields', body.fields, isTestimonyField, '{ fieldId, value } objects');
	if (
		body.staffingAgency !== undefined &&
		body.staffingAgency !== null &&
		typeof body.staffingAgency !== 'string'
	) {
		problems.add('staffingAgency must be a string');
	}
	problems.checkSecureDocumentIds('secureDocumentIds', body.secureDocumentIds, context, caller);
	return problems;
}

/** Field IDs must belong to the definition, and its required fields must end up with a value. */
function checkFieldsAgainst(
	definition: CplcDefinition,
	fields: TestimonyField[],
	problems: BodyProblems,
): void {
	const known = new Set(definition.fields.map((field) => field.fieldId));
	for (const field of fields) {
		if (!known.has(field.fieldId))
			problems.add(`fields: ${field.fieldId} is not a field of CPLC definition ${definition.id}`);
	}
	for (const required of definition.fields.filter((field) => field.required)) {
		if (!fields.some((field) => field.fieldId === required.fieldId && field.value.trim() !== '')) {
			problems.add(`fields: ${required.fieldId} is required by CPLC definition ${definition.id}`);
		}
	}
}

function mergeFields(current: TestimonyField[], changes: TestimonyField[]): TestimonyField[] {
	const byId = new Map(current.map((field) => [field.fieldId, field]));
	for (const change of changes)
		byId.set(change.fieldId, { fieldId: change.fieldId, value: change.value });
	return [...byId.values()];
}

export const testimonyRoutes: ApiRoute[] = [
	{
		method: 'POST',
		path: '/testimony/create/case/id/{caseId}',
		handle: (request, context) => {
			const record = requireOwnCase(context, request.principal, request.params.caseId);
			const body = requireObjectBody(request.body);
			const problems = checkTestimonyBody(body, context, request.principal);
			const definition = CPLC_DEFINITIONS.find((candidate) => candidate.id === body.cplcId);
			if (!definition)
				problems.add(`cplcId ${JSON.stringify(body.cplcId)} is not a known CPLC definition`);
			else if (!definition.enabled) problems.add(`CPLC definition ${definition.id} is not enabled`);
			const fields = Array.isArray(body.fields)
				? mergeFields([], body.fields.filter(isTestimonyField))
				: [];
			if (definition) checkFieldsAgainst(definition, fields, problems);
			problems.throwIfAny();

			const now = context.clock.nowIso();
			const testimony: TestimonyRecord = {
				id: randomUUID(),
				caseId: record.id,
				cplcId: definition!.id,
				fields,
				staffingAgency: typeof body.staffingAgency === 'string' ? body.staffingAgency : null,
				secureDocumentIds: Array.isArray(body.secureDocumentIds)
					? body.secureDocumentIds.map(String)
					: [],
				crStamp: now,
				modStamp: now,
			};
			context.world.store.testimonies.set(testimony.id, testimony);
			return created(structuredClone(testimony));
		},
	},
	{
		method: 'PUT',
		path: '/testimony/id/{testimonyId}/update/case/id/{caseId}',
		handle: (request, context) => {
			const record = requireOwnCase(context, request.principal, request.params.caseId);
			const testimony = context.world.store.testimonies.get(request.params.testimonyId);
			if (!testimony || testimony.caseId !== record.id) {
				throw notFound(`No testimony ${request.params.testimonyId} on case ${record.id}`);
			}
			const body = requireObjectBody(request.body);
			const problems = checkTestimonyBody(body, context, request.principal);
			if (body.cplcId !== undefined && body.cplcId !== testimony.cplcId) {
				problems.add('cplcId cannot change; create a new testimony for another definition');
			}
			const fields = Array.isArray(body.fields)
				? mergeFields(testimony.fields, body.fields.filter(isTestimonyField))
				: testimony.fields;
			const definition = CPLC_DEFINITIONS.find((candidate) => candidate.id === testimony.cplcId)!;
			checkFieldsAgainst(definition, fields, problems);
			problems.throwIfAny();

			testimony.fields = fields;
			if (body.staffingAgency !== undefined)
				testimony.staffingAgency =
					typeof body.staffingAgency === 'string' ? body.staffingAgency : null;
			if (Array.isArray(body.secureDocumentIds))
				testimony.secureDocumentIds = body.secureDocumentIds.map(String);
			testimony.modStamp = context.clock.nowIso();
			return ok(structuredClone(testimony));
		},
	},
];
