import { STAFFING_AGENCY_MAX_LENGTH } from './catalog.generated';
import { isPlainObject } from './values';

/**
 * Spec section 7: name fields may contain letters, digits, `-`, `'`, `,`, `.` and `_` only. Digits are
 * decimal digits (`\p{Nd}`), not every number sign (`½`, `Ⅻ`); names are read in Unicode NFC, so an accent
 * typed as a combining mark (`e` + U+0301) counts as the letter it composes (`é`).
 */
const NAME_CHARACTER = /[\p{L}\p{Nd}\-',._]/u;

export const NAME_RULE_TEXT = "letters, digits, - ' , . and _ (no spaces or other symbols)";

/**
 * Keys that hold a person's name where spec 7 applies: the candidate's and an alias's `givenName`,
 * `middleName` and `familyName` in case creation (the API reference writes the rule on them too), and the
 * name keys spec 2.3 shows (`firstName`, `lastName`, `middleInitial`).
 */
export const NAME_FIELD_KEYS: readonly string[] = [
	'givenName',
	'middleName',
	'familyName',
	'firstName',
	'lastName',
	'middleInitial',
];

/** The distinct characters of `value` (in NFC) that the name rule refuses, in order of appearance. */
export function findInvalidNameCharacters(value: string): string[] {
	const invalid = new Set<string>();
	for (const character of value.normalize('NFC')) {
		if (!NAME_CHARACTER.test(character)) invalid.add(character);
	}
	return [...invalid];
}

export interface FieldViolation {
	/** Dotted path of the offending field inside the body, e.g. `orderData[0].metadata.familyName`. */
	path: string;
	message: string;
}

function describeCharacters(characters: string[]): string {
	return characters.map((c) => (c === ' ' ? 'space' : JSON.stringify(c))).join(', ');
}

/** Which rules a body is held to: the name rule only where spec 7 names it (case creation with its aliases, the candidate-info update). */
export interface BodyRules {
	names: boolean;
}

/**
 * Walks a request body and reports every `staffingAgency` over the spec's limit and, with `names`, every
 * name field with characters the API rejects. Pure, so the node and the sandbox apply the same rule.
 */
export function findBodyViolations(body: unknown, rules: BodyRules, path = ''): FieldViolation[] {
	if (Array.isArray(body)) {
		return body.flatMap((entry, index) => findBodyViolations(entry, rules, `${path}[${index}]`));
	}
	if (!isPlainObject(body)) return [];
	const violations: FieldViolation[] = [];
	for (const [key, value] of Object.entries(body)) {
		const fieldPath = path ? `${path}.${key}` : key;
		if (rules.names && NAME_FIELD_KEYS.includes(key) && typeof value === 'string') {
			const invalid = findInvalidNameCharacters(value);
			if (invalid.length > 0) {
				violations.push({
					path: fieldPath,
					message: `${fieldPath} contains characters the API does not accept (${describeCharacters(invalid)}); allowed are ${NAME_RULE_TEXT}`,
				});
			}
		} else if (
			key === 'staffingAgency' &&
			typeof value === 'string' &&
			value.length > STAFFING_AGENCY_MAX_LENGTH
		) {
			violations.push({
				path: fieldPath,
				message: `${fieldPath} is ${value.length} characters long; the API accepts at most ${STAFFING_AGENCY_MAX_LENGTH}`,
			});
		} else {
			violations.push(...findBodyViolations(value, rules, fieldPath));
		}
	}
	return violations;
}

/** The body with every name field in Unicode NFC, the form the name rule was checked in. */
export function withNamesInNfc<T>(body: T): T {
	if (Array.isArray(body)) return body.map((entry) => withNamesInNfc(entry)) as T;
	if (!isPlainObject(body)) return body;
	const result: Record<string, unknown> = {};
	for (const [key, value] of Object.entries(body)) {
		const copy =
			NAME_FIELD_KEYS.includes(key) && typeof value === 'string'
				? value.normalize('NFC')
				: withNamesInNfc(value);
		// defineProperty, not assignment: a parsed "__proto__" key stays a plain key
		Object.defineProperty(result, key, {
			value: copy,
			enumerable: true,
			writable: true,
			configurable: true,
		});
	}
	return result as T;
}
