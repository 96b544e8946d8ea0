/** Spec 4.1 POST /auth/api: exchanges an apiKey + clientAccessToken pair for the client resource of 2.1. */
import { apiClientResource } from '../auth';
import { isPlainObject } from '../../nodes/shared/values';
import { forbidden, ok } from '../http';
import type { ApiRoute } from './common';

export const authRoutes: ApiRoute[] = [
	{
		method: 'POST',
		path: '/auth/api',
		requiresBearer: false,
		handle: (request, context) => {
			const body = isPlainObject(request.body) ? request.body : {};
			const client = context.world.clients.authenticate(body.apiKey, body.clientAccessToken);
			if (!client) throw forbidden('The apiKey and clientAccessToken pair is not accepted');
			return ok(apiClientResource(client));
		},
	},
];
