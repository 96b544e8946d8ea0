/** Endpoint paths: every value put into a path is checked and URL-encoded as exactly one segment. */

/** A path whose every interpolated segment was checked and URL-encoded by {@link apiPath}. */
export type ApiPath = string & { readonly __apiPath: unique symbol };

export class InvalidPathSegmentError extends Error {}

/** Encodes one path segment; an empty value or a dot segment could change which endpoint is called. */
export function encodePathSegment(value: unknown): string {
	const text = typeof value === 'number' ? String(value) : value;
	if (typeof text !== 'string' || text.trim() === '') throw new InvalidPathSegmentError('is empty');
	if (text.trim() === '.' || text.trim() === '..')
		throw new InvalidPathSegmentError(`"${text}" is not an ID`);
	return encodeURIComponent(text.trim());
}

/** Tagged template for endpoint paths: apiPath`/case/id/${caseId}` encodes each value as one segment. */
export function apiPath(strings: TemplateStringsArray, ...segments: unknown[]): ApiPath {
	return strings.reduce(
		(path, literal, index) =>
			path + literal + (index < segments.length ? encodePathSegment(segments[index]) : ''),
		'',
	) as ApiPath;
}
