/**
 * What a client does with a case after ordering it: cancel it or some of its services, archive and unarchive it,
 * begin its processing, place it, begin a pre-adverse action; and what it reads of it besides its data: its
 * services of one type and its configuration.
 *
 * States (the lifecycle's steps, sandbox/lifecycle.ts): a case can be canceled while it waits for its candidate
 * (steps 1 and 2); it ends Complete / Canceled. Processing can begin at step 1 or 2 once the candidate's date of
 * birth is known. A Complete case can be placed (Adjudicated, result Placed) or, when a screening ended `consider`,
 * put into pre-adverse action (Adjudicated, result Pre-Adverse Action), which can still be placed. Each status
 * change emits its webhook. The reference's error texts are used where it gives them (api/contract.json).
 */
import { randomUUID } from 'crypto';

import { SERVICES, findService, isDrugPanelServiceId } from '../../nodes/shared/catalog';
import { isPlainObject } from '../../nodes/shared/values';
import { PACKAGES } from '../fixtures';
import { httpError, ok, requireObjectBody, type ApiResponse } from '../http';
import { dobOf, invitationOf } from '../invitations';
import type { CaseRecord } from '../state';
import { adverseActionStatusFields, sequenceStepOf } from '../statuses';
import type { SandboxContext } from '../world';
import { caseServices } from './cases';
import { referenceText, requireOwnCase, type ApiRoute } from './common';

const CANCEL = '/case/id/{caseId}/cancel';
const CANCEL_SERVICES = '/case/id/{caseId}/services/cancel';
const ARCHIVE = '/case/archive/{caseId}';

/** The reference's texts (its error examples). */
export const CASE_ALREADY_STARTED = referenceText('POST', CANCEL, 422, 'Example 1');
export const UNABLE_TO_CANCEL = referenceText('POST', CANCEL, 422, 'Example 2');
export const SERVICE_CANNOT_BE_CANCELED = referenceText(
	'POST',
	CANCEL_SERVICES,
	422,
	'Service cannot be canceled',
);
export const SSN_TRACE_REQUIRED = referenceText('POST', CANCEL_SERVICES, 422, 'SSN Trace required');
export const INVALID_CASE = referenceText('POST', ARCHIVE, 404);

const SSN_TRACE = SERVICES.find((service) => service.name === 'SSN Trace')!.id;
/** The searches SSN Trace is required for: County, State and Federal Criminal Search (and their kin). */
const NEEDS_SSN_TRACE = new Set(
	SERVICES.filter((service) => /\b(County|State|Federal)\b.*\bCriminal\b/.test(service.name)).map(
		(service) => service.id,
	),
);

const unprocessable = (message: string) => httpError(422, message);

const isCanceled = (record: CaseRecord) => record.secondaryStatus === 'Canceled';

/** Complete and not canceled, no decision yet. */
const isCompleteAndOpen = (record: CaseRecord) =>
	record.caseStatus === 'Complete' &&
	record.secondaryStatus === null &&
	record.resultType === 'Open';

function cancelCase(record: CaseRecord, context: SandboxContext): void {
	if (isCanceled(record)) throw unprocessable(UNABLE_TO_CANCEL);
	const step = sequenceStepOf(record);
	if (step === undefined || step >= 3) throw unprocessable(CASE_ALREADY_STARTED);
	const invitation = invitationOf(record);
	if (invitation) invitation.deletedStamp = invitation.modStamp = context.clock.nowIso();
	context.world.lifecycle.cancelCase(record);
}

function cancelServices(record: CaseRecord, serviceIds: string[], context: SandboxContext): void {
	const caseData = context.world.store.caseDataOf(record);
	const chosen = [...new Set(serviceIds)].map((serviceId) =>
		caseData.find((entry) => entry.serviceId === serviceId),
	);
	if (chosen.length === 0 || chosen.some((entry) => entry?.status !== 'pending'))
		throw unprocessable(SERVICE_CANNOT_BE_CANCELED);
	const canceling = new Set(chosen.map((entry) => entry!.serviceId));
	const keepsSearchNeedingSsn = caseData.some(
		(entry) =>
			NEEDS_SSN_TRACE.has(entry.serviceId) &&
			entry.status !== 'canceled' &&
			!canceling.has(entry.serviceId),
	);
	if (canceling.has(SSN_TRACE) && keepsSearchNeedingSsn) throw unprocessable(SSN_TRACE_REQUIRED);
	context.world.lifecycle.cancelCaseData(
		record,
		chosen.map((entry) => entry!),
	);
}

