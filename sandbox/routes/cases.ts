/**
 * Case rows of the API reference: create, the case lists, one case, its services, its case data per service
 * type, add services, and the search cancel. The router has checked every body against the contract already
 * (api/contract.ts); what is left here is what the contract cannot say (a known package, known service IDs,
 * secure documents of the caller's group, the name rule of spec 7).
 */
import { randomUUID } from 'crypto';

import { buildCaseData } from '../caseDataRecords';
import { DEMO_COMPANY, DEMO_GROUPS, LEGAL_SERVICES, PACKAGES } from '../fixtures';
import { SERVICE_TYPES } from '../../nodes/shared/catalog';
import { isPlainObject } from '../../nodes/shared/values';
import { HttpError, ok, requireObjectBody } from '../http';
import type { ApiClient, CaseRecord } from '../state';
import { caseStepFields, OPEN_RESULT, sequenceStepOf } from '../statuses';
import type { SandboxContext } from '../world';
import { packageServices } from './packages';
import { BodyProblems, requireOwnCase, requireOwnCaseData, type ApiRoute } from './common';

const ON_BEHALF_OF = 'karmacheck-on-behalf-of';

/** What the contract cannot check of order data: known services and the caller's secure documents. */
function checkOrderData(
	orderData: Record<string, unknown>[],
	problems: BodyProblems,
	context: SandboxContext,
	caller: ApiClient,
): void {
	orderData.forEach((entry, index) => {
		if (entry.serviceId !== undefined)
			problems.checkServiceId(`orderData[${index}].serviceId`, entry.serviceId);
		const metadata = isPlainObject(entry.metadata) ? entry.metadata : {};
		problems.checkSecureDocumentIds(
			`orderData[${index}].metadata.secureDocumentIds`,
			metadata.secureDocumentIds,
			context,
			caller,
		);
	});
}

const objectsOf = (value: unknown): Record<string, unknown>[] =>
	Array.isArray(value) ? value.filter(isPlainObject) : [];

const textOrNull = (value: unknown): string | null =>
	typeof value === 'string' && value !== '' ? value : null;

function conflict(existing: CaseRecord[]): HttpError {
	return new HttpError(409, {
		cases: existing.map((record) => ({
			existingCaseId: record.id,
			existingCaseCrStamp: record.crStamp,
			existingCasePackageId: record.packageId,
			existingCasePackageName: record.packageName,
			existingCaseStatusId: record.caseStatusId,
			existingCaseStatus: record.caseStatus,
			...(record.secondaryCaseStatusId === null
				? {}
				: {
						existingCaseSecondaryStatusId: record.secondaryCaseStatusId,
						existingCaseSecondaryStatus: record.secondaryStatus,
					}),
			modStamp: record.modStamp,
		})),
	});
}

