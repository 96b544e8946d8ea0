/**
 * Fuzz: the webhook verifier (Standard Webhooks and legacy) and both header parsers. For generated
 * deliveries and headers: it answers and never throws, never accepts a signature it did not compute (a
 * forged or altered one, another secret's, the other scheme's), accepts the right one wherever it sits among
 * several entries and header lines however they were joined, and reads headers in linear time.
 */
import * as fc from 'fast-check';

import {
	verifyDelivery,
	type VerificationConfig,
} from '../../../nodes/BackgroundCheckTrigger/verification';
import {
	MAX_SIGNATURE_HEADER_LENGTH,
	parseLegacyHeader,
	parseSignatureHeader,
	signLegacyWebhook,
	signStandardWebhook,
	verifyLegacyWebhook,
	verifyStandardWebhook,
	type VerificationResult,
} from '../../../nodes/shared/webhookSignature';
import { RUNS, assertLinear, hex, prefixed, runs, stringOf } from '../../helpers/fuzzSettings';
import { headersOf, signedDelivery } from '../../helpers/deliveries';

const NOW_SECONDS = 1_760_000_000;
const NOW_MS = NOW_SECONDS * 1000 + 123;

/** The trigger's configuration with scheme Both. */
const bothSchemes = (signingSecret: string, legacySecret: string): VerificationConfig => ({
	scheme: 'both',
	signingSecrets: [signingSecret],
	legacySecret,
	legacyHeaderName: '',
	toleranceSeconds: 300,
});

const secretKey = fc
	.uint8Array({ minLength: 1, maxLength: 64 })
	.map((bytes) => `whsec_${Buffer.from(bytes).toString('base64')}`);
const legacySecret = fc.string({ minLength: 1, maxLength: 64 });
const body = fc.uint8Array({ maxLength: 512 }).map((bytes) => Buffer.from(bytes));
const messageId = fc.string({ minLength: 1, maxLength: 64 });
const offsetSeconds = fc.integer({ min: -299, max: 299 });
const optional = <T>(value: fc.Arbitrary<T>) => fc.option(value, { nil: undefined });
/** How n8n or a proxy may join several lines of one header. */
const lineJoin = fc.constantFrom(' ', ', ', ',', '  ', ' , ', ',\t');
/** `entries` as one header, `joins[index]` before the entry at `index` (the first is not used). */
const joinLines = (entries: string[], joins: string[]) =>
	entries.map((entry, index) => (index === 0 ? entry : joins[index] + entry)).join('');
/** A refusal with a reason, as every unsigned delivery must get. */
const refused = (result: VerificationResult) =>
	result.valid === false && typeof result.reason === 'string';
/** Anything a sender may put in a header, unicode and control characters included. */
const anyHeader = fc.oneof(
	fc.string({ maxLength: 300 }),
	fc.string({ unit: 'binary', maxLength: 300 }),
	stringOf(['v1', ',', ' ', '=', 't', 'v1=', 'a', 'AAAA', '\t', 'v1,'], 60),
);