function beginProcessing(record: CaseRecord, context: SandboxContext): void {
	const step = sequenceStepOf(record);
	if (isCanceled(record)) throw unprocessable('The case is canceled: it cannot begin processing');
	if (step === undefined || step >= 3) throw unprocessable('The case has already begun processing');
	if (dobOf(record) === null)
		throw unprocessable(
			"The case is not ready to begin processing: the candidate's date of birth is missing (order data codt-dob, or POST /candidate/id/{candidateId}/update/case/id/{caseId})",
		);
	context.world.lifecycle.beginProcessing(record);
}

/** Why a case cannot be placed, or undefined when it can. */
function whyNotPlaceable(record: CaseRecord): string | undefined {
	if (isCompleteAndOpen(record)) return undefined;
	if (record.caseStatus === 'Adjudicated' && record.resultType === 'Pre-Adverse Action')
		return undefined;
	if (isCanceled(record)) return 'the case is canceled';
	if (record.caseStatus !== 'Adjudicated') return 'the case is not complete';
	return `the case is ${record.resultType} already`;
}

function place(record: CaseRecord, context: SandboxContext): void {
	const reason = whyNotPlaceable(record);
	if (reason) throw unprocessable(`The case could not be put into Placed: ${reason}`);
	// Placing a case in pre-adverse action ends that process.
	if (record.adverseAction)
		Object.assign(record.adverseAction, adverseActionStatusFields('Cancel'));
	context.world.lifecycle.adjudicate(record, 'Placed');
}

function preAdverse(record: CaseRecord, body: Record<string, unknown>, context: SandboxContext) {
	const refuse = (why: string) =>
		unprocessable(`The case cannot be put into Pre-Adverse Action: ${why}`);
	if (isCanceled(record)) throw refuse('the case is canceled');
	if (record.caseStatus !== 'Complete' && record.caseStatus !== 'Adjudicated')
		throw refuse('the case is not complete');
	if (!isCompleteAndOpen(record)) throw refuse(`the case is ${record.resultType} already`);
	const { store } = context.world;
	const caseData = store.caseDataOf(record);
	if (!caseData.some((entry) => entry.status === 'consider'))
		throw refuse('no screening of the case has results to review (none ended consider)');
	const selections = Array.isArray(body.adverseScreeningSelections)
		? body.adverseScreeningSelections.map(String)
		: [];
	const unknown = selections.filter((id) => !caseData.some((entry) => entry.serviceId === id));
	if (unknown.length > 0)
		throw refuse(
			`adverseScreeningSelections names services the case does not have: ${unknown.join(', ')}`,
		);
	record.adverseAction = {
		id: randomUUID(),
		...adverseActionStatusFields('Pre-Adverse'),
		reason: typeof body.reason === 'string' ? body.reason : null,
		serviceIds: selections,
		crStamp: context.clock.nowIso(),
		caseData: caseData.map((entry) => ({
			id: entry.id,
			serviceName: entry.serviceName,
			status: entry.status,
			statusDisplayName: entry.statusDisplayName,
		})),
	};
	context.world.lifecycle.adjudicate(record, 'Pre-Adverse Action');
}

/** The reference's path names of service types (`/case/id/{caseId}/services/{serviceType}`) and the types' names. */
const SERVICE_TYPE_PATH_NAMES: Readonly<Record<string, string>> = {
	screenings: 'Screening',
	legal: 'Legal',
	payment: 'Payment',
	idv: 'Identity',
	shipment: 'Shipment',
};

/** How the configurations read in the dashboard: the reference's examples where it gives them. */
const KNOWN_VALUE_LABELS: Readonly<Record<string, [display: string, description: string]>> = {
	'company-default': ['Refer To Company Settings', 'Refer to company settings.'],
	'no-alias': ['No Aliases', 'No aliases.'],
	'docs-acceptable': ['Documents Acceptable', 'Documents acceptable.'],
};

