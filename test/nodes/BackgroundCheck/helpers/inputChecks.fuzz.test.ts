/**
 * Fuzz: what the node checks before any request. The ID validators (requireId, requireIdList) and the JSON
 * field validator (parseJsonObject) either accept a value that is safe to use or refuse it with a
 * NodeOperationError that names the field and the item, never another error (a TypeError, a stack
 * overflow); an accepted ID is one path segment that decodes back to itself. The name rule of spec 7
 * accepts exactly letters, decimal digits and - ' , . _ after NFC.
 */
import * as fc from 'fast-check';
import type { INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import {
	parseJsonObject,
	requireId,
	requireIdList,
} from '../../../../nodes/BackgroundCheck/helpers/inputChecks';
import { encodePathSegment } from '../../../../nodes/shared/transport';
import { findBodyViolations, findInvalidNameCharacters } from '../../../../nodes/shared/bodyRules';
import { RUNS, runs } from '../../../helpers/fuzzSettings';

const node = {
	name: 'Background Check',
	type: 'n8n-nodes-background-check.backgroundCheck',
} as INode;

/** Runs `check`; true when it returned, false when it refused the way the node must (naming field and item). */
function acceptedOrRefused(check: () => unknown, field: string, itemIndex: number): boolean {
	try {
		check();
		return true;
	} catch (error) {
		expect(error).toBeInstanceOf(NodeOperationError);
		const { message } = error as NodeOperationError;
		expect(message.startsWith(field)).toBe(true);
		expect(message.endsWith(`[item ${itemIndex}]`)).toBe(true);
		return false;
	}
}

/** IDs as users and expressions produce them: GUIDs and slugs, pasted URLs, encoded values, anything. */
const idLike = fc.oneof(
	fc.uuid(),
	fc.string({ maxLength: 40 }),
	fc.string({ unit: 'binary', maxLength: 40 }),
	fc
		.array(
			fc.constantFrom(
				'a',
				'1',
				'-',
				'_',
				'.',
				'..',
				'/',
				'\\',
				'?',
				'#',
				'%',
				'%2e',
				'%2F',
				' ',
				'\t',
				'\n',
				'\u0000',
				'\u007f',
				'\u0085',
				'\u00a0',
				'\u2028',
				'é',
				'😀',
			),
			{ maxLength: 12 },
		)
		.map((parts) => parts.join('')),
);
const anyValue = fc.oneof(
	idLike,
	fc.integer(),
	fc.double(),
	fc.constantFrom(undefined, null, true, false),
	fc.object({ maxDepth: 2 }),
	fc.array(fc.string(), { maxLength: 3 }),
);

describe('ID validators', () => {
	it('requireId accepts only IDs that stay one path segment, and refuses everything else naming the field', () => {
		fc.assert(
			fc.property(anyValue, fc.nat({ max: 999 }), (value, itemIndex) => {
				let id = '';
				if (
					!acceptedOrRefused(
						() => (id = requireId(node, value, 'Case ID', itemIndex)),
						'Case ID',
						itemIndex,
					)
				)
					return;
				expect(id).toBe(id.trim());
				expect(id).not.toMatch(/^\.{1,2}$/);
				expect(id).not.toMatch(/[\s/\\?#%\p{Cc}]/u);
				const segment = encodePathSegment(id);
				expect(segment).not.toMatch(/[/?#\\]/);
				expect(decodeURIComponent(segment)).toBe(id);
				expect(new URL(`https://api.example.com/case/id/${segment}`).pathname).toBe(
					`/case/id/${segment}`,
				);
			}),
			runs(RUNS.many),
		);
	});

	it('requireIdList returns only IDs requireId accepts, or refuses naming the field', () => {
		const list = fc.oneof(
			fc.array(idLike, { maxLength: 6 }).map((ids) => ids.join(',')),
			fc.array(idLike, { maxLength: 6 }).map((ids) => ids.join('\n')),
			fc.array(anyValue, { maxLength: 4 }),
			anyValue,
		);
		fc.assert(
			fc.property(list, fc.nat({ max: 999 }), (value, itemIndex) => {
				let ids: string[] = [];
				if (
					!acceptedOrRefused(
						() => (ids = requireIdList(node, value, 'Service IDs', itemIndex)),
						'Service IDs',
						itemIndex,
					)
				)
					return;
				for (const id of ids) expect(requireId(node, id, 'Service IDs', itemIndex)).toBe(id);
			}),
			runs(RUNS.many),
		);
	});
});

/** JSON nested `depth` levels deep, as text. */
const nested = fc
	.tuple(fc.integer({ min: 1, max: 400 }), fc.constantFrom('{"a":', '['), fc.boolean())
	.map(([depth, opener, innermostObject]) => {
		const closer = opener === '[' ? ']' : '}';
		return {
			depth: depth + (innermostObject ? 1 : 0),
			text: `{"x":${opener.repeat(depth)}${innermostObject ? '{}' : '1'}${closer.repeat(depth)}}`,
		};
	});

describe('JSON field validator', () => {
	it('returns an equal object for any JSON object text, and refuses any other text naming the field', () => {
		const text = fc.oneof(
			fc.json({ maxDepth: 4 }),
			fc.string({ maxLength: 60 }),
			fc.constantFrom(
				'{',
				'{"a":',
				'[]',
				'null',
				'1',
				'""',
				' ',
				'{"__proto__":{"polluted":1}}',
				'{"constructor":{"prototype":{"polluted":1}}}',
			),
		);
		fc.assert(
			fc.property(text, fc.nat({ max: 999 }), (value, itemIndex) => {
				let parsed: unknown;
				if (
					!acceptedOrRefused(
						() => (parsed = parseJsonObject(node, value, 'Additional Fields (JSON)', itemIndex)),
						'Additional Fields (JSON)',
						itemIndex,
					)
				)
					return;
				// compared as JSON text: a parsed own "constructor" or "__proto__" key confuses deep equality
				expect(JSON.stringify(parsed)).toBe(
					value.trim() === '' ? '{}' : JSON.stringify(JSON.parse(value)),
				);
				expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
				expect(({} as Record<string, unknown>).polluted).toBeUndefined();
			}),
			runs(RUNS.many),
		);
	});

	it('accepts objects from expressions as they are, and refuses arrays and other values', () => {
		fc.assert(
			fc.property(
				fc.oneof(
					fc.object({ maxDepth: 3 }),
					fc.array(fc.anything({ maxDepth: 1 }), { maxLength: 3 }),
					fc.anything({ maxDepth: 1 }),
				),
				fc.nat({ max: 999 }),
				(value, itemIndex) => {
					let parsed: unknown;
					if (
						!acceptedOrRefused(
							() => (parsed = parseJsonObject(node, value, 'JSON', itemIndex)),
							'JSON',
							itemIndex,
						)
					)
						return;
					if (
						value === undefined ||
						value === null ||
						(typeof value === 'string' && value.trim() === '')
					)
						expect(parsed).toEqual({});
					else if (typeof value === 'string')
						expect(JSON.stringify(parsed)).toBe(JSON.stringify(JSON.parse(value)));
					else expect(parsed).toBe(value);
				},
			),
			runs(RUNS.many),
		);
	});

	it('accepts nesting up to 100 levels and refuses deeper, with no stack overflow', () => {
		fc.assert(
			fc.property(nested, ({ depth, text }) => {
				const accepted = acceptedOrRefused(() => parseJsonObject(node, text, 'JSON', 0), 'JSON', 0);
				// the outer {"x": ...} is level 1
				expect(accepted).toBe(depth + 1 <= 100);
			}),
			runs(RUNS.some),
		);
	});
});

const LETTERS = ['a', 'Z', 'é', 'ñ', 'ß', 'Ł', 'ø', 'Ж', 'λ', 'ע', 'م', '中', 'ひ', 'ᄀ', 'ễ', 'ǅ'];
const DECIMAL_DIGITS = ['0', '7', '٣', '۵', '७', '３'];
const PUNCTUATION = ['-', "'", ',', '.', '_'];
/** Characters spec 7 does not allow: space and symbols, number signs that are not decimal digits, marks that compose nothing. */
const REFUSED = [
	' ',
	'!',
	'@',
	'/',
	'\\',
	'"',
	'<',
	'&',
	'\t',
	'\u0000',
	'\u200b',
	'½',
	'Ⅻ',
	'²',
	'⑤',
	'😀',
	'\u0301',
	'©',
	'€',
	'·',
];

describe('the name rule (spec 7)', () => {
	it("accepts any name of letters, decimal digits and - ' , . _, typed composed or decomposed", () => {
		fc.assert(
			fc.property(
				fc.array(fc.constantFrom(...LETTERS, ...DECIMAL_DIGITS, ...PUNCTUATION), {
					minLength: 1,
					maxLength: 30,
				}),
				fc.constantFrom<'NFC' | 'NFD'>('NFC', 'NFD'),
				(characters, form) => {
					const name = characters.join('').normalize(form);
					expect(findInvalidNameCharacters(name)).toEqual([]);
					expect(findBodyViolations({ candidate: { firstName: name } }, { names: true })).toEqual(
						[],
					);
				},
			),
			runs(RUNS.many),
		);
	});

	it('refuses a name with any other character, naming exactly those characters', () => {
		fc.assert(
			fc.property(
				fc.array(fc.constantFrom(...LETTERS, ...DECIMAL_DIGITS, ...PUNCTUATION), { maxLength: 10 }),
				fc.array(fc.constantFrom(...REFUSED), { minLength: 1, maxLength: 4 }),
				fc.array(fc.nat(), { minLength: 4, maxLength: 4 }),
				(allowed, refused, positions) => {
					const characters = [...allowed];
					// a combining mark first in the name, or after a refused character, composes nothing
					refused.forEach((character, index) =>
						characters.splice(
							character === '\u0301' ? 0 : positions[index] % (characters.length + 1),
							0,
							character,
						),
					);
					const name = characters.join('');
					expect(new Set(findInvalidNameCharacters(name))).toEqual(new Set(refused));
					expect(
						findBodyViolations({ aliases: [{ lastName: name }] }, { names: true }),
					).toHaveLength(1);
					expect(findBodyViolations({ aliases: [{ lastName: name }] }, { names: false })).toEqual(
						[],
					);
				},
			),
			runs(RUNS.many),
		);
	});
});
