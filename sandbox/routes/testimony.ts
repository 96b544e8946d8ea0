/**
 * Testimony of a case: create, update (a whole `Testimony` again), the case's testimony by kind, and detach.
 * The contract checks the `Testimony` shape; a professional license (`testimony-type-cplc`) is checked here
 * against its CPLC definition: known field IDs, the required ones given.
 */
import { randomUUID } from 'crypto';

import { CPLC_DEFINITIONS } from '../fixtures';
import { isPlainObject } from '../../nodes/shared/values';
import { notFound, ok, requireObjectBody } from '../http';
import type { CaseRecord, TestimonyRecord } from '../state';
import type { SandboxContext } from '../world';
import { BodyProblems, requireOwnCase, type ApiRoute } from './common';

export const CPLC_TESTIMONY_TYPE = 'testimony-type-cplc';

/** The reference's testimony kinds by type ID, as `GET /testimony/case/{caseId}` groups them. */
const KIND_OF_TYPE: Readonly<Record<string, string>> = {
	[CPLC_TESTIMONY_TYPE]: 'customProfessionalLicense',
};

function checkTestimony(body: Record<string, unknown>): void {
	const problems = new BodyProblems();
	problems.checkBody(body, false);
	if (body.testimonyTypeId === CPLC_TESTIMONY_TYPE) {
		const details = isPlainObject(body.details) ? body.details : {};
		const definition = CPLC_DEFINITIONS.find((entry) => entry.id === details.cplcId);
		const fields = Array.isArray(details.fields) ? details.fields.filter(isPlainObject) : [];
		if (!definition) problems.add(`details.cplcId ${JSON.stringify(details.cplcId)} is not a CPLC`);
		else {
			const known = new Set(definition.fields.map((field) => field.fieldId));
			for (const field of fields)
				if (!known.has(String(field.fieldId)))
					problems.add(`details.fields: ${field.fieldId} is not a field of CPLC ${definition.id}`);
			for (const required of definition.fields.filter((field) => field.required))
				if (
					!fields.some(
						(field) => field.fieldId === required.fieldId && String(field.value).trim() !== '',
					)
				)
					problems.add(`details.fields: ${required.fieldId} is required by CPLC ${definition.id}`);
		}
	}
	problems.throwIfAny(422);
}

function store(
	context: SandboxContext,
	record: CaseRecord,
	body: Record<string, unknown>,
	id: string,
	crStamp: string,
): TestimonyRecord {
	const testimony: TestimonyRecord = {
		id,
		caseId: record.id,
		testimonyTypeId: String(body.testimonyTypeId),
		testimonySubType: typeof body.testimonySubType === 'string' ? body.testimonySubType : null,
		description: typeof body.description === 'string' ? body.description : null,
		details: isPlainObject(body.details) ? body.details : null,
		crStamp,
		modStamp: context.clock.nowIso(),
	};
	context.world.store.testimonies.set(id, testimony);
	return testimony;
}

function testimonyOfCase(context: SandboxContext, record: CaseRecord, testimonyId: string) {
	const testimony = context.world.store.testimonies.get(testimonyId);
	if (!testimony || testimony.caseId !== record.id)
		throw notFound(`Case ${record.id} has no testimony ${testimonyId}`);
	return testimony;
}

/** The case's testimony grouped by kind, each entry its details with its ID. */
function testimonyView(context: SandboxContext, record: CaseRecord) {
	const grouped: Record<string, unknown[]> = {
		address: [],
		driversLicense: [],
		parentalConsent: [],
		education: [],
		employment: [],
		customProfessionalLicense: [],
	};
	for (const testimony of context.world.store.testimoniesOf(record.id)) {
		const kind = KIND_OF_TYPE[testimony.testimonyTypeId];
		if (kind === undefined) continue;
		const details = testimony.details ?? {};
		const definition = CPLC_DEFINITIONS.find((entry) => entry.id === details.cplcId);
		grouped[kind].push({
			...details,
			id: testimony.id,
			caseDataIds: [],
			cplcName: definition?.name ?? '',
		});
	}
	return { testimony: grouped };
}

export const testimonyRoutes: ApiRoute[] = [
	{
		method: 'POST',
		path: '/testimony/create/case/id/{caseId}',
		handle: (request, context) => {
			const record = requireOwnCase(context, request);
			const body = requireObjectBody(request.body);
			checkTestimony(body);
			const now = context.clock.nowIso();
			return ok({ id: store(context, record, body, randomUUID(), now).id });
		},
	},
	{
		method: 'POST',
		path: '/testimony/id/{testimonyId}/update/case/id/{caseId}',
		handle: (request, context) => {
			const record = requireOwnCase(context, request);
			const current = testimonyOfCase(context, record, request.params.testimonyId);
			const body = requireObjectBody(request.body);
			checkTestimony(body);
			return ok({ id: store(context, record, body, current.id, current.crStamp).id });
		},
	},
	{
		method: 'GET',
		path: '/testimony/case/{caseId}',
		handle: (request, context) => ok(testimonyView(context, requireOwnCase(context, request))),
	},
	{
		method: 'DELETE',
		path: '/testimony/id/{testimonyId}/detach/case/id/{caseId}',
		handle: (request, context) => {
			const record = requireOwnCase(context, request);
			const testimony = testimonyOfCase(context, record, request.params.testimonyId);
			context.world.store.testimonies.delete(testimony.id);
			return ok(undefined);
		},
	},
];
