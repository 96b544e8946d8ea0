import {
	CASE_DATA_STATUSES,
	DRUG_PANEL_ID_PATTERNS,
	OHS_SUBCATEGORIES,
	PENDING_STATUSES,
	SERVICE_CATEGORIES,
	SERVICE_TYPES,
	SERVICES,
} from './catalog.generated';

export * from './catalog.generated';

export type CatalogService = (typeof SERVICES)[number];

/** The service type of screenings (criminal, drug, verifications, ...): what a case report is made of. */
export const SCREENING_SERVICE_TYPE_ID: string =
	SERVICE_TYPES.find((type) => type.name === 'Screening')?.id ?? '';

const servicesById = new Map(SERVICES.map((service) => [service.id, service]));

export function findService(id: string): CatalogService | undefined {
	return servicesById.get(id);
}

export function isDrugPanelServiceId(id: string): boolean {
	return DRUG_PANEL_ID_PATTERNS.some((pattern) => pattern.test(id));
}

/** True for every service ID of spec 2.4, including the drug-panel ID patterns. */
export function isKnownServiceId(id: string): boolean {
	return servicesById.has(id) || isDrugPanelServiceId(id);
}

export function categoryName(categoryId: string | undefined): string | undefined {
	return SERVICE_CATEGORIES.find((category) => category.id === categoryId)?.name;
}

export function subcategoryName(subcategoryId: string | undefined): string | undefined {
	return OHS_SUBCATEGORIES.find((subcategory) => subcategory.id === subcategoryId)?.name;
}

/** "Occupational Health Screening / TB" style label for a service, or undefined when the spec gives none. */
export function serviceGroupLabel(service: CatalogService): string | undefined {
	const parts = [categoryName(service.categoryId), subcategoryName(service.subcategoryId)].filter(
		Boolean,
	);
	return parts.length > 0 ? parts.join(' / ') : undefined;
}

export function findCaseDataStatus(statusId: string | undefined) {
	return CASE_DATA_STATUSES.find((entry) => entry.statusId === statusId);
}

export function findPendingStatus(pendingStatusId: string | undefined) {
	return PENDING_STATUSES.find((entry) => entry.pendingStatusId === pendingStatusId);
}