/** The labels of a configuration value: the reference's where it shows them, else the value's words. */
function labelled(rawValue: string, configDisplayLabel: string, configDescription: string) {
	const words = rawValue.replace(/[-+]/g, ' ').replace(/\s+/g, ' ').trim();
	const [display, description] = KNOWN_VALUE_LABELS[rawValue] ?? [
		words.replace(/\b\w/g, (letter) => letter.toUpperCase()),
		`${words.charAt(0).toUpperCase()}${words.slice(1)}.`,
	];
	return {
		rawValue,
		pillLabel: display,
		valueDescription: description,
		configDescription,
		valueDisplayLabel: display,
		configDisplayLabel,
	};
}

const appliesTo = (field: 'serviceCategoryIds' | 'serviceSubCategoryIds', id: string) => ({
	serviceIds: [],
	serviceCategoryIds: field === 'serviceCategoryIds' ? [id] : [],
	serviceSubCategoryIds: field === 'serviceSubCategoryIds' ? [id] : [],
});

const EMPLOYMENT = SERVICES.find((service) => service.name === 'Employment Verification')!.id;
const EDUCATION = SERVICES.find((service) => service.name === 'Education Verification')!.id;
const VERIFICATION_METHOD = [
	'Verification Method',
	'Specifies the verification method used for this service.',
] as const;
/** The services the reference configures, and how. */
const SERVICE_CONFIGS: Readonly<
	Record<string, { key: string; defaultValue: string; label: string; description: string }>
> = {
	[EDUCATION]: {
		key: 'verificationMethod',
		defaultValue: 'docs-acceptable',
		label: VERIFICATION_METHOD[0],
		description: VERIFICATION_METHOD[1],
	},
	[EMPLOYMENT]: {
		key: 'verificationMethod',
		defaultValue: 'docs-acceptable',
		label: VERIFICATION_METHOD[0],
		description: VERIFICATION_METHOD[1],
	},
	'service-employment-income': {
		key: 'verificationMethod',
		defaultValue: 'docs-acceptable',
		label: VERIFICATION_METHOD[0],
		description: VERIFICATION_METHOD[1],
	},
	'service-ohs-tb-quantiferon-gold': {
		key: 'substitutionPolicy',
		defaultValue: 'company-default',
		label: 'Substitution Policy',
		description:
			'Specifies if T-Spot can be ordered in place of Quantiferon Gold when Quantiferon Gold is unavailable.',
	},
	'service-ohs-tb-tspot-test': {
		key: 'substitutionPolicy',
		defaultValue: 'company-default',
		label: 'Substitution Policy',
		description:
			'Specifies if Quantiferon Gold can be ordered in place of T-Spot when T-Spot is unavailable.',
	},
};

/**
 * The case's configuration (the reference's `Configuration`): the contacts of the order, and a configuration for
 * every screening of the package that has one (ordered or not), with the order's value or the default.
 */
