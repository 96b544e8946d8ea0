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
	type StandardWebhookInput,
} from '../../../nodes/shared/webhookSignature';

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

/** A delivery as the reference suites build it: signed with the reference secret at `timestampSeconds`. */
function referenceDelivery(
	timestampSeconds: number,
	overrides: Partial<StandardWebhookInput> = {},
): StandardWebhookInput {
	return {
		rawBody: REFERENCE_PAYLOAD,
		webhookId: REFERENCE_MSG_ID,
		webhookTimestamp: String(timestampSeconds),
		webhookSignature: signStandardWebhook(
			PREFIXED_SECRET,
			REFERENCE_MSG_ID,
			timestampSeconds,
			REFERENCE_PAYLOAD,
		),
		secrets: [PREFIXED_SECRET],
		nowSeconds: REFERENCE_TIMESTAMP,
		...overrides,
	};
}

const NOW = REFERENCE_TIMESTAMP;

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

	it('accepts the reference signature (valid signature is valid)', () => {
		const result = verifyStandardWebhook({
			rawBody: REFERENCE_PAYLOAD,
			webhookId: REFERENCE_MSG_ID,
			webhookTimestamp: String(REFERENCE_TIMESTAMP),
			webhookSignature: REFERENCE_SIGNATURE,
			secrets: [PREFIXED_SECRET],
			nowSeconds: REFERENCE_TIMESTAMP,
		});
		expect(result).toEqual({
			valid: true,
			scheme: 'standard',
			timestampSeconds: REFERENCE_TIMESTAMP,
		});
	});

	it('accepts the reference signature from a Buffer of the same bytes', () => {
		const result = verifyStandardWebhook({
			...referenceDelivery(NOW),
			rawBody: Buffer.from(REFERENCE_PAYLOAD),
			webhookSignature: REFERENCE_SIGNATURE,
		});
		expect(result.valid).toBe(true);
	});

	it.each([
		['webhook-id', { webhookId: undefined }],
		['webhook-timestamp', { webhookTimestamp: undefined }],
		['webhook-signature', { webhookSignature: undefined }],
		['webhook-id (empty)', { webhookId: '' }],
		['webhook-signature (empty)', { webhookSignature: '' }],
	])('rejects a delivery missing %s', (_header, override) => {
		expect(verifyStandardWebhook(referenceDelivery(NOW, override))).toEqual({
			valid: false,
			reason: 'missing webhook headers',
		});
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
		expect(verifyStandardWebhook(referenceDelivery(NOW, { webhookTimestamp: timestamp }))).toEqual({
			valid: false,
			reason: 'invalid timestamp',
		});
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
		expect(() =>
			verifyStandardWebhook(referenceDelivery(NOW, { webhookSignature: signature })),
		).not.toThrow();
		expect(verifyStandardWebhook(referenceDelivery(NOW, { webhookSignature: signature }))).toEqual({
			valid: false,
			reason: 'signature mismatch',
		});
	});

	it('accepts a multi-signature header with unknown versions and wrong entries around the right one', () => {
		const header = [
			UNRELATED_SIGNATURE,
			UNRELATED_SIGNATURE.replace('v1,', 'v2,'),
			REFERENCE_SIGNATURE,
			UNRELATED_SIGNATURE,
		].join(' ');
		expect(verifyStandardWebhook(referenceDelivery(NOW, { webhookSignature: header })).valid).toBe(
			true,
		);
	});

	it('tolerates repeated spaces between signature entries', () => {
		const header = `${UNRELATED_SIGNATURE}   ${REFERENCE_SIGNATURE} `;
		expect(verifyStandardWebhook(referenceDelivery(NOW, { webhookSignature: header })).valid).toBe(
			true,
		);
	});

	it('accepts the right signature in any of several header lines, however they were joined', () => {
		for (const join of [', ', ',', ' ', ',\t', ' , ']) {
			for (const lines of [
				[REFERENCE_SIGNATURE, UNRELATED_SIGNATURE],
				[UNRELATED_SIGNATURE, REFERENCE_SIGNATURE],
			]) {
				expect(
					verifyStandardWebhook(referenceDelivery(NOW, { webhookSignature: lines.join(join) }))
						.valid,
				).toBe(true);
			}
		}
	});

	it('refuses a webhook-signature over 64 KiB and a webhook-id over 1,024 characters before any HMAC', () => {
		const padded = `${REFERENCE_SIGNATURE} ${'v1,AAAA '.repeat(MAX_SIGNATURE_HEADER_LENGTH)}`.slice(
			0,
			MAX_SIGNATURE_HEADER_LENGTH,
		);
		expect(verifyStandardWebhook(referenceDelivery(NOW, { webhookSignature: padded })).valid).toBe(
			true,
		);
		expect(
			verifyStandardWebhook(referenceDelivery(NOW, { webhookSignature: `${padded} ` })),
		).toEqual({
			valid: false,
			reason: 'signature header too long',
		});
		expect(
			verifyStandardWebhook(
				referenceDelivery(NOW, { webhookId: 'm'.repeat(MAX_WEBHOOK_ID_LENGTH + 1) }),
			),
		).toEqual({
			valid: false,
			reason: 'webhook-id too long',
		});
	});

	it('rejects an old timestamp (tolerance + 1 s) and a new one (tolerance + 1 s)', () => {
		const tolerance = DEFAULT_TOLERANCE_SECONDS;
		expect(verifyStandardWebhook(referenceDelivery(NOW - tolerance - 1))).toEqual({
			valid: false,
			reason: 'timestamp too old',
		});
		expect(verifyStandardWebhook(referenceDelivery(NOW + tolerance + 1))).toEqual({
			valid: false,
			reason: 'timestamp too far in the future',
		});
	});

	it('accepts timestamps exactly at the edge of the window, like the reference library', () => {
		expect(verifyStandardWebhook(referenceDelivery(NOW - DEFAULT_TOLERANCE_SECONDS)).valid).toBe(
			true,
		);
		expect(verifyStandardWebhook(referenceDelivery(NOW + DEFAULT_TOLERANCE_SECONDS)).valid).toBe(
			true,
		);
	});

	it('uses a configured tolerance in both directions', () => {
		expect(verifyStandardWebhook(referenceDelivery(NOW - 61, { toleranceSeconds: 60 })).valid).toBe(
			false,
		);
		expect(verifyStandardWebhook(referenceDelivery(NOW + 61, { toleranceSeconds: 60 })).valid).toBe(
			false,
		);
		expect(
			verifyStandardWebhook(referenceDelivery(NOW - 3600, { toleranceSeconds: 7200 })).valid,
		).toBe(true);
	});

	it('rejects a changed timestamp even when the window would allow it (the timestamp is signed)', () => {
		const delivery = referenceDelivery(NOW);
		const result = verifyStandardWebhook({
			...delivery,
			webhookTimestamp: String(Date.UTC(2000, 0, 1) / 1000),
			toleranceSeconds: 100 * 365 * 24 * 3600,
		});
		expect(result).toEqual({ valid: false, reason: 'signature mismatch' });
	});

	it('accepts the secret with the whsec_ prefix and refuses it without (this package requires the prefix)', () => {
		expect(
			verifyStandardWebhook(referenceDelivery(NOW, { secrets: [PREFIXED_SECRET] })).valid,
		).toBe(true);
		expect(verifyStandardWebhook(referenceDelivery(NOW, { secrets: [REFERENCE_SECRET] }))).toEqual({
			valid: false,
			reason: 'no valid signing secret configured',
		});
	});
});

