import {
	findBodyViolations,
	findInvalidNameCharacters,
	withNamesInNfc,
} from '../../../nodes/shared/bodyRules';

describe('name rule (spec section 7)', () => {
	it.each([
		"O'Brien",
		'Smith-Jones',
		'Jr.',
		'de_la',
		'Anne,Marie',
		'José',
		'Jose\u0301',
		'Łukasz',
		'Nguyễn',
		'Nguye\u0302\u0303n',
		'abc123',
		'Ann\u0663',
	])('accepts %s', (name) => {
		expect(findInvalidNameCharacters(name)).toEqual([]);
	});

	it.each([
		['Mary Ann', [' ']],
		['Smith!', ['!']],
		['<script>', ['<', '>']],
		['a/b\\c', ['/', '\\']],
		['Zoë 😀', [' ', '😀']],
		['Ann½', ['½']],
		['HenryⅫ', ['Ⅻ']],
		['x²', ['²']],
		['q\u0301', ['\u0301']],
		['Ann\u200b', ['\u200b']],
	])('refuses %s, naming %p', (name, invalid) => {
		expect(findInvalidNameCharacters(name)).toEqual(invalid);
	});
});

describe('body checks shared by the node and the sandbox', () => {
	it('reports name fields at any depth and long staffing agencies, with their paths', () => {
		const violations = findBodyViolations(
			{
				candidate: { firstName: 'Ann', lastName: 'Smith!' },
				aliases: [{ firstName: 'A B' }],
				orderData: [{ serviceId: 'x', staffingAgency: 'x'.repeat(101) }],
			},
			{ names: true },
		);
		expect(violations.map((v) => v.path)).toEqual([
			'candidate.lastName',
			'aliases[0].firstName',
			'orderData[0].staffingAgency',
		]);
		expect(violations[1].message).toContain('space');
		expect(violations[2].message).toContain('101');
	});

	it('accepts exactly 100 characters and ignores non-name keys', () => {
		expect(
			findBodyViolations(
				{ staffingAgency: 'x'.repeat(100), serviceName: 'Any name!', note: 'a b' },
				{ names: true },
			),
		).toEqual([]);
	});

	it('without the name rule reports only staffingAgency', () => {
		const body = { candidate: { firstName: 'A B' }, staffingAgency: 'x'.repeat(101) };
		expect(findBodyViolations(body, { names: false }).map((v) => v.path)).toEqual([
			'staffingAgency',
		]);
	});
});

describe('names sent in NFC', () => {
	it('composes name fields at any depth and leaves every other value as it is', () => {
		const body = {
			candidate: { firstName: 'Jose\u0301', note: 'e\u0301' },
			aliases: [{ lastName: 'Zoe\u0308' }],
			count: 2,
		};
		expect(withNamesInNfc(body)).toEqual({
			candidate: { firstName: 'José', note: 'e\u0301' },
			aliases: [{ lastName: 'Zoë' }],
			count: 2,
		});
		expect(body.candidate.firstName).toBe('Jose\u0301');
	});

	it('keeps a parsed "__proto__" key a plain key', () => {
		const copy = withNamesInNfc(
			JSON.parse('{ "__proto__": { "polluted": true }, "firstName": "A" }'),
		) as Record<string, unknown>;
		expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
		expect(Object.keys(copy)).toEqual(['__proto__', 'firstName']);
		expect(({} as Record<string, unknown>).polluted).toBeUndefined();
	});
});