function createCase(
	body: Record<string, unknown>,
	orderedBy: string | null,
	context: SandboxContext,
	caller: ApiClient,
) {
	const problems = new BodyProblems();
	problems.checkBody(body, true);
	const orderData = objectsOf(body.orderData);
	checkOrderData(orderData, problems, context, caller);
	const excluded = Array.isArray(body.excludeServices) ? body.excludeServices.map(String) : [];
	excluded.forEach((id, index) => problems.checkServiceId(`excludeServices[${index}]`, id));
	const pkg = PACKAGES.find((entry) => entry.packageId === body.packageId);
	if (!pkg)
		problems.add(`packageId ${JSON.stringify(body.packageId)} is not a package of this company`);
	const serviceIds = (pkg?.serviceIds ?? []).filter((id) => !excluded.includes(id));
	if (pkg && serviceIds.length === 0) problems.add('excludeServices leaves the package no service');
	problems.throwIfAny(422);

	const { store, lifecycle } = context.world;
	const email = String(body.email);
	const sameCandidate = store
		.casesOfGroup(caller.groupProfileId)
		.filter((existing) => existing.candidateEmail.toLowerCase() === email.toLowerCase());
	// `orderOverride`: `add` creates another case, `replace` archives the case `replaceCaseId` names first.
	if (body.orderOverride === 'replace') {
		const replaced = sameCandidate.find((existing) => existing.id === body.replaceCaseId);
		if (!replaced) {
			const problems = new BodyProblems();
			problems.add('replaceCaseId must name an active case of this candidate in the group');
			problems.throwIfAny(422);
		}
		replaced!.archived = 1;
		replaced!.modStamp = context.clock.nowIso();
	} else if (
		context.world.refuseSameCandidate &&
		body.orderOverride !== 'add' &&
		sameCandidate.some((existing) => existing.archived === 0)
	)
		throw conflict(sameCandidate.filter((existing) => existing.archived === 0));

	const now = context.clock.nowIso();
	const customerProvidedPii = body.autoProcess === true || body.candidateConsentProvided === true;
	const record: CaseRecord = {
		id: randomUUID(),
		companyId: DEMO_COMPANY.companyId,
		companyName: DEMO_COMPANY.name,
		groupProfileId: caller.groupProfileId,
		groupName:
			DEMO_GROUPS.find((group) => group.groupProfileId === caller.groupProfileId)?.name ?? '',
		crUserId: caller.id,
		...caseStepFields(1),
		...OPEN_RESULT,
		packageId: pkg!.packageId,
		packageName: pkg!.packageName,
		candidateId: randomUUID(),
		candidateEmail: email,
		candidateGivenName: String(body.givenName),
		candidateMiddleName: textOrNull(body.middleName),
		candidateFamilyName: String(body.familyName),
		candidatePhone: textOrNull(body.phone),
		caseInvitationId: randomUUID(),
		isCustomerProvidedPii: customerProvidedPii ? 1 : 0,
		archived: 0,
		orderedBy,
		caseDataIds: [],
		excludeServices: excluded,
		orderConfig: isPlainObject(body.orderConfig) ? body.orderConfig : null,
		orderData,
		apiTrackingCode: textOrNull(body.apiTrackingCode),
		apiTrackingUser: textOrNull(body.apiTrackingUser),
		crStamp: now,
		modStamp: now,
	};
	for (const serviceId of serviceIds) addCaseData(record, serviceId, orderData, now, context);
	store.cases.set(record.id, record);
	lifecycle.start(record);
	return { caseId: record.id, caseInvitationId: record.caseInvitationId };
}

/** A new case data of `serviceId` in the case (one per service). */
function addCaseData(
	record: CaseRecord,
	serviceId: string,
	orderData: Record<string, unknown>[],
	now: string,
	context: SandboxContext,
): void {
	const caseData = buildCaseData(record, serviceId, orderData, now);
	context.world.store.caseData.set(caseData.id, caseData);
	record.caseDataIds.push(caseData.id);
}

function addServices(
	record: CaseRecord,
	body: Record<string, unknown>,
	context: SandboxContext,
	caller: ApiClient,
): void {
	const problems = new BodyProblems();
	const services = objectsOf(body.services);
	if (services.length === 0 && objectsOf(body.orderData).length === 0)
		problems.add('give services or order data to add');
	services.forEach((service, index) =>
		problems.checkServiceId(`services[${index}].id`, service.id),
	);
	const orderData = objectsOf(body.orderData);
	checkOrderData(orderData, problems, context, caller);
	if (sequenceStepOf(record) === undefined)
		problems.add(
			`The case is ${record.secondaryStatus ?? record.caseStatus}: no service can be added`,
		);
	problems.throwIfAny(422);

	const { store, lifecycle } = context.world;
	const present = new Set(store.caseDataOf(record).map((caseData) => caseData.serviceId));
	const now = context.clock.nowIso();
	// Services already in the case are skipped, so a retried request does not add them twice.
	for (const serviceId of new Set(services.map((service) => String(service.id)))) {
		if (!present.has(serviceId)) addCaseData(record, serviceId, orderData, now, context);
	}
	record.orderData.push(...orderData);
	record.modStamp = now;
	lifecycle.servicesAdded(record);
}

