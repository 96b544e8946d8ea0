/** nodes/shared/transport/redaction.ts (generated inputs: redaction.fuzz.test.ts). */
import { redact } from '../../../../nodes/shared/transport/redaction';
import { CREDENTIAL_SECRETS as SECRETS } from '../../../fixtures/credentialSecrets';

describe('secrets never leave in an error', () => {
	it('redacts credential values, bearer headers and JWTs', () => {
		const text = `key ${SECRETS.apiKey} token ${SECRETS.clientAccessToken} Authorization: Bearer abc.def ${SECRETS.token}`;
		const clean = redact(text, Object.values(SECRETS));
		for (const secret of [...Object.values(SECRETS), 'abc.def'])
			expect(clean).not.toContain(secret);
	});

	it('leaves no token signature when a credential value sits inside the JWT (found by the fuzz suite)', () => {
		const jwt = `eyJhbGciOiJIUzI1NiJ9${SECRETS.apiKey}.eyJncm91cCI6ImVhc3QifQ.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg`;
		expect(redact(`rejected ${jwt} for this key`, [SECRETS.apiKey])).not.toContain(
			'c2lnbmF0dXJlLW9mLXRoZS10b2tlbg',
		);
	});

	it('redacts JWTs to the end of their dotted run, and leaves JWT-like text that is not one', () => {
		expect(redact('a eyJx.y.z b')).toBe('a [redacted] b');
		expect(redact('eyJx.y.z.w')).toBe('[redacted]');
		// text glued before a token cannot leave its signature behind
		expect(redact('eyJab.eyJhdr.payload.signature')).toBe('[redacted]');
		expect(redact('eyJa.beyJhdr.payload.signature')).toBe('[redacted]');
		expect(redact('eyJx.y. and eyJa.b.c')).toBe('[redacted] and [redacted]');
		expect(redact('xeyJa.b.c')).toBe('x[redacted]');
		for (const text of ['eyJ.y.z', 'eyJx..z', 'eyJx.y', 'eyJeyJeyJ', 'eyJa.eyJb'])
			expect(redact(text)).toBe(text);
		expect(redact('Authorization: Bearer abc.def-1 rest')).toBe('Authorization: [redacted] rest');
	});
});