describe('Standard Webhooks verifier', () => {
	it('answers any headers and body without throwing, and accepts none it did not sign', () => {
		fc.assert(
			fc.property(
				optional(fc.string({ maxLength: 80 })),
				optional(fc.oneof(fc.string({ maxLength: 20 }), fc.constant(String(NOW_SECONDS)))),
				optional(anyHeader),
				body,
				fc.array(fc.oneof(secretKey, fc.string({ maxLength: 40 })), { maxLength: 3 }),
				(webhookId, webhookTimestamp, webhookSignature, rawBody, secrets) => {
					const input = { webhookId, webhookTimestamp, webhookSignature, rawBody, secrets };
					return refused(verifyStandardWebhook({ ...input, nowSeconds: NOW_SECONDS }));
				},
			),
			runs(RUNS.many),
		);
	});

	it('accepts the right signature in any position among other entries and header lines', () => {
		fc.assert(
			fc.property(
				secretKey,
				messageId,
				offsetSeconds,
				body,
				fc.array(
					fc.oneof(
						secretKey.map((other) => `v1,${other.slice(6)}`),
						stringOf(['v1', 'v2', ',', 'a', '+', '/', '=']),
						fc.constant('v1a,xyz'),
					),
					{ maxLength: 6 },
				),
				fc.nat(),
				fc.array(lineJoin, { minLength: 7, maxLength: 7 }),
				(secret, id, offset, rawBody, others, position, joins) => {
					const delivery = signedDelivery(secret, id, NOW_SECONDS + offset, rawBody, NOW_SECONDS);
					const entries = [...others];
					entries.splice(position % (others.length + 1), 0, delivery.webhookSignature);
					const header = joinLines(entries, joins);
					return verifyStandardWebhook({ ...delivery, webhookSignature: header }).valid;
				},
			),
			runs(RUNS.some),
		);
	});

	it('never accepts a forged or altered delivery', () => {
		const kind = <K extends string>(name: K) => fc.constant(name);
		const alteration = fc.oneof(
			fc.record({ kind: kind('body'), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }),
			fc.record({ kind: kind('id'), suffix: fc.string({ minLength: 1, maxLength: 4 }) }),
			fc.record({
				kind: kind('timestamp'),
				by: fc.integer({ min: -200, max: 200 }).filter((by) => by !== 0),
			}),
			fc.record({ kind: kind('signature'), at: fc.nat(), bit: fc.integer({ min: 0, max: 5 }) }),
			fc.record({ kind: kind('secret'), other: secretKey }),
			fc.record({ kind: kind('truncated'), keep: fc.nat() }),
		);
		fc.assert(
			fc.property(
				secretKey,
				messageId,
				offsetSeconds,
				body,
				alteration,
				(secret, id, offset, rawBody, change) => {
					const timestamp = NOW_SECONDS + offset;
					const delivered = signedDelivery(secret, id, timestamp, rawBody, NOW_SECONDS);
					let signature = delivered.webhookSignature;
					const base64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
					switch (change.kind) {
						case 'body':
							if (rawBody.length === 0) delivered.rawBody = Buffer.from([change.bit]);
							else {
								const altered = Buffer.from(rawBody);
								altered[change.at % rawBody.length] ^= 1 << change.bit;
								delivered.rawBody = altered;
							}
							break;
						case 'id':
							delivered.webhookId = id + change.suffix;
							break;
						case 'timestamp':
							delivered.webhookTimestamp = String(timestamp + change.by);
							break;
						case 'signature': {
							// One base64 digit of the signature (not the padding) changed to another.
							const at = 3 + (change.at % 43);
							const digit = base64.indexOf(signature[at]);
							signature =
								signature.slice(0, at) +
								base64[(digit + 1 + change.bit) % 64] +
								signature.slice(at + 1);
							break;
						}
						case 'secret':
							if (change.other === secret) return true;
							signature = signStandardWebhook(change.other, id, timestamp, rawBody);
							break;
						case 'truncated':
							signature = signature.slice(0, 3 + (change.keep % 44));
							break;
					}
					const result = verifyStandardWebhook({ ...delivered, webhookSignature: signature });
					return result.valid === false;
				},
			),
			runs(RUNS.some),
		);
	});
});

describe('legacy verifier', () => {
	it('answers any header without throwing, and accepts none it did not sign', () => {
		fc.assert(
			fc.property(optional(anyHeader), body, legacySecret, (header, rawBody, secret) => {
				const withTimestamp = header === undefined ? undefined : `t=${NOW_MS},${header}`;
				return [header, withTimestamp].every((candidate) =>
					refused(verifyLegacyWebhook({ rawBody, header: candidate, secret, nowMs: NOW_MS })),
				);
			}),
			runs(RUNS.many),
		);
	});

	it('accepts the right signature among other v1 entries and joined lines; refuses another secret or body', () => {
		fc.assert(
			fc.property(
				legacySecret,
				legacySecret,
				body,
				fc.integer({ min: -299_000, max: 299_000 }),
				fc.array(hex({ minLength: 64, maxLength: 64 }), { maxLength: 4 }),
				fc.nat(),
				lineJoin,
				(secret, otherSecret, rawBody, offsetMs, others, position, join) => {
					const timestampMs = NOW_MS + offsetMs;
					const signed = signLegacyWebhook(secret, timestampMs, rawBody);
					const entries = others.map((hex) => `v1=${hex}`);
					entries.splice(position % (others.length + 1), 0, signed.slice(signed.indexOf('v1=')));
					const header = `t=${timestampMs},${entries.join(join.includes(',') ? join : `,${join}`)}`;
					const verify = (key: string, bytes: Buffer) =>
						verifyLegacyWebhook({ rawBody: bytes, header, secret: key, nowMs: NOW_MS }).valid;
					const tampered = Buffer.concat([rawBody, Buffer.from(' ')]);
					return (
						verify(secret, rawBody) &&
						!verify(secret, tampered) &&
						(otherSecret === secret || !verify(otherSecret, rawBody))
					);
				},
			),
			runs(RUNS.some),
		);
	});

	it('never takes a standard signature for a legacy one, or the reverse (scheme Both)', () => {
		fc.assert(
			fc.property(secretKey, messageId, body, (secret, id, rawBody) => {
				const standard = signedDelivery(secret, id, NOW_SECONDS, rawBody);
				const legacy = signLegacyWebhook(secret, NOW_MS, rawBody);
				const legacyHex = legacy.slice(legacy.indexOf('v1=') + 3);
				const crossed = [
					{ 'x-brand-signature': `t=${NOW_MS},v1=${standard.webhookSignature.slice(3)}` },
					headersOf({
						...standard,
						webhookSignature: `v1,${Buffer.from(legacyHex, 'hex').toString('base64')}`,
					}),
				];
				const config = bothSchemes(secret, secret);
				return crossed.every(
					(headers) => verifyDelivery(headers, rawBody, config, NOW_MS).valid === false,
				);
			}),
			runs(RUNS.some),
		);
	});
});

