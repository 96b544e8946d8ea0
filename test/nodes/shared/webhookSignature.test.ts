/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- repository tooling: runs in Node.js, never inside n8n */
/**
 * The webhook verifier against the Standard Webhooks reference suites (libraries/javascript, python and go
 * in github.com/standard-webhooks/standard-webhooks), the `standardwebhooks` npm package as an independent
 * implementation, and the legacy scheme of spec 6.6 recomputed here from its definition.
 */
import { createHash, createHmac, randomBytes } from 'crypto';
import { Webhook } from 'standardwebhooks';

import {
	DEFAULT_TOLERANCE_SECONDS,
	MAX_SIGNATURE_HEADER_LENGTH,
	MAX_WEBHOOK_ID_LENGTH,
	decodeStandardSecret,
	generateWebhookSecret,
	isStandardSecret,
	parseLegacyHeader,
	parseSignatureHeader,
	signLegacyWebhook,
	signStandardWebhook,
	verifyLegacyWebhook,
	verifyStandardWebhook,
	type LegacyWebhookInput,
	type StandardWebhookInput,
} from '../../../nodes/shared/webhookSignature';
import { headersOf, signedDelivery } from '../../helpers/deliveries';

// The reference suites' fixtures.
const REFERENCE_SECRET = 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const REFERENCE_MSG_ID = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
const REFERENCE_PAYLOAD = '{"test": 2432232314}';
const REFERENCE_TIMESTAMP = 1614265330;
const REFERENCE_SIGNATURE = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=';
// Wrong signatures the suites use: an unrelated value, a short non-base64 string, one character off.
const UNRELATED_SIGNATURE = 'v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=';
const SHORT_SIGNATURE = 'v1,dawfeoifkpqwoekfpqoekf';
const ONE_CHARACTER_OFF = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OA=';

const PREFIXED_SECRET = `whsec_${REFERENCE_SECRET}`;
const NOW = REFERENCE_TIMESTAMP;

/** The verdict on the reference delivery, signed at `signedAt` and received at NOW, with `overrides`. */
const verifyReference = (overrides: Partial<StandardWebhookInput> = {}, signedAt = NOW) =>
	verifyStandardWebhook({
		...signedDelivery(PREFIXED_SECRET, REFERENCE_MSG_ID, signedAt, REFERENCE_PAYLOAD, NOW),
		...overrides,
	});

/** Whether the reference delivery verifies with `header` as its webhook-signature. */
const validWith = (header: string) => verifyReference({ webhookSignature: header }).valid;

const rejected = (reason: string) => ({ valid: false, reason });
const MISMATCH = rejected('signature mismatch');
const TOO_LONG = rejected('signature header too long');
const TOO_OLD = rejected('timestamp too old');
const TOO_NEW = rejected('timestamp too far in the future');

