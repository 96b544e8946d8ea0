/** nodes/BackgroundCheckTrigger/verification.ts: which signature check a delivery gets, and a configuration's problems. */
import {
	configurationProblems,
	verifyDelivery,
	type VerificationConfig,
} from '../../../nodes/BackgroundCheckTrigger/verification';
import {
	generateWebhookSecret,
	signLegacyWebhook,
	signStandardWebhook,
} from '../../../nodes/shared/webhookSignature';
import { caseEventBody as body } from '../../fixtures/caseStatusEvent';

const SECRET = generateWebhookSecret();
const LEGACY_SECRET = 'a1b2c3d4e5f6';
const NOW_MS = 1_760_000_000_000;
const NOW = NOW_MS / 1000;

const config = (overrides: Partial<VerificationConfig> = {}): VerificationConfig => ({
	scheme: 'standard',
	signingSecrets: [SECRET, ''],
	legacySecret: LEGACY_SECRET,
	legacyHeaderName: '',
	toleranceSeconds: 300,
	...overrides,
});

const standardHeaders = (rawBody: Buffer = body, secret = SECRET) => ({
	'webhook-id': 'msg_1',
	'webhook-timestamp': String(NOW),
	'webhook-signature': signStandardWebhook(secret, 'msg_1', NOW, rawBody),
});
const legacyHeaders = (name = 'acme-signature', rawBody: Buffer = body) => ({
	[name]: signLegacyWebhook(LEGACY_SECRET, NOW_MS, rawBody),
});

describe('configurationProblems', () => {
	it('accepts a whsec_ secret for Standard and a legacy secret for Legacy', () => {
		expect(configurationProblems(config())).toEqual([]);
		expect(configurationProblems(config({ scheme: 'legacy', signingSecrets: ['', ''] }))).toEqual(
			[],
		);
		expect(
			configurationProblems(
				config({ scheme: 'both', signingSecrets: [SECRET, generateWebhookSecret()] }),
			),
		).toEqual([]);
	});

	it('names a signing secret that is not whsec_ base64, without repeating it', () => {
		const problems = configurationProblems(
			config({ signingSecrets: ['MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', ''] }),
		);
		expect(problems).toEqual([expect.stringContaining('is not a whsec_ secret')]);
		expect(problems.join()).not.toContain('MfKQ9r8G');
	});

	it('names each missing or malformed value for the chosen scheme', () => {
		expect(configurationProblems(config({ signingSecrets: ['', ''] }))).toEqual([
			expect.stringContaining('no Signing Secret'),
		]);
		expect(configurationProblems(config({ signingSecrets: [SECRET, 'old-secret'] }))).toEqual([
			expect.stringContaining('Previous Signing Secret is not a whsec_ secret'),
		]);
		expect(
			configurationProblems(config({ scheme: 'both', legacySecret: '', signingSecrets: ['', ''] })),
		).toHaveLength(2);
		expect(
			configurationProblems(config({ scheme: 'legacy', legacyHeaderName: 'bad header:' })),
		).toEqual([expect.stringContaining('not a valid header name')]);
		expect(configurationProblems(config({ toleranceSeconds: 0 }))).toEqual([
			expect.stringContaining('tolerance'),
		]);
	});

	it('does not ask for the legacy secret under Standard, nor the whsec_ secret under Legacy', () => {
		expect(configurationProblems(config({ legacySecret: '' }))).toEqual([]);
		expect(
			configurationProblems(config({ scheme: 'legacy', signingSecrets: ['junk', 'junk'] })),
		).toEqual([]);
	});
});

