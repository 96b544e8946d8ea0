/** nodes/shared/transport/apiErrors.ts: the wording of a failed call, shape by shape (through apiRequest: transport.test.ts). */
import { describeApiError } from '../../../../nodes/shared/transport/apiErrors';
import {
	API_TEXT_EXCERPT_LENGTH,
	apiTextExcerpt,
} from '../../../../nodes/shared/transport/redaction';
import { CREDENTIAL_SECRETS as SECRETS } from '../../../fixtures/credentialSecrets';

describe('API error shapes', () => {
	it('joins a message array', () => {
		const described = describeApiError('POST', '/case/create', 400, {
			message: ['a is bad', 'b is bad'],
			error: 'Bad Request',
			statusCode: 400,
		});
		expect(described.message).toBe('a is bad; b is bad');
	});

	it("gives a 422's own message as the message, JSON or text, and the status and endpoint as the description", () => {
		const json = describeApiError('POST', '/case/id/c-1/cancel', 422, {
			message: 'Cannot cancel a case that has already started.',
			error: 'Unprocessable Entity',
			statusCode: 422,
		});
		expect(json).toEqual({
			status: 422,
			message: 'Cannot cancel a case that has already started.',
			description: 'HTTP 422 on POST /case/id/c-1/cancel',
		});
		expect(describeApiError('POST', '/x', 422, 'Token is not valid').message).toBe(
			'Token is not valid',
		);
		expect(describeApiError('PUT', '/case/id/c-1/action/place', 422, undefined)).toEqual({
			status: 422,
			message: 'The API answered HTTP 422 on PUT /case/id/c-1/action/place',
			description: undefined,
		});
	});

	it('explains a 409 with the existing cases the API names', () => {
		const described = describeApiError('POST', '/case/create', 409, {
			cases: [
				{ existingCaseId: 'case-1', existingCaseStatus: 'Pending' },
				{ existingCaseId: 'case-2', existingCaseStatus: 'Complete' },
			],
		});
		expect(described.message).toBe(
			'The candidate already has a case in this group: case-1, case-2',
		);
	});

	it("reads a 403 on a case as another group's case", () => {
		const described = describeApiError('GET', '/case/id/x', 403, {
			message: 'Forbidden resource',
			error: 'Forbidden',
			statusCode: 403,
		});
		expect(described.message).toContain('refused');
		expect(described.description).toContain('another company group');
		expect(described.description).toContain('Forbidden resource');
	});

	it('says a failed write may or may not have happened, and a failed read can be retried', () => {
		expect(describeApiError('POST', '/case/create', 502, 'Bad gateway').description).toContain(
			'may or may not',
		);
		expect(describeApiError('POST', '/case/create', undefined, undefined).description).toContain(
			'may or may not',
		);
		for (const read of ['GET', 'HEAD'] as const)
			expect(describeApiError(read, '/case/list', 503, undefined).description).not.toContain(
				'may or may not',
			);
	});

	it('names a final 401 as a refused (possibly revoked) token', () => {
		expect(
			describeApiError('GET', '/case/list', 401, { message: 'Unauthorized' }).message,
		).toContain('401');
	});

	it("shows at most 500 characters of the API's text, redacted before the cut so no part of a secret is left", () => {
		const body = {
			message: `${'x'.repeat(API_TEXT_EXCERPT_LENGTH - 4)}${SECRETS.apiKey} and more`,
		};
		const described = describeApiError('POST', '/case/create', 400, body, Object.values(SECRETS));
		expect(described.message).toContain('[red');
		expect(described.message).not.toContain(SECRETS.apiKey.slice(0, 4));
		expect(described.message).toMatch(/… \(cut at \d+ of \d+ characters\)$/);
		expect(apiTextExcerpt('short', [])).toBe('short');
		// a surrogate pair at the cut is not split
		const emoji = apiTextExcerpt(`${'x'.repeat(API_TEXT_EXCERPT_LENGTH - 1)}😀😀`);
		expect(emoji.startsWith(`${'x'.repeat(API_TEXT_EXCERPT_LENGTH - 1)}…`)).toBe(true);
	});

	it('bounds the message of a 120 KiB answer, past the 64 KiB read, as JSON, text or an HTML page', () => {
		const json = describeApiError('POST', '/case/create', 400, {
			message: `lastName is invalid. ${'x'.repeat(120 * 1024)}`,
		});
		expect(json.message.startsWith('lastName is invalid. xxx')).toBe(true);
		for (const described of [
			json,
			describeApiError('GET', '/case/id/x', 404, 'y'.repeat(120 * 1024)),
			describeApiError('GET', '/case/list', 502, `<html>${'z'.repeat(120 * 1024)}`),
		])
			expect(described.message.length).toBeLessThan(1000);
	});

	it('bounds the list of existing cases of a 409', () => {
		const cases = Array.from({ length: 10_000 }, (_, index) => ({
			existingCaseId: `case-${index}`,
		}));
		const described = describeApiError('POST', '/case/create', 409, { cases });
		expect(described.message).toContain('case-0, case-1');
		expect(described.message.length).toBeLessThan(1000);
	});
});