/** The services of a case, as the reference lists a package's with the case's own fields added. */
const LEGAL_TYPE_ID = SERVICE_TYPES.find((type) => type.name === 'Legal')!.id;

/** The legal services of a case (fixtures' LEGAL_SERVICES), as the services list shows them. */
function legalServices(record: CaseRecord) {
	return Object.entries(LEGAL_SERVICES).map(([serviceId, name], index) => ({
		serviceGroupId: record.packageId,
		serviceGroupName: record.packageName,
		serviceGroupDescription: record.packageName,
		serviceId,
		serviceName: name,
		serviceDescription: name,
		serviceTypeId: LEGAL_TYPE_ID,
		serviceTypeName: 'Legal',
		serviceGroupEnabled: true,
		serviceEnabled: true,
		serviceAutoProcessEnabled: true,
		serviceTypeEnabled: true,
		conditional: false,
		defaultSelected: true,
		enabled: true,
		serviceGroupServicesId: `${record.packageId}/legal/${index}`,
	}));
}

/**
 * The services of a case: those ordered from its package, and with `withLegal` the legal ones (listed by
 * `/services/legal` only: what the reference's full list holds of them it does not show).
 */
export function caseServices(record: CaseRecord, context: SandboxContext, withLegal = false) {
	const serviceIds = context.world.store.caseDataOf(record).map((data) => data.serviceId);
	return [
		...packageServices(record.packageId, record.packageName, serviceIds),
		...(withLegal ? legalServices(record) : []),
	].map((service) => ({
		...service,
		caseId: record.id,
		packageName: record.packageName,
		candidateId: record.candidateId,
		groupProfileId: record.groupProfileId,
	}));
}

export const caseRoutes: ApiRoute[] = [
	{
		method: 'GET',
		path: '/case/list',
		handle: (request, context) => {
			const { store } = context.world;
			const cases = store
				.casesOfGroup(request.principal.groupProfileId)
				.filter((record) => record.archived === 0)
				.map((record) => store.caseView(record));
			return ok({ cases });
		},
	},
	{
		method: 'GET',
		path: '/case/list/all',
		handle: (request, context) => {
			const { store } = context.world;
			const userId = request.query.get('userId');
			const packageId = request.query.get('packageId');
			const cases = store
				.casesOfGroup(request.principal.groupProfileId)
				.filter((record) => userId === null || record.crUserId === userId)
				.filter((record) => packageId === null || record.packageId === packageId)
				.map((record) => store.caseView(record));
			return ok({ cases });
		},
	},
	{
		method: 'GET',
		path: '/case/id/{caseId}',
		handle: (request, context) => {
			const record = requireOwnCase(context, request);
			return ok({ cases: [context.world.store.caseView(record)] });
		},
	},
	{
		method: 'POST',
		path: '/case/create',
		handle: (request, context) => {
			const orderedBy = request.headers[ON_BEHALF_OF];
			return ok(
				createCase(
					requireObjectBody(request.body),
					typeof orderedBy === 'string' ? orderedBy : null,
					context,
					request.principal,
				),
			);
		},
	},
	{
		method: 'POST',
		path: '/case/id/{caseId}/add/services',
		handle: (request, context) => {
			const record = requireOwnCase(context, request);
			addServices(record, requireObjectBody(request.body), context, request.principal);
			return ok(undefined);
		},
	},
	{
		method: 'GET',
		path: '/case/id/{caseId}/services',
		handle: (request, context) => {
			const record = requireOwnCase(context, request);
			return ok({ serviceGroupServices: caseServices(record, context) });
		},
	},
	{
		method: 'GET',
		path: '/case/id/{caseId}/data/{serviceTypeId}',
		handle: (request, context) => {
			const record = requireOwnCase(context, request);
			const data = context.world.store
				.caseDataOf(record)
				.filter((caseData) => caseData.serviceTypeId === request.params.serviceTypeId)
				.map((caseData) => context.world.store.caseDataView(caseData));
			return ok({ data });
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
			return ok(undefined);
		},
	},
];