describe('header parsers', () => {
	const base64Signature = fc
		.uint8Array({ minLength: 1, maxLength: 40 })
		.map((bytes) => Buffer.from(bytes).toString('base64'));

	it('webhook-signature: returns exactly the v1 signatures of well-formed entries, however they are joined', () => {
		const entry = fc.oneof(
			base64Signature.map((v1) => ({ text: `v1,${v1}`, v1: v1 as string | undefined })),
			fc
				.tuple(fc.constantFrom('v2', 'v1a', 'v0'), base64Signature)
				.map(([version, signature]) => ({ text: `${version},${signature}`, v1: undefined })),
		);
		fc.assert(
			fc.property(
				fc.array(entry, { maxLength: 8 }),
				fc.array(lineJoin, { minLength: 8, maxLength: 8 }),
				fc.constantFrom('', ' ', '  '),
				(entries, joins, pad) => {
					const texts = entries.map((item) => item.text);
					const header = pad + joinLines(texts, joins) + pad;
					const expected = entries.flatMap((item) => (item.v1 === undefined ? [] : [item.v1]));
					expect(parseSignatureHeader(header)).toEqual(expected);
				},
			),
			runs(RUNS.many),
		);
	});

	it('webhook-signature: never throws, and no returned signature holds a separator', () => {
		fc.assert(
			fc.property(anyHeader, (header) =>
				parseSignatureHeader(header).every(
					(signature) => signature !== '' && !/[\s,]/.test(signature),
				),
			),
			runs(RUNS.many),
		);
	});

	it('legacy: returns the first t and every v1, never throws', () => {
		const part = fc.oneof(
			hex({ maxLength: 64 }).map((hex) => ({ name: 'v1', value: hex })),
			fc.stringMatching(/^\d{1,15}$/).map((digits) => ({ name: 't', value: digits })),
			fc
				.tuple(fc.constantFrom('v0', 'x', 'T', 'v2'), hex({ maxLength: 8 }))
				.map(([name, value]) => ({ name, value })),
		);
		fc.assert(
			fc.property(
				fc.array(part, { maxLength: 10 }),
				fc.constantFrom(',', ', ', ' ,'),
				(parts, join) => {
					const header = parts.map((item) => `${item.name}=${item.value}`).join(join);
					const parsed = parseLegacyHeader(header);
					expect(parsed.timestamp).toBe(parts.find((item) => item.name === 't')?.value);
					const v1 = parts.filter((item) => item.name === 'v1').map((item) => item.value);
					expect(parsed.signatures).toEqual(v1);
				},
			),
			runs(RUNS.many),
		);
		fc.assert(
			fc.property(anyHeader, (header) => {
				const parsed = parseLegacyHeader(header);
				return parsed.signatures.every((signature) => !signature.includes(','));
			}),
			runs(RUNS.many),
		);
	});
});

describe('linear time (generated units repeated to 16 and 64 KiB)', () => {
	const secret = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;
	const unit = stringOf(['v1', ',', ' ', '=', 't=', 'v1=', 'a', 'AAAA', 'v1,', '\t', '1'], 12);
	/** A signed delivery whose webhook-signature is replaced by the generated header. */
	const delivery = signedDelivery(secret, 'msg_1', NOW_SECONDS, '{}');

	it('webhook-signature through the verifier, many entries (v1,AAAA, v1,...) among them', () => {
		assertLinear(
			unit,
			(header) => verifyStandardWebhook({ ...delivery, webhookSignature: header }),
			undefined,
			['v1,AAAA, v1,'],
		);
	}, 120_000);

	it('the legacy header through the verifier, t=<now>,a=,a=,... and t=<now>,v1=,v1=,... (once quadratic) among them', () => {
		assertLinear(
			unit,
			(header) => verifyLegacyWebhook({ rawBody: '{}', header, secret: 'legacy', nowMs: NOW_MS }),
			prefixed(`t=${NOW_MS},`),
			['a=,', 'v1=,'],
		);
	}, 120_000);

	it("a delivery with both schemes through the trigger's header handling", () => {
		const config = bothSchemes(secret, 'legacy');
		assertLinear(
			unit,
			(header) => {
				const legacy = { 'x-brand-signature': header.replace(/^v1,/, 't=') };
				const headers = { ...headersOf({ ...delivery, webhookSignature: header }), ...legacy };
				return verifyDelivery(headers, Buffer.from('{}'), config, NOW_MS);
			},
			prefixed('v1,'),
		);
	}, 120_000);

	it('every header of the linear-time properties is read in full: 64 KiB is the cap, not above it', () => {
		expect(MAX_SIGNATURE_HEADER_LENGTH).toBe(64 * 1024);
	});
});