describe('Standard Webhooks reference vectors', () => {
	it('signs the reference message to the reference signature', () => {
		expect(
			signStandardWebhook(
				PREFIXED_SECRET,
				REFERENCE_MSG_ID,
				REFERENCE_TIMESTAMP,
				REFERENCE_PAYLOAD,
			),
		).toBe(REFERENCE_SIGNATURE);
	});

	it.each([
		['accepts the reference signature (valid signature is valid)', REFERENCE_PAYLOAD],
		[
			'accepts the reference signature from a Buffer of the same bytes',
			Buffer.from(REFERENCE_PAYLOAD),
		],
	])('%s', (_name, rawBody) => {
		expect(verifyReference({ rawBody, webhookSignature: REFERENCE_SIGNATURE })).toEqual({
			valid: true,
			scheme: 'standard',
			timestampSeconds: REFERENCE_TIMESTAMP,
		});
	});

	it.each([
		['webhook-id', { webhookId: undefined }],
		['webhook-timestamp', { webhookTimestamp: undefined }],
		['webhook-signature', { webhookSignature: undefined }],
		['webhook-id (empty)', { webhookId: '' }],
		['webhook-signature (empty)', { webhookSignature: '' }],
	])('rejects a delivery missing %s', (_header, override) => {
		expect(verifyReference(override)).toEqual(rejected('missing webhook headers'));
	});

	it.each([
		'hello',
		'1614265330.5',
		'-1614265330',
		' 1614265330',
		'0x60380ff2',
		'1e9',
		'1234567890123',
	])('rejects the invalid timestamp %p', (timestamp) => {
		expect(verifyReference({ webhookTimestamp: timestamp })).toEqual(rejected('invalid timestamp'));
	});

	it.each([
		['an unrelated signature', UNRELATED_SIGNATURE],
		['a short, non-base64 signature', SHORT_SIGNATURE],
		['a signature one character off', ONE_CHARACTER_OFF],
		['a partial signature (first 8 characters)', REFERENCE_SIGNATURE.slice(0, 8)],
		['a bare version prefix', 'v1,'],
		['the right signature under an unknown version', REFERENCE_SIGNATURE.replace('v1,', 'v2,')],
		['the right signature without its version', REFERENCE_SIGNATURE.slice(3)],
	])('rejects %s without throwing', (_label, signature) => {
		const verify = () => verifyReference({ webhookSignature: signature });
		expect(verify).not.toThrow();
		expect(verify()).toEqual(MISMATCH);
	});

	it('accepts a multi-signature header with unknown versions and wrong entries around the right one', () => {
		const wrong = [UNRELATED_SIGNATURE, UNRELATED_SIGNATURE.replace('v1,', 'v2,')];
		expect(validWith([...wrong, REFERENCE_SIGNATURE, UNRELATED_SIGNATURE].join(' '))).toBe(true);
	});

	it('tolerates repeated spaces between signature entries', () => {
		expect(validWith(`${UNRELATED_SIGNATURE}   ${REFERENCE_SIGNATURE} `)).toBe(true);
	});

	it('accepts the right signature in any of several header lines, however they were joined', () => {
		for (const join of [', ', ',', ' ', ',\t', ' , ']) {
			expect(validWith([REFERENCE_SIGNATURE, UNRELATED_SIGNATURE].join(join))).toBe(true);
			expect(validWith([UNRELATED_SIGNATURE, REFERENCE_SIGNATURE].join(join))).toBe(true);
		}
	});

	it('refuses a webhook-signature over 64 KiB and a webhook-id over 1,024 characters before any HMAC', () => {
		const entries = `${REFERENCE_SIGNATURE} ${'v1,AAAA '.repeat(MAX_SIGNATURE_HEADER_LENGTH)}`;
		const padded = entries.slice(0, MAX_SIGNATURE_HEADER_LENGTH);
		expect(validWith(padded)).toBe(true);
		expect(verifyReference({ webhookSignature: `${padded} ` })).toEqual(TOO_LONG);
		const longId = 'm'.repeat(MAX_WEBHOOK_ID_LENGTH + 1);
		expect(verifyReference({ webhookId: longId })).toEqual(rejected('webhook-id too long'));
	});

	it('rejects an old timestamp (tolerance + 1 s) and a new one (tolerance + 1 s)', () => {
		expect(verifyReference({}, NOW - DEFAULT_TOLERANCE_SECONDS - 1)).toEqual(TOO_OLD);
		expect(verifyReference({}, NOW + DEFAULT_TOLERANCE_SECONDS + 1)).toEqual(TOO_NEW);
	});

	it('accepts timestamps exactly at the edge of the window, like the reference library', () => {
		expect(verifyReference({}, NOW - DEFAULT_TOLERANCE_SECONDS).valid).toBe(true);
		expect(verifyReference({}, NOW + DEFAULT_TOLERANCE_SECONDS).valid).toBe(true);
	});

	it('uses a configured tolerance in both directions', () => {
		expect(verifyReference({ toleranceSeconds: 60 }, NOW - 61).valid).toBe(false);
		expect(verifyReference({ toleranceSeconds: 60 }, NOW + 61).valid).toBe(false);
		expect(verifyReference({ toleranceSeconds: 7200 }, NOW - 3600).valid).toBe(true);
	});

	it('rejects a changed timestamp even when the window would allow it (the timestamp is signed)', () => {
		const webhookTimestamp = String(Date.UTC(2000, 0, 1) / 1000);
		const toleranceSeconds = 100 * 365 * 24 * 3600;
		expect(verifyReference({ webhookTimestamp, toleranceSeconds })).toEqual(MISMATCH);
	});

	it('accepts the secret with the whsec_ prefix and refuses it without (this package requires the prefix)', () => {
		expect(verifyReference({ secrets: [PREFIXED_SECRET] }).valid).toBe(true);
		expect(verifyReference({ secrets: [REFERENCE_SECRET] })).toEqual(
			rejected('no valid signing secret configured'),
		);
	});
});

