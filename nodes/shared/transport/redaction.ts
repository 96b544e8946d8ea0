/**
 * What may be shown of a text from or about the API: credential values and anything shaped like a bearer
 * token or JWT removed, in linear time, and the excerpt bounded.
 */

const BEARER = /Bearer\s+[A-Za-z0-9._~+/=-]+/gi;
const REDACTED = '[redacted]';

/** Characters of a JWT segment (base64url). */
function isJwtCharacter(code: number): boolean {
	return (
		(code >= 0x41 && code <= 0x5a) ||
		(code >= 0x61 && code <= 0x7a) ||
		(code >= 0x30 && code <= 0x39) ||
		code === 0x5f ||
		code === 0x2d
	);
}

/** The index after the run of JWT characters that starts at `from`. */
function jwtRunEnd(text: string, from: number): number {
	let index = from;
	while (index < text.length && isJwtCharacter(text.charCodeAt(index))) index++;
	return index;
}

/** The index after the run of JWT characters and dots that starts at `from`. */
function dottedRunEnd(text: string, from: number): number {
	let index = from;
	while (
		index < text.length &&
		(text.charCodeAt(index) === 0x2e || isJwtCharacter(text.charCodeAt(index)))
	)
		index++;
	return index;
}

/**
 * Calls `found` with the range of every JWT of `text`, in linear time: from an `eyJ` that starts
 * `eyJ<seg>+.<seg>+.` (what the regex `/eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\./` finds) to the end of its run
 * of segment characters and dots, so that text glued before the token ("eyJab.<token>") cannot leave the
 * token's signature behind. That regex retried from every `eyJ` inside a long run and was quadratic on
 * "eyJeyJeyJ...". Every `eyJ` of one run shares the run's end and what follows it, so a run that starts no
 * token is skipped whole; each character is read at most three times.
 */
function findJwts(text: string, found: (start: number, end: number) => void): void {
	let start = text.indexOf('eyJ');
	while (start !== -1) {
		const header = jwtRunEnd(text, start + 3);
		if (header > start + 3 && text[header] === '.') {
			const payload = jwtRunEnd(text, header + 1);
			if (payload > header + 1 && text[payload] === '.') {
				const end = dottedRunEnd(text, payload + 1);
				found(start, end);
				start = text.indexOf('eyJ', end);
				continue;
			}
		}
		start = text.indexOf('eyJ', header);
	}
}

/**
 * Removes credential values and anything shaped like a bearer token or JWT from a text, in linear time.
 * Every match is found in the original text and the union of their ranges is replaced, so that removing one
 * kind cannot break another's match (a credential value inside a JWT would otherwise leave its signature).
 */
export function redact(text: string, secrets: unknown[] = []): string {
	// +1 where a range starts, -1 where it ends; positions with a positive running sum are redacted
	const marks = new Int32Array(text.length + 1);
	let found = false;
	const mark = (start: number, end: number) => {
		marks[start]++;
		marks[end]--;
		found = true;
	};
	for (const secret of secrets) {
		if (typeof secret !== 'string' || secret.length < 4) continue;
		for (let at = text.indexOf(secret); at !== -1; at = text.indexOf(secret, at + secret.length))
			mark(at, at + secret.length);
	}
	for (const match of text.matchAll(BEARER)) mark(match.index!, match.index! + match[0].length);
	findJwts(text, mark);
	if (!found) return text;
	let result = '';
	let copied = 0;
	let depth = 0;
	for (let index = 0; index <= text.length; index++) {
		const before = depth;
		depth += marks[index];
		if (before === 0 && depth > 0) result += text.slice(copied, index) + REDACTED;
		else if (before > 0 && depth === 0) copied = index;
	}
	return result + text.slice(copied);
}

/** How much of an API's error text is read (redacted), and how much of it an error message shows. */
export const API_TEXT_READ_LIMIT = 64 * 1024;
export const API_TEXT_EXCERPT_LENGTH = 500;

/**
 * A bounded, redacted excerpt of text from the API or about its answer: the first 64 KiB are redacted
 * before the cut, so the cut never leaves part of a secret behind, and at most 500 characters are shown.
 */
export function apiTextExcerpt(text: string, secrets: unknown[] = []): string {
	const clean = redact(text.slice(0, API_TEXT_READ_LIMIT), secrets);
	if (clean.length <= API_TEXT_EXCERPT_LENGTH && text.length <= API_TEXT_READ_LIMIT) return clean;
	let cut = Math.min(API_TEXT_EXCERPT_LENGTH, clean.length);
	const last = clean.charCodeAt(cut - 1);
	if (last >= 0xd800 && last <= 0xdbff) cut--; // do not split a surrogate pair
	return `${clean.slice(0, cut)}… (cut at ${cut} of ${text.length} characters)`;
}
