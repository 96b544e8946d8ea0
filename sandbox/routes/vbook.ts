/**
 * POST /vbook/search: `{ searchDetails: { vbookTypeId, nameQuery? }, listMetadata?: { page, pageSize } }`, pages
 * 0-based; the answer's `listMetadata` adds `totalPages`.
 */
import { VERIFICATION_BOOK } from '../fixtures';
import { isPlainObject } from '../../nodes/shared/values';
import { ok } from '../http';
import { paginate, type ApiRoute } from './common';

/** The verification book's types: employers and schools. */
const VBOOK_TYPES: Readonly<Record<string, 'employer' | 'school'>> = {
	vbt_employment: 'employer',
	vbt_education: 'school',
};

export const vbookRoutes: ApiRoute[] = [
	{
		method: 'POST',
		path: '/vbook/search',
		handle: (request) => {
			const body = isPlainObject(request.body) ? request.body : {};
			const details = isPlainObject(body.searchDetails) ? body.searchDetails : {};
			const paging = isPlainObject(body.listMetadata) ? body.listMetadata : {};
			const query =
				typeof details.nameQuery === 'string' ? details.nameQuery.trim().toLowerCase() : '';
			const type = VBOOK_TYPES[String(details.vbookTypeId)];
			const matches = VERIFICATION_BOOK.filter(
				(entry) => entry.type === type && entry.name.toLowerCase().includes(query),
			).map(({ id, name, city, state }) => ({ id, name, city, state }));
			const page = paginate(matches, paging.page, paging.pageSize);
			const { page: number, pageSize, totalPages } = page.listMetadata;
			return ok({ listMetadata: { page: number, pageSize, totalPages }, results: page.items });
		},
	},
];
