import type { IDataObject } from 'n8n-workflow';

import { isPlainObject } from '../values';

/**
 * The records of a list answer: the array under `key` (the API wraps its lists: `{ cases }`, `{ data }`,
 * `{ serviceGroupServices }`, `{ cplcList }`, `{ list }`, `{ users }`, ...), a bare array (the document
 * types), or the one array property of the object.
 */
export function recordsOf(response: unknown, key?: string): IDataObject[] {
	if (Array.isArray(response)) return response as IDataObject[];
	if (!isPlainObject(response)) return [];
	const wrapper = response;
	if (key && Array.isArray(wrapper[key])) return wrapper[key] as IDataObject[];
	const arrays = Object.values(wrapper).filter(Array.isArray);
	return arrays.length === 1 ? (arrays[0] as IDataObject[]) : [wrapper];
}

/** The first `limit` records, or all of them when `limit` is undefined ("Return All"). */
export function applyLimit<T>(records: T[], limit: number | undefined): T[] {
	return limit === undefined ? records : records.slice(0, limit);
}

/** Pages are 0-based and described by `listMetadata` (the verification book's search, the one paged list). */
interface ListMetadata {
	page?: number;
	totalPages?: number;
}

/** The most pages one run reads, so that an API that never reports its end cannot loop forever. */
const MAX_PAGES = 1000;

/**
 * Reads pages 0, 1, 2, ... until `limit` records are collected (all of them when undefined), a page comes
 * back empty, or `listMetadata.totalPages` says it was the last. Without `listMetadata` the endpoint is
 * taken as unpaginated and one page is all there is.
 */
export async function collectPages(
	fetchPage: (page: number) => Promise<unknown>,
	key: string,
	limit: number | undefined,
): Promise<IDataObject[]> {
	const collected: IDataObject[] = [];
	for (let page = 0; page < MAX_PAGES; page++) {
		const response = await fetchPage(page);
		const records = recordsOf(response, key);
		collected.push(...records);
		if (limit !== undefined && collected.length >= limit) break;
		const metadata = (response as { listMetadata?: ListMetadata } | undefined)?.listMetadata;
		if (
			records.length === 0 ||
			typeof metadata?.totalPages !== 'number' ||
			page + 1 >= metadata.totalPages
		)
			break;
	}
	return applyLimit(collected, limit);
}
