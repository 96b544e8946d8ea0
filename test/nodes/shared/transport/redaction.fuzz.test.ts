/**
 * Fuzz: the redaction of error text and the excerpt of the API's text in error messages. For generated texts
 * with credential values, bearer headers and JWTs put anywhere among any characters: no secret and no
 * token's signature is left, nothing throws, the excerpt stays bounded, and the cost stays linear.
 */
import * as fc from 'fast-check';

import {
	API_TEXT_EXCERPT_LENGTH,
	apiTextExcerpt,
	describeApiError,
	redact,
} from '../../../../nodes/shared/transport';
import { RUNS, assertLinear, runs, stringOf } from '../../../helpers/fuzzSettings';

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const segment = (minLength: number) =>
	fc.string({ unit: fc.constantFrom(...BASE64URL), minLength, maxLength: 60 });
/** A JWT: header and payload are base64url JSON (the header starts `eyJ`, i.e. `{"`), then the signature. */
const jwt = fc.tuple(segment(1), segment(1), segment(16)).map(([header, payload, signature]) => ({
	token: `eyJ${header}.${payload}.${signature}`,
	signature,
}));
/**
 * A credential value: long enough (9+) that it cannot appear inside the "[redacted]" marker, from characters
 * that cannot join the marker's brackets.
 */
const secret = fc.string({
	unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~+/='),
	minLength: 9,
	maxLength: 40,
});
/** Text around the secrets: anything, and the characters redaction reacts to. */
const filler = fc.oneof(
	fc.string({ maxLength: 40 }),
	fc.string({ unit: 'binary', maxLength: 20 }),
	stringOf(['eyJ', '.', 'a', 'Bearer', ' ', '\n', '-', '_', '=', 'eyJa.', 'b.', '"', ':'], 10),
);

describe('redaction', () => {
	it('leaves no credential value, bearer token or JWT signature, wherever they sit in any text', () => {
		fc.assert(
			fc.property(
				fc.array(secret, { minLength: 1, maxLength: 3 }),
				jwt,
				secret,
				fc.array(filler, { minLength: 6, maxLength: 6 }),
				fc.constantFrom('Bearer ', 'bearer\t', 'BEARER  ', 'Authorization: Bearer '),
				(secrets, token, opaqueToken, around, bearer) => {
					const text = `${around[0]}${secrets[0]}${around[1]}${token.token}${around[2]}${secrets[secrets.length - 1]}${around[3]}${bearer}${opaqueToken}${around[4]}${secrets.join(around[5])}`;
					const clean = redact(text, secrets);
					for (const value of [...secrets, token.token, token.signature])
						expect(clean).not.toContain(value);
					expect(clean).toContain('[redacted]');
				},
			),
			runs(RUNS.many),
		);
	});

	it('never throws and leaves text without secrets or tokens as it is', () => {
		const plain = fc.string({
			unit: fc.constantFrom(...'abcdefghij .,:;!?()[]{}"\'\n\t-_=é中😀'),
			maxLength: 200,
		});
		fc.assert(
			fc.property(
				plain,
				fc.array(fc.oneof(secret, fc.string(), fc.integer(), fc.constant(undefined)), {
					maxLength: 3,
				}),
				(text, secrets) => {
					const clean = redact(text, secrets);
					const present = secrets.some(
						(value) => typeof value === 'string' && value.length >= 4 && text.includes(value),
					);
					if (!present) expect(clean).toBe(text);
				},
			),
			runs(RUNS.many),
		);
	});

	it('shows a bounded excerpt of any API answer, redacted before the cut', () => {
		const answer = fc.oneof(
			fc.string({ maxLength: 2000 }),
			fc.record({
				message: fc.oneof(
					fc.string({ maxLength: 2000 }),
					fc.array(fc.string({ maxLength: 300 }), { maxLength: 20 }),
				),
				error: fc.string(),
			}),
			fc.record({
				cases: fc.array(
					fc.oneof(fc.string({ maxLength: 60 }), fc.record({ id: fc.string({ maxLength: 60 }) })),
					{ maxLength: 100 },
				),
			}),
			fc.anything({ maxDepth: 2 }),
		);
		fc.assert(
			fc.property(
				answer,
				fc.constantFrom(400, 403, 404, 409, 422, 500, 502, undefined),
				fc.constantFrom<'GET' | 'POST'>('GET', 'POST'),
				secret,
				fc.nat({ max: 2500 }),
				(body, status, method, value, at) => {
					// the credential's value somewhere in the API's message, possibly across the excerpt's cut
					const withSecret =
						typeof body === 'string' ? body.slice(0, at) + value + body.slice(at) : body;
					const described = describeApiError(method, '/case/id/x', status, withSecret, [value]);
					const bound = API_TEXT_EXCERPT_LENGTH + 400;
					expect(described.message.length).toBeLessThan(bound);
					expect((described.description ?? '').length).toBeLessThan(bound + 400);
					for (const text of [described.message, described.description ?? ''])
						expect(text).not.toContain(value.slice(0, 9));
				},
			),
			runs(RUNS.many),
		);
	});

	it('the excerpt never splits a character and never grows past its bound', () => {
		fc.assert(
			fc.property(fc.string({ unit: 'grapheme', maxLength: 1200 }), (text) => {
				const excerpt = apiTextExcerpt(text);
				expect(excerpt.length).toBeLessThanOrEqual(API_TEXT_EXCERPT_LENGTH + 60);
				expect(excerpt).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
			}),
			runs(RUNS.many),
		);
	});
});

describe('linear time (generated units repeated to 16 and 64 KiB)', () => {
	const unit = stringOf(['eyJ', '.', 'a', 'Bearer', ' ', '\t', '-', '=', 'secretval'], 10);

	it('redaction, "eyJ" (once quadratic) and "eyJa." repeated among the units', () => {
		assertLinear(unit, (text) => redact(text, ['secretval', 'another-secret']), undefined, [
			'eyJ',
			'eyJa.',
		]);
	}, 120_000);

	it('an API error answer through describeApiError', () => {
		assertLinear(unit, (text) =>
			describeApiError('POST', '/case/create', 400, { message: text }, ['secretval']),
		);
	}, 120_000);
});
