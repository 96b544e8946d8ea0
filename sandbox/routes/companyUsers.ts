/**
 * Spec 4.3 GET /company/user/list: users by group within the company. A token sees its own group only;
 * `?groupProfileId=` naming another group is a 403. API client users (username containing `api`) are listed too.
 */
import { COMPANY_USERS, DEMO_GROUPS } from '../fixtures';
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
					email: null,
					firstName: null,
					lastName: null,
					groupProfileId,
					role: 'API Client',
				}));
			const users = [
				...COMPANY_USERS.filter((user) => user.groupProfileId === groupProfileId),
				...apiUsers,
			];
			const group = DEMO_GROUPS.find((candidate) => candidate.groupProfileId === groupProfileId);
			return ok({ groupProfileId, groupName: group?.name ?? null, userList: users });
		},
	},
];