describe('verifying on raw bytes', () => {
	const secret = generateWebhookSecret();
	const rawBody = Buffer.from(
		'{"event":"case.statuschange",  "eventObject":{"id":"c-1","name":"Zoë"}}\n',
	);
	const delivery = signedDelivery(secret, 'msg_raw', NOW, rawBody);

	it('accepts the exact bytes that were signed', () => {
		expect(verifyStandardWebhook(delivery).valid).toBe(true);
	});

	it('rejects the same JSON re-serialised (whitespace and newline lost)', () => {
		const reserialised = JSON.stringify(JSON.parse(rawBody.toString('utf8')));
		expect(verifyStandardWebhook({ ...delivery, rawBody: reserialised }).valid).toBe(false);
	});

	it('rejects a body changed by one byte', () => {
		const tampered = Buffer.from(rawBody);
		tampered[tampered.indexOf('1')] = '2'.charCodeAt(0);
		expect(verifyStandardWebhook({ ...delivery, rawBody: tampered })).toEqual(MISMATCH);
	});

	it('signs bytes that are not valid UTF-8 as they are', () => {
		const binary = Buffer.from([0x7b, 0xff, 0xfe, 0x7d]);
		const signed = signedDelivery(secret, 'msg_bin', NOW, binary);
		expect(verifyStandardWebhook(signed).valid).toBe(true);
		// Decoding and re-encoding replaces the invalid bytes, so the signature no longer matches.
		const roundTripped = Buffer.from(binary.toString('utf8'), 'utf8');
		expect(verifyStandardWebhook({ ...signed, rawBody: roundTripped }).valid).toBe(false);
	});
});

describe('secret rotation on the receiving side', () => {
	const previous = generateWebhookSecret();
	const current = generateWebhookSecret();
	const body = '{"event":"case.statuschange"}';
	const delivery = signedDelivery(current, 'msg_rot', NOW, body);
	const byCurrent = delivery.webhookSignature;
	const byPrevious = signStandardWebhook(previous, 'msg_rot', NOW, body);
	const verify = (webhookSignature: string, secrets: string[]) =>
		verifyStandardWebhook({ ...delivery, webhookSignature, secrets });

	it('accepts a delivery signed only by the previous secret when both are configured', () => {
		expect(verify(byPrevious, [current, previous]).valid).toBe(true);
	});

	it('accepts a header carrying both signatures, in either order', () => {
		for (const header of [`${byPrevious} ${byCurrent}`, `${byCurrent} ${byPrevious}`]) {
			expect(verify(header, [current]).valid).toBe(true);
			expect(verify(header, [previous]).valid).toBe(true);
		}
	});

	it('rejects a delivery signed by the previous secret once it is removed', () => {
		expect(verify(byPrevious, [current])).toEqual(MISMATCH);
	});

	it('ignores an unusable secret next to a usable one', () => {
		expect(verify(byCurrent, ['', 'not-a-secret', current]).valid).toBe(true);
	});
});

describe('the standardwebhooks package as an independent implementation', () => {
	const cases = Array.from({ length: 25 }, (_, index) => ({
		secret: `whsec_${randomBytes(16 + index).toString('base64')}`,
		msgId: `msg_${randomBytes(12).toString('hex')}`,
		payload: JSON.stringify({ index, text: randomBytes(20).toString('base64'), unicode: 'é✓' }),
	}));
	const packageSign = (secret: string, msgId: string, seconds: number, payload: string) =>
		new Webhook(secret).sign(msgId, new Date(seconds * 1000), payload);

	it('produces the same signatures', () => {
		for (const { secret, msgId, payload } of cases) {
			expect(signStandardWebhook(secret, msgId, NOW, payload)).toBe(
				packageSign(secret, msgId, NOW, payload),
			);
		}
	});

	it('verifies what this module signs, and this module verifies what it signs', () => {
		const nowSeconds = Math.floor(Date.now() / 1000);
		for (const { secret, msgId, payload } of cases) {
			const ours = signedDelivery(secret, msgId, nowSeconds, payload);
			expect(() => new Webhook(secret).verify(payload, headersOf(ours))).not.toThrow();

			const webhookSignature = packageSign(secret, msgId, nowSeconds, payload);
			expect(
				verifyStandardWebhook({ ...ours, rawBody: Buffer.from(payload), webhookSignature }).valid,
			).toBe(true);
		}
	});

	it('agrees on rejecting a tampered payload', () => {
		const { secret, msgId, payload } = cases[0];
		const delivery = signedDelivery(secret, msgId, Math.floor(Date.now() / 1000), payload);
		const tampered = payload.replace('"index":0', '"index":1');
		expect(() => new Webhook(secret).verify(tampered, headersOf(delivery))).toThrow();
		expect(verifyStandardWebhook({ ...delivery, rawBody: tampered }).valid).toBe(false);
	});

	it('accepts secrets this module generates', () => {
		const secret = generateWebhookSecret();
		expect(() => new Webhook(secret)).not.toThrow();
		expect(signStandardWebhook(secret, 'msg_1', NOW, '{}')).toBe(
			packageSign(secret, 'msg_1', NOW, '{}'),
		);
	});
});

