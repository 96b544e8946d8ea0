/** Packages: the company's list, one package, and the services of a package (all of them, or of one type). */
import { PACKAGES } from '../fixtures';
import { serviceFields } from '../caseDataRecords';
import { notFound, ok } from '../http';
import type { ApiRoute } from './common';

/** The reference's path names for service types, and the type ID each stands for. */
const SERVICE_TYPE_PATH_NAMES: Readonly<Record<string, string>> = {
	idv: 'Identity',
	legal: 'Legal',
	payment: 'Payment',
	screenings: 'Screening',
};

/** A package's services as the reference lists them (`ServiceGroupServices` entries). */
export function packageServices(
	packageId: string,
	packageName: string,
	serviceIds: readonly string[],
) {
	return serviceIds.map((serviceId, index) => {
		const fields = serviceFields(serviceId);
		return {
			serviceGroupId: packageId,
			serviceGroupName: packageName,
			serviceGroupDescription: packageName,
			serviceId,
			serviceName: fields.serviceName,
			serviceDescription: fields.serviceName,
			serviceTypeId: fields.serviceTypeId,
			serviceTypeName: fields.serviceTypeName,
			...(fields.serviceCategoryId === null
				? {}
				: { serviceCategoryId: fields.serviceCategoryId, serviceCategory: fields.serviceCategory }),
			...(fields.serviceSubCategoryId === null
				? {}
				: {
						serviceSubCategoryId: fields.serviceSubCategoryId,
						serviceSubCategory: fields.serviceSubCategory,
					}),
			serviceGroupEnabled: true,
			serviceEnabled: true,
			serviceAutoProcessEnabled: true,
			serviceTypeEnabled: true,
			conditional: false,
			defaultSelected: true,
			enabled: true,
			serviceGroupServicesId: `${packageId}/${index}`,
		};
	});
}

function requirePackage(packageId: string) {
	const pkg = PACKAGES.find((entry) => entry.packageId === packageId);
	if (!pkg) throw notFound(`No package ${packageId}`);
	return pkg;
}

export const packageRoutes: ApiRoute[] = [
	{
		method: 'GET',
		path: '/package/min/list',
		handle: () =>
			ok({ packages: PACKAGES.map((pkg) => ({ id: pkg.packageId, name: pkg.packageName })) }),
	},
	{
		method: 'GET',
		path: '/package/min/id/{packageId}',
		handle: (request) => {
			const pkg = requirePackage(request.params.packageId);
			return ok({ packages: [{ id: pkg.packageId, name: pkg.packageName }] });
		},
	},
	{
		method: 'GET',
		path: '/package/id/{packageId}/services',
		handle: (request) => {
			// The reference declares no 404 here: an unknown package has no services.
			const pkg = PACKAGES.find((entry) => entry.packageId === request.params.packageId);
			return ok({
				serviceGroupServices: pkg
					? packageServices(pkg.packageId, pkg.packageName, pkg.serviceIds)
					: [],
			});
		},
	},
	{
		method: 'GET',
		path: '/package/id/{packageId}/services/{serviceType}',
		handle: (request) => {
			const pkg = PACKAGES.find((entry) => entry.packageId === request.params.packageId);
			const typeName = SERVICE_TYPE_PATH_NAMES[request.params.serviceType];
			const services = pkg ? packageServices(pkg.packageId, pkg.packageName, pkg.serviceIds) : [];
			return ok({
				serviceGroupServices: services.filter((service) => service.serviceTypeName === typeName),
			});
		},
	},
];
