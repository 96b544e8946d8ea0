/**
 * Webhook signatures of spec section 6: Standard Webhooks `v1` (6.3) and the legacy scheme (6.6).
 * Pure functions with no n8n imports: the trigger node verifies with them, the sandbox signs with them,
 * and the tests hold both against the Standard Webhooks reference vectors and package.
 * Verification never throws; it answers with a reason a receiver can log or return.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'crypto';

export const STANDARD_SECRET_PREFIX = 'whsec_';
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type VerificationResult =
	| { valid: true; scheme: 'standard' | 'legacy'; timestampSeconds: number }
	| { valid: false; reason: string };

type RawBody = Buffer | string;

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Decodes a `whsec_<base64>` secret to its key bytes; undefined when it is not one. */
export function decodeStandardSecret(secret: string): Buffer | undefined {
	if (typeof secret !== 'string' || !secret.startsWith(STANDARD_SECRET_PREFIX)) return undefined;
	const encoded = secret.slice(STANDARD_SECRET_PREFIX.length);
	if (encoded.length === 0 || encoded.length % 4 !== 0 || !BASE64.test(encoded)) return undefined;
	const key = Buffer.from(encoded, 'base64');
	return key.length > 0 ? key : undefined;
}

export function isStandardSecret(secret: string): boolean {
	return decodeStandardSecret(secret) !== undefined;
}

export function generateWebhookSecret(): string {
	return STANDARD_SECRET_PREFIX + randomBytes(24).toString('base64');
}

function standardSignature(
	key: Buffer,
	msgId: string,
	timestampSeconds: number | string,
	rawBody: RawBody,
): string {
	return createHmac('sha256', key)
		.update(`${msgId}.${timestampSeconds}.`)
		.update(rawBody)
		.digest('base64');
}

/** The `webhook-signature` entry `v1,<base64>` for one secret. */
export function signStandardWebhook(
	secret: string,
	msgId: string,
	timestampSeconds: number,
	rawBody: RawBody,
): string {
	const key = decodeStandardSecret(secret);
	if (!key) throw new Error('The secret is not a whsec_ base64 value');
	return `v1,${standardSignature(key, msgId, timestampSeconds, rawBody)}`;
}

function constantTimeEquals(a: string, b: string): boolean {
	const left = Buffer.from(a);
	const right = Buffer.from(b);
	return left.length === right.length && timingSafeEqual(left, right);
}

function checkTimestamp(
	timestampSeconds: number,
	nowSeconds: number,
	toleranceSeconds: number,
): string | undefined {
	if (timestampSeconds < nowSeconds - toleranceSeconds) return 'timestamp too old';
	if (timestampSeconds > nowSeconds + toleranceSeconds) return 'timestamp too far in the future';
	return undefined;
}

/**
 * Caps on what a sender controls, far above any real delivery (a `webhook-signature` of a rotation is about
 * 100 characters, an ID about 30) and above n8n's own 16 KiB header limit, so that a larger limit cannot
 * make a header cost more than reading 64 KiB once.
 */
export const MAX_SIGNATURE_HEADER_LENGTH = 64 * 1024;
export const MAX_WEBHOOK_ID_LENGTH = 1024;

/**
 * The candidate signatures of a `webhook-signature` value, in order: in each whitespace-separated chunk, read
 * as comma-separated tokens, every non-empty token that follows a `v1` token. Entries are separated by spaces
 * (spec 6.3), but n8n joins repeated header lines with ", " and other joins use "," alone, so "v1,a",
 * "v1,a," and "v1,a,v1,b" all count, and a stray or empty entry ("v1", "v1,") next to a good one costs it
 * nothing. Taking more candidates is safe: each is only compared with the signature computed here. One pass,
 * linear in the length.
 */
export function parseSignatureHeader(value: string): string[] {
	const signatures: string[] = [];
	// Scanned once without splitting: copying every token of a long header cost the garbage collector more
	// than linear time.
	let start = 0;
	let afterV1 = false;
	for (let index = 0; index <= value.length; index++) {
		const char = index < value.length ? value[index] : ' ';
		const comma = char === ',';
		if (!comma && !WHITESPACE.test(char)) continue;
		if (afterV1 && index > start) signatures.push(value.slice(start, index));
		// A token follows `v1` only within one whitespace-separated chunk.
		afterV1 = comma && index - start === 2 && value.startsWith('v1', start);
		start = index + 1;
	}
	return signatures;
}

const WHITESPACE = /\s/;

export interface StandardWebhookInput {
	rawBody: RawBody;
	webhookId: string | undefined;
	webhookTimestamp: string | undefined;
	webhookSignature: string | undefined;
	/** Current and, during a rotation, previous `whsec_` secrets; any may match. */
	secrets: string[];
	nowSeconds: number;
	toleranceSeconds?: number;
}