describe('whsec_ secrets', () => {
	it('decodes a prefixed base64 secret to its key bytes', () => {
		expect(decodeStandardSecret(PREFIXED_SECRET)).toEqual(Buffer.from(REFERENCE_SECRET, 'base64'));
		expect(isStandardSecret(PREFIXED_SECRET)).toBe(true);
	});

	it.each([
		['no prefix', REFERENCE_SECRET],
		['the prefix alone', 'whsec_'],
		['an empty string', ''],
		['characters outside base64', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaS!'],
		['a length that is not a multiple of 4', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaS'],
		['surrounding whitespace', ` ${PREFIXED_SECRET}`],
		['padding in the middle', 'whsec_MfKQ=r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
		['an upper-case prefix', `WHSEC_${REFERENCE_SECRET}`],
	])('refuses %s', (_label, secret) => {
		expect(decodeStandardSecret(secret)).toBeUndefined();
		expect(isStandardSecret(secret)).toBe(false);
	});

	it('refuses values that are not strings', () => {
		expect(isStandardSecret(undefined as unknown as string)).toBe(false);
		expect(isStandardSecret(42 as unknown as string)).toBe(false);
	});

	it('generates distinct 24-byte secrets', () => {
		const first = generateWebhookSecret();
		expect(decodeStandardSecret(first)).toHaveLength(24);
		expect(generateWebhookSecret()).not.toBe(first);
	});

	it('refuses to sign with a secret that is not whsec_ base64', () => {
		const sign = () => signStandardWebhook('plain', 'msg', NOW, '{}');
		expect(sign).toThrow('not a whsec_ base64 value');
	});
});

describe('legacy scheme (spec 6.6)', () => {
	const secret = 'legacy-shared-secret-7f3a';
	const body = '{"messageId":"m-1","event":"case.statuschange","username":"u","password":"p"}';
	const nowMs = 1_760_000_000_123;
	const nowSec = Math.floor(nowMs / 1000);

	/** Spec 6.6 written out independently: HMAC-SHA256(secret, `<t>.<sha256 hex of body>`), hex. */
	function specLegacySignature(timestampMs: number, rawBody: string | Buffer): string {
		const bodyHash = createHash('sha256').update(rawBody).digest('hex');
		return createHmac('sha256', secret).update(`${timestampMs}.${bodyHash}`).digest('hex');
	}
	const hex = specLegacySignature(nowMs, body);
	const signedNow = signLegacyWebhook(secret, nowMs, body);

	const verify = (header: string | undefined, overrides: Partial<LegacyWebhookInput> = {}) =>
		verifyLegacyWebhook({ rawBody: body, header, secret, nowMs, ...overrides });

	it('signs as the spec defines: t=<milliseconds>,v1=<hex>', () => {
		expect(signedNow).toBe(`t=${nowMs},v1=${hex}`);
	});

	it('accepts its own signature and reports the timestamp in seconds', () => {
		expect(verify(signedNow)).toEqual({ valid: true, scheme: 'legacy', timestampSeconds: nowSec });
	});

	it('accepts spaces after the comma, the parts in any order, and upper-case hex', () => {
		expect(verify(`t=${nowMs}, v1=${hex}`).valid).toBe(true);
		expect(verify(`v1=${hex},t=${nowMs}`).valid).toBe(true);
		expect(verify(`t=${nowMs},v1=${hex.toUpperCase()}`).valid).toBe(true);
	});

	it('accepts any of several v1 entries', () => {
		expect(verify(`t=${nowMs},v1=${'0'.repeat(64)},v1=${hex}`).valid).toBe(true);
	});

	it('refuses a header over 64 KiB without reading it', () => {
		const header = `${signedNow},${'a='.repeat(MAX_SIGNATURE_HEADER_LENGTH)}`;
		expect(verify(header.slice(0, MAX_SIGNATURE_HEADER_LENGTH)).valid).toBe(true);
		expect(verify(header.slice(0, MAX_SIGNATURE_HEADER_LENGTH + 1))).toEqual(TOO_LONG);
	});

	it('rejects a tampered body, a wrong secret and a signature of the wrong length', () => {
		expect(verify(signedNow, { rawBody: body.replace('"p"', '"q"') })).toEqual(MISMATCH);
		expect(verify(signedNow, { secret: 'another-secret' })).toEqual(MISMATCH);
		expect(verify(`t=${nowMs},v1=abc`)).toEqual(MISMATCH);
		expect(verify(`t=${nowMs},v2=${hex}`)).toEqual(MISMATCH);
	});

	it('rejects a signature that differs in its first or its last hex digit only', () => {
		const flip = (digit: string) => (digit === '0' ? '1' : '0');
		expect(verify(`t=${nowMs},v1=${flip(hex[0])}${hex.slice(1)}`)).toEqual(MISMATCH);
		expect(verify(`t=${nowMs},v1=${hex.slice(0, -1)}${flip(hex.slice(-1))}`)).toEqual(MISMATCH);
	});

	it('rejects a changed timestamp (the timestamp is signed)', () => {
		expect(verify(`t=${nowMs + 1},v1=${hex}`)).toEqual(MISMATCH);
	});

	it('rejects stale and future timestamps, with the configured tolerance', () => {
		const tolerance = DEFAULT_TOLERANCE_SECONDS * 1000;
		expect(verify(signLegacyWebhook(secret, nowMs - tolerance - 1000, body))).toEqual(TOO_OLD);
		expect(verify(signLegacyWebhook(secret, nowMs + tolerance + 1000, body))).toEqual(TOO_NEW);
		expect(
			verify(signLegacyWebhook(secret, nowMs - 90_000, body), { toleranceSeconds: 60 }).valid,
		).toBe(false);
	});

	it('reads the timestamp as milliseconds: a timestamp in seconds is decades old', () => {
		expect(verify(`t=${nowSec},v1=${specLegacySignature(nowSec, body)}`)).toEqual(TOO_OLD);
	});

	it.each([
		['no header', undefined, 'missing signature header'],
		['an empty header', '', 'missing signature header'],
		['no timestamp', `v1=${'a'.repeat(64)}`, 'invalid timestamp'],
		['a non-numeric timestamp', `t=soon,v1=${'a'.repeat(64)}`, 'invalid timestamp'],
		['a standard-scheme header', REFERENCE_SIGNATURE, 'invalid timestamp'],
	])('rejects %s', (_label, header, reason) => {
		expect(verify(header)).toEqual(rejected(reason));
	});

	it('rejects every delivery when no legacy secret is configured', () => {
		expect(verify(signedNow, { secret: '' })).toEqual(rejected('no legacy secret configured'));
	});

	it('hashes the raw bytes: a re-serialised body does not verify', () => {
		const reserialised = JSON.stringify(JSON.parse(body), null, 1);
		expect(verify(signedNow, { rawBody: reserialised }).valid).toBe(false);
		expect(verify(signedNow, { rawBody: Buffer.from(body) }).valid).toBe(true);
	});
});

describe('header parsers', () => {
	it('reads the v1 entries of webhook-signature, across spaces, commas and joined lines', () => {
		expect(parseSignatureHeader('v1,abc= v1,def=')).toEqual(['abc=', 'def=']);
		expect(parseSignatureHeader('v1,abc=, v1,def=')).toEqual(['abc=', 'def=']);
		expect(parseSignatureHeader('v1,abc=,v1,def=')).toEqual(['abc=', 'def=']);
		expect(parseSignatureHeader('  v2,xyz v1a,sig v1,abc=  ')).toEqual(['abc=']);
		expect(parseSignatureHeader('v1, v1,abc=')).toEqual(['abc=']);
		expect(parseSignatureHeader('v1 v1,abc=')).toEqual(['abc=']);
		expect(parseSignatureHeader('v1,v1,abc=')).toEqual(['v1', 'abc=']);
		expect(parseSignatureHeader('v1,,abc=')).toEqual([]);
		expect(parseSignatureHeader('')).toEqual([]);
		expect(parseSignatureHeader('v1')).toEqual([]);
	});

	it('reads the first t and every v1 of the legacy header, trimmed', () => {
		expect(parseLegacyHeader('t=1, v1=aa ,v1=bb,t=2, x=1,=y,novalue')).toEqual({
			timestamp: '1',
			signatures: ['aa', 'bb'],
		});
		expect(parseLegacyHeader('')).toEqual({ timestamp: undefined, signatures: [] });
		expect(parseLegacyHeader('t=1,v1=a=b')).toEqual({ timestamp: '1', signatures: ['a=b'] });
	});
});
