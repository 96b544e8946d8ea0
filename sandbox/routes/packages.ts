/** Spec 4.3 GET /package/id/{packageId}/services: the services of a package as `serviceName` / `serviceId`. */
import { PACKAGES, serviceName } from '../fixtures';
import { notFound, ok } from '../http';
import type { ApiRoute } from './common';

export const packageRoutes: ApiRoute[] = [
	{
		method: 'GET',
		path: '/package/id/{packageId}/services',
		handle: (request) => {
			const pkg = PACKAGES.find((entry) => entry.packageId === request.params.packageId);
			if (!pkg) throw notFound(`No package ${request.params.packageId}`);
			return ok({
				packageId: pkg.packageId,
				packageName: pkg.packageName,
				servicesList: pkg.serviceIds.map((serviceId) => ({
					serviceName: serviceName(serviceId),
					serviceId,
				})),
			});
		},
	},
];