function configuration(record: CaseRecord) {
	const order = record.orderConfig ?? {};
	const value = (key: string, fallback: string) =>
		typeof order[key] === 'string' ? (order[key] as string) : fallback;
	const packageServiceIds =
		PACKAGES.find((pkg) => pkg.packageId === record.packageId)?.serviceIds ?? [];
	const categories = new Set(packageServiceIds.map((id) => findService(id)?.categoryId));
	const hasDrugScreening = packageServiceIds.some(
		(id) => isDrugPanelServiceId(id) || findService(id)?.subcategoryId === 'service-subcat-drug',
	);
	const hasOhs = categories.has('service-cat-ohs') || hasDrugScreening;
	const orderedServiceConfigs = isPlainObject(order.serviceConfigs) ? order.serviceConfigs : {};
	const serviceConfigs: Record<string, unknown> = {};
	for (const serviceId of packageServiceIds) {
		const config = SERVICE_CONFIGS[serviceId];
		if (!config) continue;
		const ordered = orderedServiceConfigs[serviceId];
		const rawValue =
			isPlainObject(ordered) && typeof ordered[config.key] === 'string'
				? (ordered[config.key] as string)
				: config.defaultValue;
		serviceConfigs[serviceId] = {
			[config.key]: labelled(rawValue, config.label, config.description),
		};
	}
	return {
		...(Array.isArray(order.contacts) ? { contacts: order.contacts } : {}),
		...(Object.keys(serviceConfigs).length > 0 ? { serviceConfigs } : {}),
		...(categories.has('service-cat-criminal')
			? {
					aliasNameConfiguration: {
						...labelled(
							value('aliasNameConfiguration', 'no-alias'),
							'Alias Name Configuration',
							'Specifies the method used to select aliases.',
						),
						appliesTo: appliesTo('serviceCategoryIds', 'service-cat-criminal'),
					},
				}
			: {}),
		...(hasDrugScreening
			? {
					diluteDrugPolicy: {
						...labelled(
							value('diluteDrugPolicy', 'company-default'),
							'Dilute Drug Policy',
							'Specifies next steps when a Drug sample is dilute.',
						),
						appliesTo: appliesTo('serviceSubCategoryIds', 'service-subcat-drug'),
					},
				}
			: {}),
		...(hasOhs
			? {
					lostOrIncompleteOHSDrugPolicy: {
						...labelled(
							value('lostOrIncompleteOHSDrugPolicy', 'company-default'),
							'Lost or Incomplete OHS/Drug Policy',
							'Specifies next steps when an OHS/Drug sample is lost or incomplete.',
						),
						appliesTo: appliesTo('serviceCategoryIds', 'service-cat-ohs'),
					},
					ohsDrugPassportExpirationPolicy: {
						...labelled(
							value('ohsDrugPassportExpirationPolicy', 'company-default'),
							'OHS/Drug Passport Expiration Policy',
							'Specifies next steps when an OHS/Drug ePassport expires.',
						),
						appliesTo: appliesTo('serviceCategoryIds', 'service-cat-ohs'),
					},
				}
			: {}),
	};
}

function archive(request: Parameters<ApiRoute['handle']>[0], context: SandboxContext): ApiResponse {
	// An unknown case: the reference's 404, as text.
	if (!context.world.store.cases.has(request.params.caseId))
		return { status: 404, body: INVALID_CASE };
	const record = requireOwnCase(context, request);
	record.archived = 1;
	record.modStamp = context.clock.nowIso();
	return ok('success');
}

export const caseActionRoutes: ApiRoute[] = [
	{
		method: 'POST',
		path: CANCEL,
		handle: (request, context) => {
			cancelCase(requireOwnCase(context, request), context);
			return ok(undefined);
		},
	},
	{
		method: 'POST',
		path: CANCEL_SERVICES,
		handle: (request, context) => {
			const record = requireOwnCase(context, request);
			const body = requireObjectBody(request.body);
			cancelServices(record, (body.serviceIds as unknown[]).map(String), context);
			return ok(undefined);
		},
	},
	{ method: 'POST', path: ARCHIVE, handle: archive },
	{
		method: 'POST',
		path: '/case/unarchive/{caseId}',
		handle: (request, context) => {
			const record = requireOwnCase(context, request);
			if (record.archived === 0)
				throw unprocessable('Could not unarchive case: it is not archived');
			record.archived = 0;
			record.modStamp = context.clock.nowIso();
			return ok(undefined);
		},
	},
	{
		method: 'PUT',
		path: '/case/id/{caseId}/action/beginprocessing',
		handle: (request, context) => {
			beginProcessing(requireOwnCase(context, request), context);
			return ok(undefined);
		},
	},
	{
		method: 'PUT',
		path: '/case/id/{caseId}/action/place',
		handle: (request, context) => {
			place(requireOwnCase(context, request), context);
			return ok(undefined);
		},
	},
	{
		method: 'POST',
		path: '/case/id/{caseId}/action/preadverse',
		handle: (request, context) => {
			const record = requireOwnCase(context, request);
			preAdverse(
				record,
				request.body === undefined ? {} : requireObjectBody(request.body),
				context,
			);
			return ok(undefined);
		},
	},
	{
		method: 'GET',
		path: '/case/id/{caseId}/services/{serviceType}',
		handle: (request, context) => {
			const record = requireOwnCase(context, request);
			const typeName = SERVICE_TYPE_PATH_NAMES[request.params.serviceType];
			return ok({
				serviceGroupServices: caseServices(record, context, true).filter(
					(service) => service.serviceTypeName === typeName,
				),
			});
		},
	},
	{
		method: 'GET',
		path: '/config/case/id/{caseId}',
		handle: (request, context) => ok(configuration(requireOwnCase(context, request))),
	},
];