describe('verifyDelivery', () => {
	it('verifies a Standard delivery and reports its ID', () => {
		expect(verifyDelivery(standardHeaders(), body, config(), NOW_MS)).toEqual({
			valid: true,
			scheme: 'standard',
			timestampSeconds: NOW,
			deliveryId: 'msg_1',
		});
	});

	it('accepts the previous secret during a rotation', () => {
		const previous = generateWebhookSecret();
		expect(
			verifyDelivery(
				standardHeaders(body, previous),
				body,
				config({ signingSecrets: [SECRET, previous] }),
				NOW_MS,
			).valid,
		).toBe(true);
		expect(verifyDelivery(standardHeaders(body, previous), body, config(), NOW_MS).valid).toBe(
			false,
		);
	});

	it('joins a repeated webhook-signature header, and refuses it when no line matches', () => {
		const headers = {
			...standardHeaders(),
			'webhook-signature': ['v1,AAAA', standardHeaders()['webhook-signature']],
		};
		expect(verifyDelivery(headers, body, config(), NOW_MS).valid).toBe(true);
		const other = standardHeaders(body, generateWebhookSecret())['webhook-signature'];
		expect(
			verifyDelivery({ ...headers, 'webhook-signature': [other, other] }, body, config(), NOW_MS),
		).toEqual({ valid: false, reason: 'signature mismatch' });
	});

	it('refuses a legacy delivery under Standard and a Standard one under Legacy', () => {
		expect(verifyDelivery(legacyHeaders(), body, config(), NOW_MS)).toEqual({
			valid: false,
			reason: 'missing webhook headers',
		});
		expect(verifyDelivery(standardHeaders(), body, config({ scheme: 'legacy' }), NOW_MS)).toEqual({
			valid: false,
			reason: 'missing signature header',
		});
	});

	it('finds the legacy header by itself when no name is configured', () => {
		const result = verifyDelivery(
			{ ...legacyHeaders('acme-signature'), 'content-type': 'application/json' },
			body,
			config({ scheme: 'legacy' }),
			NOW_MS,
		);
		expect(result).toEqual({ valid: true, scheme: 'legacy', timestampSeconds: NOW });
	});

	it('does not guess between two legacy-looking headers', () => {
		const headers = { ...legacyHeaders('acme-signature'), ...legacyHeaders('other-signature') };
		expect(verifyDelivery(headers, body, config({ scheme: 'legacy' }), NOW_MS).valid).toBe(false);
		expect(
			verifyDelivery(
				headers,
				body,
				config({ scheme: 'legacy', legacyHeaderName: 'acme-signature' }),
				NOW_MS,
			).valid,
		).toBe(true);
	});

	it('reads only the configured legacy header', () => {
		expect(
			verifyDelivery(
				legacyHeaders('acme-signature'),
				body,
				config({ scheme: 'legacy', legacyHeaderName: 'x-signature' }),
				NOW_MS,
			),
		).toEqual({
			valid: false,
			reason: 'missing signature header',
		});
	});

	it('with Both, verifies whichever scheme the headers carry', () => {
		expect(
			verifyDelivery(standardHeaders(), body, config({ scheme: 'both' }), NOW_MS),
		).toMatchObject({ valid: true, scheme: 'standard' });
		expect(verifyDelivery(legacyHeaders(), body, config({ scheme: 'both' }), NOW_MS)).toMatchObject(
			{ valid: true, scheme: 'legacy' },
		);
		expect(verifyDelivery({}, body, config({ scheme: 'both' }), NOW_MS)).toEqual({
			valid: false,
			reason: 'missing signature headers',
		});
	});

	it('with Both and both headers, accepts either valid signature and otherwise gives the Standard reason', () => {
		const badStandard = { ...standardHeaders(), 'webhook-signature': 'v1,AAAA' };
		expect(
			verifyDelivery(
				{ ...badStandard, ...legacyHeaders() },
				body,
				config({ scheme: 'both' }),
				NOW_MS,
			),
		).toMatchObject({ valid: true, scheme: 'legacy' });
		const badLegacy = { 'acme-signature': `t=${NOW_MS},v1=00` };
		expect(
			verifyDelivery({ ...badStandard, ...badLegacy }, body, config({ scheme: 'both' }), NOW_MS),
		).toEqual({
			valid: false,
			reason: 'signature mismatch',
		});
	});

	it('refuses a tampered body and a stale or future delivery', () => {
		const tampered = Buffer.from(body.toString().replace('Complete', 'Pending!'));
		expect(verifyDelivery(standardHeaders(), tampered, config(), NOW_MS).valid).toBe(false);
		expect(verifyDelivery(standardHeaders(), body, config(), NOW_MS + 301_000)).toEqual({
			valid: false,
			reason: 'timestamp too old',
		});
		expect(verifyDelivery(standardHeaders(), body, config(), NOW_MS - 301_000)).toEqual({
			valid: false,
			reason: 'timestamp too far in the future',
		});
		expect(
			verifyDelivery(standardHeaders(), body, config({ toleranceSeconds: 600 }), NOW_MS + 301_000)
				.valid,
		).toBe(true);
	});
});
