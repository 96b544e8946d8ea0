/** nodes/shared/transport/retryAfter.ts (a run pushed back through apiRequest: transport.test.ts). */
import { parseRetryAfter } from '../../../../nodes/shared/transport/retryAfter';

describe('Retry-After', () => {
	it('reads Retry-After as seconds or an HTTP date, and nothing else', () => {
		expect(parseRetryAfter('7', 0)).toBe(7000);
		expect(parseRetryAfter(['1'], 0)).toBe(1000);
		expect(parseRetryAfter(new Date(10_000).toUTCString(), 4000)).toBe(6000);
		expect(parseRetryAfter(new Date(1000).toUTCString(), 4000)).toBe(0);
		for (const value of [undefined, '', 'soon', '-1', 5])
			expect(parseRetryAfter(value, 0)).toBeUndefined();
	});
});
