/**
 * GET /company/user/list: the users of the caller's group. A token sees its own group only: `?groupProfileId=`
 * naming another group is a 403. API client users (username containing `api`) are listed too.
 */
import { COMPANY_USERS } from '../fixtures';
import { forbidden, ok } from '../http';
import type { ApiRoute } from './common';

export const companyUserRoutes: ApiRoute[] = [
	{
		method: 'GET',
		path: '/company/user/list',
		handle: (request, context) => {
			const groupProfileId = request.principal.groupProfileId;
			const asked = request.query.get('groupProfileId');
			if (asked && asked !== groupProfileId)
				throw forbidden(`Group ${asked} is not accessible with this token`);
			const apiUsers = [...context.world.store.clientsById.values()]
				.filter((client) => client.groupProfileId === groupProfileId && !client.revoked)
				.map((client) => ({
					id: client.id,
					username: client.username,
					givenName: 'API',
					familyName: 'Client',
					enabled: 1,
					groupProfileId,
					role: 'API Client',
				}));
			const users = [
				...COMPANY_USERS.filter((user) => user.groupProfileId === groupProfileId),
				...apiUsers,
			];
			return ok({ users });
		},
	},
];
