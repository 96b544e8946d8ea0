/**
 * Which signature check a delivery gets: the configured scheme, the headers it is read from, and the problems
 * of a configuration that would refuse every delivery. The checks themselves live in ../shared/webhookSignature.
 */
import {
	isStandardSecret,
	verifyLegacyWebhook,
	verifyStandardWebhook,
	type VerificationResult,
} from '../shared/webhookSignature';

export type SignatureScheme = 'standard' | 'legacy' | 'both';

export type RequestHeaders = Record<string, string | string[] | undefined>;

export interface VerificationConfig {
	scheme: SignatureScheme;
	/** Current `whsec_` secret first, then the previous one during a rotation. */
	signingSecrets: string[];
	legacySecret: string;
	/** Empty: use the one `<brand>-signature` header that carries a legacy signature. */
	legacyHeaderName: string;
	toleranceSeconds: number;
}

const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

/** Problems that make every delivery fail, worded for the person activating the workflow. */
export function configurationProblems(config: VerificationConfig): string[] {
	const problems: string[] = [];
	const [current, previous] = config.signingSecrets;
	if (config.scheme !== 'legacy') {
		if (!current)
			problems.push(
				'The credential has no Signing Secret; the Standard scheme needs the whsec_ secret of the endpoint.',
			);
		else if (!isStandardSecret(current))
			problems.push(
				'The Signing Secret is not a whsec_ secret: copy it exactly as the provider shows it, starting with whsec_.',
			);
		if (previous && !isStandardSecret(previous))
			problems.push(
				'The Previous Signing Secret is not a whsec_ secret: copy the old secret exactly, or clear the field.',
			);
	}
	if (config.scheme !== 'standard') {
		if (!config.legacySecret)
			problems.push('The credential has no Legacy Secret; the Legacy scheme needs it.');
		if (config.legacyHeaderName && !HEADER_NAME.test(config.legacyHeaderName))
			problems.push(`"${config.legacyHeaderName}" is not a valid header name.`);
	}
	if (!Number.isInteger(config.toleranceSeconds) || config.toleranceSeconds < 1)
		problems.push('The signature tolerance must be a whole number of seconds, at least 1.');
	return problems;
}

function singleHeader(headers: RequestHeaders, name: string): string | undefined {
	const value = headers[name.toLowerCase()];
	return Array.isArray(value) ? value[0] : value;
}

/** A repeated `webhook-signature` header carries more entries, not a replacement. */
function signatureHeader(headers: RequestHeaders): string | undefined {
	const value = headers['webhook-signature'];
	return Array.isArray(value) ? value.join(' ') : value;
}

function legacyHeader(headers: RequestHeaders, configuredName: string): string | undefined {
	if (configuredName) return singleHeader(headers, configuredName);
	const candidates = Object.keys(headers).filter(
		(name) =>
			name.endsWith('-signature') &&
			name !== 'webhook-signature' &&
			/(^|,)\s*t=/.test(singleHeader(headers, name) ?? ''),
	);
	return candidates.length === 1 ? singleHeader(headers, candidates[0]) : undefined;
}

const hasStandardHeaders = (headers: RequestHeaders) =>
	['webhook-id', 'webhook-timestamp', 'webhook-signature'].some(
		(name) => headers[name] !== undefined,
	);

export type DeliveryVerification = VerificationResult & { deliveryId?: string };

/** Verifies a delivery on its raw bytes with the scheme(s) configured; with both, the headers present decide. */
export function verifyDelivery(
	headers: RequestHeaders,
	rawBody: Buffer,
	config: VerificationConfig,
	nowMs: number,
): DeliveryVerification {
	const verifyStandard = (): DeliveryVerification => {
		const result = verifyStandardWebhook({
			rawBody,
			webhookId: singleHeader(headers, 'webhook-id'),
			webhookTimestamp: singleHeader(headers, 'webhook-timestamp'),
			webhookSignature: signatureHeader(headers),
			secrets: config.signingSecrets.filter(Boolean),
			nowSeconds: Math.floor(nowMs / 1000),
			toleranceSeconds: config.toleranceSeconds,
		});
		return result.valid ? { ...result, deliveryId: singleHeader(headers, 'webhook-id') } : result;
	};
	const verifyLegacy = (): DeliveryVerification =>
		verifyLegacyWebhook({
			rawBody,
			header: legacyHeader(headers, config.legacyHeaderName),
			secret: config.legacySecret,
			nowMs,
			toleranceSeconds: config.toleranceSeconds,
		});

	if (config.scheme === 'standard') return verifyStandard();
	if (config.scheme === 'legacy') return verifyLegacy();
	const legacyPresent = legacyHeader(headers, config.legacyHeaderName) !== undefined;
	if (!hasStandardHeaders(headers)) {
		return legacyPresent ? verifyLegacy() : { valid: false, reason: 'missing signature headers' };
	}
	const standard = verifyStandard();
	if (standard.valid || !legacyPresent) return standard;
	const legacy = verifyLegacy();
	return legacy.valid ? legacy : standard;
}