describe('verifying on raw bytes', () => {
	const secret = generateWebhookSecret();
	const rawBody = Buffer.from(
		'{"event":"case.statuschange",  "eventObject":{"id":"c-1","name":"Zoë"}}\n',
	);
	const signature = signStandardWebhook(secret, 'msg_raw', NOW, rawBody);
	const input = {
		webhookId: 'msg_raw',
		webhookTimestamp: String(NOW),
		webhookSignature: signature,
		secrets: [secret],
		nowSeconds: NOW,
	};

	it('accepts the exact bytes that were signed', () => {
		expect(verifyStandardWebhook({ ...input, rawBody }).valid).toBe(true);
	});

	it('rejects the same JSON re-serialised (whitespace and newline lost)', () => {
		const reserialised = JSON.stringify(JSON.parse(rawBody.toString('utf8')));
		expect(verifyStandardWebhook({ ...input, rawBody: reserialised }).valid).toBe(false);
	});

	it('rejects a body changed by one byte', () => {
		const tampered = Buffer.from(rawBody);
		tampered[tampered.indexOf('1')] = '2'.charCodeAt(0);
		expect(verifyStandardWebhook({ ...input, rawBody: tampered })).toEqual({
			valid: false,
			reason: 'signature mismatch',
		});
	});

	it('signs bytes that are not valid UTF-8 as they are', () => {
		const binary = Buffer.from([0x7b, 0xff, 0xfe, 0x7d]);
		const signed = signStandardWebhook(secret, 'msg_bin', NOW, binary);
		expect(
			verifyStandardWebhook({
				...input,
				webhookId: 'msg_bin',
				webhookSignature: signed,
				rawBody: binary,
			}).valid,
		).toBe(true);
		// Decoding and re-encoding replaces the invalid bytes, so the signature no longer matches.
		const roundTripped = Buffer.from(binary.toString('utf8'), 'utf8');
		expect(
			verifyStandardWebhook({
				...input,
				webhookId: 'msg_bin',
				webhookSignature: signed,
				rawBody: roundTripped,
			}).valid,
		).toBe(false);
	});
});