export function verifyStandardWebhook(input: StandardWebhookInput): VerificationResult {
	const { webhookId, webhookTimestamp, webhookSignature } = input;
	if (!webhookId || !webhookTimestamp || !webhookSignature)
		return { valid: false, reason: 'missing webhook headers' };
	if (webhookId.length > MAX_WEBHOOK_ID_LENGTH)
		return { valid: false, reason: 'webhook-id too long' };
	if (webhookSignature.length > MAX_SIGNATURE_HEADER_LENGTH)
		return { valid: false, reason: 'signature header too long' };
	if (!/^\d{1,12}$/.test(webhookTimestamp)) return { valid: false, reason: 'invalid timestamp' };
	const timestampSeconds = Number(webhookTimestamp);
	const staleness = checkTimestamp(
		timestampSeconds,
		input.nowSeconds,
		input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS,
	);
	if (staleness) return { valid: false, reason: staleness };

	const keys = input.secrets
		.map(decodeStandardSecret)
		.filter((key): key is Buffer => key !== undefined);
	if (keys.length === 0) return { valid: false, reason: 'no valid signing secret configured' };

	const offered = parseSignatureHeader(webhookSignature);
	for (const key of keys) {
		const expected = standardSignature(key, webhookId, webhookTimestamp, input.rawBody);
		if (offered.some((signature) => constantTimeEquals(signature, expected))) {
			return { valid: true, scheme: 'standard', timestampSeconds };
		}
	}
	return { valid: false, reason: 'signature mismatch' };
}

function legacySignature(secret: string, timestampMs: number | string, rawBody: RawBody): string {
	const bodyHash = createHash('sha256').update(rawBody).digest('hex');
	return createHmac('sha256', secret).update(`${timestampMs}.${bodyHash}`).digest('hex');
}

/** The legacy header value `t=<milliseconds>,v1=<hex>` (spec 6.6). */
export function signLegacyWebhook(secret: string, timestampMs: number, rawBody: RawBody): string {
	return `t=${timestampMs},v1=${legacySignature(secret, timestampMs, rawBody)}`;
}

/**
 * The legacy header `t=<ms>,v1=<hex>[,v1=<hex>...]`: the first `t` and every `v1`, in order, each trimmed;
 * parts without a name and `=` are skipped. One pass, linear in the length (n8n joins repeated lines
 * with ", ", which reads as more parts).
 */
export function parseLegacyHeader(value: string): {
	timestamp: string | undefined;
	signatures: string[];
} {
	let timestamp: string | undefined;
	const signatures: string[] = [];
	// One pass over the comma-separated parts, copying only named ones: splitting a header of many empty or
	// unnamed parts into strings cost the garbage collector more than linear time.
	for (let start = 0; start <= value.length; ) {
		let end = value.indexOf(',', start);
		if (end === -1) end = value.length;
		let separator = start;
		while (separator < end && value.charCodeAt(separator) !== 61 /* = */) separator++;
		if (separator > start && separator < end) {
			const name = value.slice(start, separator).trim();
			if (name === 't') timestamp ??= value.slice(separator + 1, end).trim();
			else if (name === 'v1') signatures.push(value.slice(separator + 1, end).trim());
		}
		start = end + 1;
	}
	return { timestamp, signatures };
}

export interface LegacyWebhookInput {
	rawBody: RawBody;
	header: string | undefined;
	secret: string;
	nowMs: number;
	toleranceSeconds?: number;
}

export function verifyLegacyWebhook(input: LegacyWebhookInput): VerificationResult {
	if (!input.header) return { valid: false, reason: 'missing signature header' };
	if (!input.secret) return { valid: false, reason: 'no legacy secret configured' };
	if (input.header.length > MAX_SIGNATURE_HEADER_LENGTH)
		return { valid: false, reason: 'signature header too long' };
	const { timestamp, signatures: offered } = parseLegacyHeader(input.header);
	if (!timestamp || !/^\d{1,15}$/.test(timestamp))
		return { valid: false, reason: 'invalid timestamp' };
	const timestampSeconds = Math.floor(Number(timestamp) / 1000);
	const staleness = checkTimestamp(
		timestampSeconds,
		Math.floor(input.nowMs / 1000),
		input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS,
	);
	if (staleness) return { valid: false, reason: staleness };

	const expected = legacySignature(input.secret, timestamp, input.rawBody);
	if (offered.some((signature) => constantTimeEquals(signature.toLowerCase(), expected))) {
		return { valid: true, scheme: 'legacy', timestampSeconds };
	}
	return { valid: false, reason: 'signature mismatch' };
}
