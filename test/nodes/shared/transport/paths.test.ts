/** nodes/shared/transport/paths.ts: every value put into a path is one encoded segment. */
import { apiPath, encodePathSegment } from '../../../../nodes/shared/transport/paths';

describe('path encoding', () => {
	it('encodes every interpolated value as exactly one segment', () => {
		expect(apiPath`/case/id/${'a/b'}/data/${'x?y#z'}`).toBe('/case/id/a%2Fb/data/x%3Fy%23z');
		expect(apiPath`/case/id/${'../../auth/api'}`).toBe('/case/id/..%2F..%2Fauth%2Fapi');
		expect(apiPath`/case/id/${'%2e%2e'}`).toBe('/case/id/%252e%252e');
	});

	it.each(['', '  ', '.', '..', undefined, null, {}])('refuses %p as a segment', (value) => {
		expect(() => encodePathSegment(value)).toThrow();
	});
});
