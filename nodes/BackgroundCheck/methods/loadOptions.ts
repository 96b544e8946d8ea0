import type { IDataObject, ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { SCREENING_SERVICE_TYPE_ID, SERVICES, serviceGroupLabel } from '../../shared/catalog';
import { recordsOf } from '../../shared/transport/listResponses';
import { apiPath, apiRequest } from '../../shared/transport';
import { currentId } from './current';

const byName = (a: INodePropertyOptions, b: INodePropertyOptions) => a.name.localeCompare(b.name);

const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

/** Every service of the catalog: what a service dropdown offers before a package (or case) is chosen. */
function catalogServices(): INodePropertyOptions[] {
	return SERVICES.map((service) => ({
		name: service.name,
		value: service.id,
		description: [serviceGroupLabel(service), `ID: ${service.id}`].filter(Boolean).join(' · '),
	})).sort(byName);
}

/**
 * One option per service of a `{ serviceGroupServices }` answer, by name, described by the field `describedBy`
 * (the package or the service type) and the ID.
 */
function serviceOptions(
	response: unknown,
	describedBy: 'serviceGroupName' | 'serviceTypeName',
): INodePropertyOptions[] {
	const options = new Map<string, INodePropertyOptions>();
	for (const service of recordsOf(response, 'serviceGroupServices')) {
		const serviceId = text(service.serviceId);
		if (serviceId === undefined || options.has(serviceId)) continue;
		options.set(serviceId, {
			name: text(service.serviceName) ?? serviceId,
			value: serviceId,
			description: [text(service[describedBy]), `ID: ${serviceId}`].filter(Boolean).join(' · '),
		});
	}
	return [...options.values()].sort(byName);
}

/** The services of a package (GET /package/id/{packageId}/services), one option per service. */
async function servicesOfPackage(
	context: ILoadOptionsFunctions,
	packageId: string,
): Promise<INodePropertyOptions[]> {
	const response = await apiRequest.call(
		context,
		'GET',
		apiPath`/package/id/${packageId}/services`,
	);
	return serviceOptions(response, 'serviceGroupName');
}

/** Services of the package chosen in the node (Case > Create); every service of the catalog before that. */
export async function getPackageServices(
	this: ILoadOptionsFunctions,
): Promise<INodePropertyOptions[]> {
	const packageId = currentId(this, 'packageId');
	return packageId === undefined ? catalogServices() : await servicesOfPackage(this, packageId);
}

/** Services of the package of the case chosen in the node (Case > Add Services). */
export async function getCaseServices(
	this: ILoadOptionsFunctions,
): Promise<INodePropertyOptions[]> {
	const caseId = currentId(this, 'caseId');
	if (caseId === undefined) return catalogServices();
	const response = await apiRequest.call(this, 'GET', apiPath`/case/id/${caseId}`);
	const packageId = text(recordsOf(response, 'cases')[0]?.packageId);
	return packageId === undefined ? catalogServices() : await servicesOfPackage(this, packageId);
}

/**
 * The services ordered for a case (GET /case/id/{caseId}/services, or only those of one type with
 * `/services/{serviceType}`), one option per service; every service of the catalog before a case is chosen.
 */
async function servicesOfCase(
	context: ILoadOptionsFunctions,
	serviceType?: 'screenings' | 'legal',
): Promise<INodePropertyOptions[]> {
	const caseId = currentId(context, 'caseId');
	// The catalog holds screenings only: no legal service to offer before a case is chosen.
	if (caseId === undefined) return serviceType === 'legal' ? [] : catalogServices();
	const response =
		serviceType === undefined
			? await apiRequest.call(context, 'GET', apiPath`/case/id/${caseId}/services`)
			: await apiRequest.call(context, 'GET', apiPath`/case/id/${caseId}/services/${serviceType}`);
	return serviceOptions(response, 'serviceTypeName');
}

/** The services ordered for the case chosen in the node, of every type (Case > Cancel Services). */
export async function getOrderedServices(
	this: ILoadOptionsFunctions,
): Promise<INodePropertyOptions[]> {
	return await servicesOfCase(this);
}

/** The screenings ordered for the case chosen in the node (Adverse Action > Start Pre-Adverse Action). */
export async function getOrderedScreenings(
	this: ILoadOptionsFunctions,
): Promise<INodePropertyOptions[]> {
	return await servicesOfCase(this, 'screenings');
}

/**
 * The countries with their ISO 3166 codes (GET /candidate/countries, `{ list: [{ iso31662, iso31663,
 * country }] }`): the two-letter code is the value, as the addresses of the reference carry it.
 */
export async function getCountries(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const response = await apiRequest.call(this, 'GET', apiPath`/candidate/countries`);
	return recordsOf(response, 'list')
		.filter((country) => text(country.iso31662) !== undefined)
		.map((country) => ({
			name: text(country.country) ?? (country.iso31662 as string),
			value: country.iso31662 as string,
			description: [country.iso31662, text(country.iso31663)].filter(Boolean).join(' · '),
		}))
		.sort(byName);
}

/** The packages of the company (GET /package/min/list). */
export async function getPackages(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const response = await apiRequest.call(this, 'GET', apiPath`/package/min/list`);
	return recordsOf(response, 'packages')
		.filter((record) => text(record.id) !== undefined)
		.map((record) => ({
			name: text(record.name) ?? (record.id as string),
			value: record.id as string,
			description: record.id as string,
		}))
		.sort(byName);
}

/** The users of the credential's group (GET /company/user/list). */
export async function getCompanyUsers(
	this: ILoadOptionsFunctions,
): Promise<INodePropertyOptions[]> {
	const response = await apiRequest.call(this, 'GET', apiPath`/company/user/list`);
	return recordsOf(response, 'users')
		.filter((user: IDataObject) => text(user.id) !== undefined)
		.map((user) => ({
			name:
				[text(user.givenName), text(user.familyName)].filter(Boolean).join(' ') ||
				(user.id as string),
			value: user.id as string,
			description: [user.id, user.enabled === 0 ? 'disabled' : undefined]
				.filter(Boolean)
				.join(' · '),
		}))
		.sort(byName);
}

/** The secure document types (GET /document/secure/type/list). */
export async function getDocumentTypes(
	this: ILoadOptionsFunctions,
): Promise<INodePropertyOptions[]> {
	const response = await apiRequest.call(this, 'GET', apiPath`/document/secure/type/list`);
	return recordsOf(response)
		.filter((type) => text(type.id) !== undefined)
		.map((type) => ({
			name: text(type.displayName) ?? text(type.secureDocumentType) ?? (type.id as string),
			value: type.id as string,
			description: type.id as string,
		}))
		.sort(byName);
}

/** The screenings (case data) of the case chosen in the node (Report > Download Case Report). */
export async function getCaseScreenings(
	this: ILoadOptionsFunctions,
): Promise<INodePropertyOptions[]> {
	const caseId = currentId(this, 'caseId');
	if (caseId === undefined) return [];
	const response = await apiRequest.call(
		this,
		'GET',
		apiPath`/case/id/${caseId}/data/${SCREENING_SERVICE_TYPE_ID}`,
	);
	return recordsOf(response, 'data')
		.filter((record) => text(record.id) !== undefined)
		.map((record) => ({
			name: text(record.serviceName) ?? text(record.description) ?? (record.id as string),
			value: record.id as string,
			description: [text(record.statusDisplayName), `ID: ${record.id as string}`]
				.filter(Boolean)
				.join(' · '),
		}))
		.sort(byName);
}

/** The legal services (signed authorizations) of the case chosen in the node (Report > Download Legal Document). */
export async function getCaseLegalServices(
	this: ILoadOptionsFunctions,
): Promise<INodePropertyOptions[]> {
	return await servicesOfCase(this, 'legal');
}
