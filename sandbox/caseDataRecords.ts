/**
 * Case data (one per service in a case): how a new one looks, and which services carry search records
 * (employment / education per-record `statusId` and `searchId`, county criminal `jurisdictions`) or walk
 * through pending statuses (drug screening, OHS).
 */
import { randomUUID } from 'crypto';

import {
	OHS_SUBCATEGORIES,
	REFERENCE_SERVICE_CATEGORIES,
	SERVICES,
	SERVICE_TYPES,
	findService,
	isDrugPanelServiceId,
} from '../nodes/shared/catalog';
import { serviceName } from './fixtures';
import { isPlainObject } from '../nodes/shared/values';
import type { CaseDataDetails, CaseDataRecord, CaseRecord, SearchRecord } from './state';
import { caseDataStatusFields, pendingStatusFields } from './statuses';

const DRUG_SCREENING_SUBCATEGORY = 'service-subcat-drug';
const OHS_CATEGORY = 'service-cat-ohs';
const VERIFICATION_CATEGORY = 'service-cat-verification';
const TB_SKIN_TESTS = [
	'service-ohs-tb-skintest',
	'service-ohs-tb-ppd-test-1',
	'service-ohs-tb-ppd-test-2',
];

function serviceIdNamed(name: string): string {
	const service = SERVICES.find((candidate) => candidate.name === name);
	if (!service) throw new Error(`The catalog has no service named ${name}`);
	return service.id;
}

const COUNTY_CRIMINAL_SEARCH = serviceIdNamed('County Criminal Search');

export const DEFAULT_JURISDICTION = { county: 'Travis', state: 'TX' } as const;

function classification(serviceId: string) {
	const service = findService(serviceId);
	if (!service && isDrugPanelServiceId(serviceId)) {
		return {
			categoryId: OHS_CATEGORY,
			subcategoryId: DRUG_SCREENING_SUBCATEGORY,
			typeId: undefined,
		};
	}
	return {
		categoryId: service?.categoryId,
		subcategoryId: service?.subcategoryId,
		typeId: service?.typeId,
	};
}

const SCREENING_TYPE = 'Screening';

/** How the reference's case data and package services name a service's type, category and subcategory. */
export function serviceFields(serviceId: string) {
	const { categoryId, subcategoryId, typeId } = classification(serviceId);
	const type =
		SERVICE_TYPES.find((entry) => entry.id === typeId) ??
		SERVICE_TYPES.find((entry) => entry.name === SCREENING_TYPE)!;
	return {
		serviceName: serviceName(serviceId),
		serviceTypeId: type.id as string,
		serviceTypeName: type.name as string,
		serviceCategoryId: categoryId ?? null,
		serviceCategory:
			REFERENCE_SERVICE_CATEGORIES.find((entry) => entry.id === categoryId)?.name ?? null,
		serviceSubCategoryId: subcategoryId ?? null,
		serviceSubCategory: OHS_SUBCATEGORIES.find((entry) => entry.id === subcategoryId)?.name ?? null,
	};
}

export function isDrugScreening(serviceId: string): boolean {
	return classification(serviceId).subcategoryId === DRUG_SCREENING_SUBCATEGORY;
}

/** The pending statuses a service walks through before its result when no script says otherwise. */
export function defaultPendingPath(serviceId: string): string[] {
	if (isDrugScreening(serviceId)) {
		return [
			'drugtest-appointment-scheduled',
			'drugtest-sent',
			'drugtest-received',
			'drugtest-review',
		];
	}
	if (classification(serviceId).categoryId !== OHS_CATEGORY) return [];
	if (TB_SKIN_TESTS.includes(serviceId)) {
		return ['pending-status-scheduled', 'pending-status-suspended', 'pending-status-pending'];
	}
	return ['pending-status-scheduled', 'pending-status-pending'];
}

const EMPLOYMENT_SERVICE = serviceIdNamed('Employment Verification');
const EDUCATION_SERVICE = serviceIdNamed('Education Verification');

/** The order data of this type meant for this service (one that names no service is meant for any). */
function orderDataFor(
	serviceId: string,
	caseOrderDataTypeId: string,
	orderData: Record<string, unknown>[],
): Record<string, unknown>[] {
	return orderData
		.filter(
			(entry) =>
				entry.caseOrderDataTypeId === caseOrderDataTypeId &&
				(entry.serviceId === undefined || entry.serviceId === serviceId),
		)
		.map((entry) => (isPlainObject(entry.metadata) ? entry.metadata : {}));
}

function searchRecord(fields: Record<string, unknown>): SearchRecord {
	return { ...fields, searchId: randomUUID(), ...caseDataStatusFields('pending') };
}

function initialDetails(serviceId: string, orderData: Record<string, unknown>[]): CaseDataDetails {
	if (classification(serviceId).categoryId === VERIFICATION_CATEGORY) {
		const type = serviceId === EDUCATION_SERVICE ? 'codt-education' : 'codt-employment';
		const entries =
			serviceId === EMPLOYMENT_SERVICE || serviceId === EDUCATION_SERVICE
				? orderDataFor(serviceId, type, orderData)
				: [];
		const records = entries.length > 0 ? entries : [{ source: 'candidate onboarding' }];
		return { records: records.map(searchRecord) };
	}
	if (serviceId === COUNTY_CRIMINAL_SEARCH) {
		const requested = orderDataFor(serviceId, 'codt-jurisdiction-county', orderData);
		const jurisdictions = requested.length > 0 ? requested : [DEFAULT_JURISDICTION];
		return {
			jurisdictions: jurisdictions.map((jurisdiction) => searchRecord({ ...jurisdiction })),
		};
	}
	return {};
}

export function buildCaseData(
	record: CaseRecord,
	serviceId: string,
	orderData: Record<string, unknown>[],
	now: string,
): CaseDataRecord {
	const fields = serviceFields(serviceId);
	const pending = caseDataStatusFields('pending');
	return {
		id: randomUUID(),
		caseId: record.id,
		candidateId: record.candidateId,
		groupProfileId: record.groupProfileId,
		storageId: randomUUID(),
		description: fields.serviceName,
		serviceId,
		serviceName: fields.serviceName,
		serviceTypeId: fields.serviceTypeId,
		serviceTypeName: fields.serviceTypeName,
		serviceCategoryId: fields.serviceCategoryId,
		serviceSubCategoryId: fields.serviceSubCategoryId,
		...pending,
		statusDisplayName: statusDisplayName(pending.status),
		...pendingStatusFields(null),
		searches: initialDetails(serviceId, orderData),
		crStamp: now,
		modStamp: now,
	};
}

/** `not_found` -> `Not Found`: how a status is shown. */
export function statusDisplayName(status: string): string {
	return status
		.split('_')
		.map((word) => word.charAt(0).toUpperCase() + word.slice(1))
		.join(' ');
}

/** Every search record of a case data, whatever kind of service it is. */
export function searchRecordsOf(caseData: CaseDataRecord): SearchRecord[] {
	return [...(caseData.searches.records ?? []), ...(caseData.searches.jurisdictions ?? [])];
}
