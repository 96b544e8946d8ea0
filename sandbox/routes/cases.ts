/**
 * Spec 4.3, case rows: list, get, create, add services, case data per service type, search cancel.
 * Plus `PUT /case/id/{caseId}/candidate`, a sandbox path for the candidate-info update that spec 7 validates
 * but whose path the spec does not show.
 *
 * Create body (the spec shows none; this is the sandbox's shape):
 *   { candidate: { firstName, middleName?, lastName, email, ... }, aliases?: [{ firstName, middleName?, lastName }],
 *     packageId?, services?: [{ id }], excludeServices?: [serviceId], orderConfig?: { contacts?: [...] },
 *     orderData?: [{ serviceId?, type?, ... }], apiTrackingCode?, apiTrackingUser? }
 */
import { randomUUID } from 'crypto';

import { buildCaseData } from '../caseDataRecords';
import { DEMO_COMPANY, PACKAGES } from '../fixtures';
import { isPlainObject } from '../../nodes/shared/values';
import { HttpError, created, ok, requireObjectBody } from '../http';
import type { ApiClient, CaseRecord } from '../state';
import { caseStepFields } from '../statuses';
import type { SandboxContext } from '../world';
import {
	BodyProblems,
	isString,
	paginate,
	requireOwnCase,
	requireOwnCaseData,
	type ApiRoute,
} from './common';

const REQUIRED_CANDIDATE_FIELDS = ['firstName', 'lastName', 'email'] as const;

/** `names`: the name rule of spec 7 applies (case creation), not to Add Services. */
function checkCaseParts(
	body: Record<string, unknown>,
	problems: BodyProblems,
	context: SandboxContext,
	caller: ApiClient,
	names: boolean,
) {
	problems.checkBody(body, names);
	problems.checkArray('aliases', body.aliases, isPlainObject, 'objects');
	problems.checkArray('services', body.services, isPlainObject, '{ id } objects');
	problems.checkArray('excludeServices', body.excludeServices, isString, 'service IDs');
	problems.checkArray('orderData', body.orderData, isPlainObject, 'objects');
	if (body.orderConfig !== undefined && !isPlainObject(body.orderConfig))
		problems.add('orderConfig must be an object');

	const services = Array.isArray(body.services) ? body.services : [];
	services.forEach((service, index) =>
		problems.checkServiceId(`services[${index}].id`, service?.id),
	);
	const excluded = Array.isArray(body.excludeServices) ? body.excludeServices : [];
	excluded.forEach((id, index) => problems.checkServiceId(`excludeServices[${index}]`, id));
	const orderData = Array.isArray(body.orderData) ? body.orderData : [];
	orderData.forEach((entry, index) => {
		if (!isPlainObject(entry)) return;
		if (entry.serviceId !== undefined)
			problems.checkServiceId(`orderData[${index}].serviceId`, entry.serviceId);
		problems.checkSecureDocumentIds(
			`orderData[${index}].secureDocumentIds`,
			entry.secureDocumentIds,
			context,
			caller,
		);
	});
}

function stringOrNull(value: unknown): string | null {
	return typeof value === 'string' ? value : null;
}

function objectsOf(value: unknown): Record<string, unknown>[] {
	return Array.isArray(value) ? value.filter(isPlainObject) : [];
}

function createCase(body: Record<string, unknown>, context: SandboxContext, caller: ApiClient) {
	const problems = new BodyProblems();
	checkCaseParts(body, problems, context, caller, true);
	const candidate = isPlainObject(body.candidate) ? body.candidate : undefined;
	if (!candidate) problems.add('candidate must be an object with firstName, lastName and email');
	for (const field of REQUIRED_CANDIDATE_FIELDS) {
		if (candidate && !(typeof candidate[field] === 'string' && candidate[field] !== '')) {
			problems.add(`candidate.${field} is required`);
		}
	}
	const pkg =
		body.packageId === undefined
			? undefined
			: PACKAGES.find((entry) => entry.packageId === body.packageId);
	if (body.packageId !== undefined && !pkg)
		problems.add(`packageId ${JSON.stringify(body.packageId)} is not a known package`);
	const excluded = new Set(Array.isArray(body.excludeServices) ? body.excludeServices : []);
	const serviceIds = [
		...new Set([
			...(pkg?.serviceIds ?? []),
			...objectsOf(body.services).map((service) => String(service.id)),
		]),
	].filter((id) => !excluded.has(id));
	if (serviceIds.length === 0)
		problems.add('The case has no services: give a packageId and/or services');
	problems.throwIfAny();

	const { store, lifecycle } = context.world;
	const email = String(candidate!.email);
	const sameCandidate = store
		.casesOfGroup(caller.groupProfileId)
		.filter((existing) => existing.candidate.email.toLowerCase() === email.toLowerCase());
	if (context.world.refuseSameCandidate && sameCandidate.length > 0) {
		throw new HttpError(409, {
			httpStatus: 409,
			cases: sameCandidate.map((existing) => store.caseView(existing)),
		});
	}

	const now = context.clock.nowIso();
	const orderData = objectsOf(body.orderData);
	const record: CaseRecord = {
		id: randomUUID(),
		companyId: DEMO_COMPANY.companyId,
		groupProfileId: caller.groupProfileId,
		...caseStepFields(1),
		packageId: pkg?.packageId ?? null,
		candidate: { ...(candidate as CaseRecord['candidate']) },
		aliases: objectsOf(body.aliases),
		caseDataIds: [],
		excludeServices: [...excluded].map(String),
		orderConfig: isPlainObject(body.orderConfig) ? body.orderConfig : null,
		orderData,
		apiTrackingCode: stringOrNull(body.apiTrackingCode),
		apiTrackingUser: stringOrNull(body.apiTrackingUser),
		crStamp: now,
		modStamp: now,
	};
	for (const serviceId of serviceIds) addCaseData(record, serviceId, orderData, now, context);
	store.cases.set(record.id, record);
	lifecycle.start(record);
	return store.caseView(record);
}