describe('secret rotation on the receiving side', () => {
	const previous = generateWebhookSecret();
	const current = generateWebhookSecret();
	const body = '{"event":"case.statuschange"}';
	const base = {
		rawBody: body,
		webhookId: 'msg_rot',
		webhookTimestamp: String(NOW),
		nowSeconds: NOW,
	};
	const byPrevious = signStandardWebhook(previous, 'msg_rot', NOW, body);
	const byCurrent = signStandardWebhook(current, 'msg_rot', NOW, body);

	it('accepts a delivery signed only by the previous secret when both are configured', () => {
		expect(
			verifyStandardWebhook({ ...base, webhookSignature: byPrevious, secrets: [current, previous] })
				.valid,
		).toBe(true);
	});

	it('accepts a header carrying both signatures, in either order', () => {
		for (const header of [`${byPrevious} ${byCurrent}`, `${byCurrent} ${byPrevious}`]) {
			expect(
				verifyStandardWebhook({ ...base, webhookSignature: header, secrets: [current] }).valid,
			).toBe(true);
			expect(
				verifyStandardWebhook({ ...base, webhookSignature: header, secrets: [previous] }).valid,
			).toBe(true);
		}
	});

	it('rejects a delivery signed by the previous secret once it is removed', () => {
		expect(
			verifyStandardWebhook({ ...base, webhookSignature: byPrevious, secrets: [current] }),
		).toEqual({
			valid: false,
			reason: 'signature mismatch',
		});
	});

	it('ignores an unusable secret next to a usable one', () => {
		expect(
			verifyStandardWebhook({
				...base,
				webhookSignature: byCurrent,
				secrets: ['', 'not-a-secret', current],
			}).valid,
		).toBe(true);
	});
});

