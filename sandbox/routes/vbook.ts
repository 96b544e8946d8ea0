/**
 * Spec 4.3 POST /vbook/search, paginated with `listMetadata`. Body (sandbox shape):
 *   { query?: text found in the name, type?: 'employer' | 'school', page?: 0-based, pageSize?: default 10 }
 */
import { VERIFICATION_BOOK } from '../fixtures';
import { isPlainObject } from '../../nodes/shared/values';
import { ok } from '../http';
import { paginate, type ApiRoute } from './common';

export const vbookRoutes: ApiRoute[] = [
	{
		method: 'POST',
		path: '/vbook/search',
		handle: (request) => {
			const body = isPlainObject(request.body) ? request.body : {};
			const query = typeof body.query === 'string' ? body.query.trim().toLowerCase() : '';
			const matches = VERIFICATION_BOOK.filter(
				(entry) =>
					entry.name.toLowerCase().includes(query) &&
					(body.type === undefined || entry.type === body.type),
			);
			const page = paginate([...matches], body.page, body.pageSize);
			return ok({ vbookList: page.items, listMetadata: page.listMetadata });
		},
	},
];