/** A new case data of `serviceId` in the case (one per service). */
function addCaseData(
	record: CaseRecord,
	serviceId: string,
	orderData: Record<string, unknown>[],
	now: string,
	context: SandboxContext,
): void {
	const caseData = buildCaseData(record.id, serviceId, orderData, now);
	context.world.store.caseData.set(caseData.id, caseData);
	record.caseDataIds.push(caseData.id);
}

function addServices(
	record: CaseRecord,
	body: Record<string, unknown>,
	context: SandboxContext,
	caller: ApiClient,
) {
	const problems = new BodyProblems();
	checkCaseParts(body, problems, context, caller, false);
	if (!Array.isArray(body.services) || body.services.length === 0)
		problems.add('services must list at least one { id }');
	problems.throwIfAny();

	const { store, lifecycle } = context.world;
	const present = new Set(store.caseDataOf(record).map((caseData) => caseData.serviceId));
	const orderData = objectsOf(body.orderData);
	const now = context.clock.nowIso();
	// Services already in the case are skipped, so a retried request does not add them twice.
	for (const serviceId of new Set(objectsOf(body.services).map((service) => String(service.id)))) {
		if (!present.has(serviceId)) addCaseData(record, serviceId, orderData, now, context);
	}
	record.orderData.push(...orderData);
	record.modStamp = now;
	lifecycle.servicesAdded(record);
	return store.caseView(record);
}

function updateCandidate(
	record: CaseRecord,
	body: Record<string, unknown>,
	context: SandboxContext,
) {
	const problems = new BodyProblems();
	problems.checkBody(body, true);
	if (body.candidate !== undefined && !isPlainObject(body.candidate))
		problems.add('candidate must be an object');
	problems.checkArray('aliases', body.aliases, isPlainObject, 'objects');
	const candidate = isPlainObject(body.candidate) ? body.candidate : {};
	for (const field of REQUIRED_CANDIDATE_FIELDS) {
		if (field in candidate && !(typeof candidate[field] === 'string' && candidate[field] !== '')) {
			problems.add(`candidate.${field} cannot be emptied`);
		}
	}
	problems.throwIfAny();

	Object.assign(record.candidate, candidate);
	if (Array.isArray(body.aliases)) record.aliases = objectsOf(body.aliases);
	record.modStamp = context.clock.nowIso();
	return context.world.store.caseView(record);
}

export const caseRoutes: ApiRoute[] = [
	{
		method: 'GET',
		path: '/case/list',
		handle: (request, context) => {
			const { store } = context.world;
			const cases = store
				.casesOfGroup(request.principal.groupProfileId)
				.map((record) => store.caseView(record));
			const page = paginate(cases, request.query.get('page'), request.query.get('pageSize'));
			return ok({ caseList: page.items, listMetadata: page.listMetadata });
		},
	},
	{
		method: 'GET',
		path: '/case/id/{caseId}',
		handle: (request, context) =>
			ok(
				context.world.store.caseView(
					requireOwnCase(context, request.principal, request.params.caseId),
				),
			),
	},
	{
		method: 'POST',
		path: '/case/create',
		handle: (request, context) =>
			created(createCase(requireObjectBody(request.body), context, request.principal)),
	},
	{
		method: 'POST',
		path: '/case/id/{caseId}/add/services',
		handle: (request, context) => {
			const record = requireOwnCase(context, request.principal, request.params.caseId);
			return ok(addServices(record, requireObjectBody(request.body), context, request.principal));
		},
	},
	{
		method: 'GET',
		path: '/case/id/{caseId}/data/{serviceTypeId}',
		handle: (request, context) => {
			const record = requireOwnCase(context, request.principal, request.params.caseId);
			const wanted = request.params.serviceTypeId;
			// The path names a service type; a service, category or subcategory ID narrows the same way.
			const caseDataList = context.world.store
				.caseDataOf(record)
				.filter((data) =>
					[data.serviceTypeId, data.serviceId, data.categoryId, data.subcategoryId].includes(
						wanted,
					),
				)
				.map((data) => context.world.store.caseDataView(data));
			return ok({ caseId: record.id, serviceTypeId: wanted, caseDataList });
		},
	},
	{
		method: 'POST',
		path: '/case/data/id/{caseDataId}/search/id/{searchId}/cancel',
		handle: (request, context) => {
			const { record, caseData } = requireOwnCaseData(
				context,
				request.principal,
				request.params.caseDataId,
			);
			context.world.lifecycle.cancelSearch(record, caseData, request.params.searchId);
			return ok(context.world.store.caseDataView(caseData));
		},
	},
	{
		method: 'PUT',
		path: '/case/id/{caseId}/candidate',
		handle: (request, context) => {
			const record = requireOwnCase(context, request.principal, request.params.caseId);
			return ok(updateCandidate(record, requireObjectBody(request.body), context));
		},
	},
];