describe('the standardwebhooks package as an independent implementation', () => {
	const cases = Array.from({ length: 25 }, (_, index) => ({
		secret: `whsec_${randomBytes(16 + index).toString('base64')}`,
		msgId: `msg_${randomBytes(12).toString('hex')}`,
		payload: JSON.stringify({ index, text: randomBytes(20).toString('base64'), unicode: 'é✓' }),
	}));

	it('produces the same signatures', () => {
		for (const { secret, msgId, payload } of cases) {
			expect(signStandardWebhook(secret, msgId, NOW, payload)).toBe(
				new Webhook(secret).sign(msgId, new Date(NOW * 1000), payload),
			);
		}
	});

	it('verifies what this module signs, and this module verifies what it signs', () => {
		const nowSeconds = Math.floor(Date.now() / 1000);
		for (const { secret, msgId, payload } of cases) {
			const ours = signStandardWebhook(secret, msgId, nowSeconds, payload);
			const headers = {
				'webhook-id': msgId,
				'webhook-timestamp': String(nowSeconds),
				'webhook-signature': ours,
			};
			expect(() => new Webhook(secret).verify(payload, headers)).not.toThrow();

			const theirs = new Webhook(secret).sign(msgId, new Date(nowSeconds * 1000), payload);
			const result = verifyStandardWebhook({
				rawBody: Buffer.from(payload),
				webhookId: msgId,
				webhookTimestamp: String(nowSeconds),
				webhookSignature: theirs,
				secrets: [secret],
				nowSeconds,
			});
			expect(result.valid).toBe(true);
		}
	});

	it('agrees on rejecting a tampered payload', () => {
		const nowSeconds = Math.floor(Date.now() / 1000);
		const { secret, msgId, payload } = cases[0];
		const signature = signStandardWebhook(secret, msgId, nowSeconds, payload);
		const tampered = payload.replace('"index":0', '"index":1');
		const headers = {
			'webhook-id': msgId,
			'webhook-timestamp': String(nowSeconds),
			'webhook-signature': signature,
		};
		expect(() => new Webhook(secret).verify(tampered, headers)).toThrow();
		expect(
			verifyStandardWebhook({
				rawBody: tampered,
				webhookId: msgId,
				webhookTimestamp: String(nowSeconds),
				webhookSignature: signature,
				secrets: [secret],
				nowSeconds,
			}).valid,
		).toBe(false);
	});

	it('accepts secrets this module generates', () => {
		const secret = generateWebhookSecret();
		expect(() => new Webhook(secret)).not.toThrow();
		expect(signStandardWebhook(secret, 'msg_1', NOW, '{}')).toBe(
			new Webhook(secret).sign('msg_1', new Date(NOW * 1000), '{}'),
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
		expect(() => signStandardWebhook('plain', 'msg', NOW, '{}')).toThrow(
			'not a whsec_ base64 value',
		);
	});
});

describe('legacy scheme (spec 6.6)', () => {
	const secret = 'legacy-shared-secret-7f3a';
	const body = '{"messageId":"m-1","event":"case.statuschange","username":"u","password":"p"}';
	const nowMs = 1_760_000_000_123;

	/** Spec 6.6 written out independently: HMAC-SHA256(secret, `<t>.<sha256 hex of body>`), hex. */
	function specLegacySignature(timestampMs: number, rawBody: string | Buffer): string {
		const bodyHash = createHash('sha256').update(rawBody).digest('hex');
		return createHmac('sha256', secret).update(`${timestampMs}.${bodyHash}`).digest('hex');
	}

	const verify = (
		header: string | undefined,
		overrides: Partial<Parameters<typeof verifyLegacyWebhook>[0]> = {},
	) => verifyLegacyWebhook({ rawBody: body, header, secret, nowMs, ...overrides });

	it('signs as the spec defines: t=<milliseconds>,v1=<hex>', () => {
		expect(signLegacyWebhook(secret, nowMs, body)).toBe(
			`t=${nowMs},v1=${specLegacySignature(nowMs, body)}`,
		);
	});

	it('accepts its own signature and reports the timestamp in seconds', () => {
		expect(verify(signLegacyWebhook(secret, nowMs, body))).toEqual({
			valid: true,
			scheme: 'legacy',
			timestampSeconds: Math.floor(nowMs / 1000),
		});
	});

	it('accepts spaces after the comma, the parts in any order, and upper-case hex', () => {
		const hex = specLegacySignature(nowMs, body);
		expect(verify(`t=${nowMs}, v1=${hex}`).valid).toBe(true);
		expect(verify(`v1=${hex},t=${nowMs}`).valid).toBe(true);
		expect(verify(`t=${nowMs},v1=${hex.toUpperCase()}`).valid).toBe(true);
	});

	it('accepts any of several v1 entries', () => {
		const hex = specLegacySignature(nowMs, body);
		expect(verify(`t=${nowMs},v1=${'0'.repeat(64)},v1=${hex}`).valid).toBe(true);
	});

	it('refuses a header over 64 KiB without reading it', () => {
		const header = `${signLegacyWebhook(secret, nowMs, body)},${'a='.repeat(MAX_SIGNATURE_HEADER_LENGTH)}`;
		expect(verify(header.slice(0, MAX_SIGNATURE_HEADER_LENGTH)).valid).toBe(true);
		expect(verify(header.slice(0, MAX_SIGNATURE_HEADER_LENGTH + 1))).toEqual({
			valid: false,
			reason: 'signature header too long',
		});
	});

	it('rejects a tampered body, a wrong secret and a signature of the wrong length', () => {
		const header = signLegacyWebhook(secret, nowMs, body);
		expect(verify(header, { rawBody: body.replace('"p"', '"q"') })).toEqual({
			valid: false,
			reason: 'signature mismatch',
		});
		expect(verify(header, { secret: 'another-secret' })).toEqual({
			valid: false,
			reason: 'signature mismatch',
		});
		expect(verify(`t=${nowMs},v1=abc`)).toEqual({ valid: false, reason: 'signature mismatch' });
		expect(verify(`t=${nowMs},v2=${specLegacySignature(nowMs, body)}`)).toEqual({
			valid: false,
			reason: 'signature mismatch',
		});
	});

	it('rejects a changed timestamp (the timestamp is signed)', () => {
		const hex = specLegacySignature(nowMs, body);
		expect(verify(`t=${nowMs + 1},v1=${hex}`)).toEqual({
			valid: false,
			reason: 'signature mismatch',
		});
	});

	it('rejects stale and future timestamps, with the configured tolerance', () => {
		const tolerance = DEFAULT_TOLERANCE_SECONDS * 1000;
		expect(verify(signLegacyWebhook(secret, nowMs - tolerance - 1000, body))).toEqual({
			valid: false,
			reason: 'timestamp too old',
		});
		expect(verify(signLegacyWebhook(secret, nowMs + tolerance + 1000, body))).toEqual({
			valid: false,
			reason: 'timestamp too far in the future',
		});
		expect(
			verify(signLegacyWebhook(secret, nowMs - 90_000, body), { toleranceSeconds: 60 }).valid,
		).toBe(false);
	});

	it('reads the timestamp as milliseconds: a timestamp in seconds is decades old', () => {
		const seconds = Math.floor(nowMs / 1000);
		expect(verify(`t=${seconds},v1=${specLegacySignature(seconds, body)}`)).toEqual({
			valid: false,
			reason: 'timestamp too old',
		});
	});

	it.each([
		['no header', undefined, 'missing signature header'],
		['an empty header', '', 'missing signature header'],
		['no timestamp', `v1=${'a'.repeat(64)}`, 'invalid timestamp'],
		['a non-numeric timestamp', `t=soon,v1=${'a'.repeat(64)}`, 'invalid timestamp'],
		['a standard-scheme header', REFERENCE_SIGNATURE, 'invalid timestamp'],
	])('rejects %s', (_label, header, reason) => {
		expect(verify(header)).toEqual({ valid: false, reason });
	});

	it('rejects every delivery when no legacy secret is configured', () => {
		expect(verify(signLegacyWebhook(secret, nowMs, body), { secret: '' })).toEqual({
			valid: false,
			reason: 'no legacy secret configured',
		});
	});

	it('hashes the raw bytes: a re-serialised body does not verify', () => {
		const header = signLegacyWebhook(secret, nowMs, body);
		const reserialised = JSON.stringify(JSON.parse(body), null, 1);
		expect(verify(header, { rawBody: reserialised }).valid).toBe(false);
		expect(verify(header, { rawBody: Buffer.from(body) }).valid).toBe(true);
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
