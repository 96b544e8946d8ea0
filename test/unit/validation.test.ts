import { findBodyViolations, findInvalidNameCharacters } from '../../nodes/shared/validation';

describe('name rule (spec section 7)', () => {
	it.each(["O'Brien", 'Smith-Jones', 'Jr.', 'de_la', 'Anne,Marie', 'José', 'Łukasz', 'Nguyễn', 'abc123'])('accepts %s', (name) => {
		expect(findInvalidNameCharacters(name)).toEqual([]);
	});

	it.each([
		['Mary Ann', [' ']],
		['Smith!', ['!']],
		['<script>', ['<', '>']],
		['a/b\\c', ['/', '\\']],
		['Zoë 😀', [' ', '😀']],
	])('refuses %s, naming %p', (name, invalid) => {
		expect(findInvalidNameCharacters(name)).toEqual(invalid);
	});
});

describe('body checks shared by the node and the sandbox', () => {
	it('reports name fields at any depth and long staffing agencies, with their paths', () => {
		const violations = findBodyViolations({
			candidate: { firstName: 'Ann', lastName: 'Smith!' },
			aliases: [{ firstName: 'A B' }],
			orderData: [{ serviceId: 'x', staffingAgency: 'x'.repeat(101) }],
		});
		expect(violations.map((v) => v.path)).toEqual(['candidate.lastName', 'aliases[0].firstName', 'orderData[0].staffingAgency']);
		expect(violations[1].message).toContain('space');
		expect(violations[2].message).toContain('101');
	});

	it('accepts exactly 100 characters and ignores non-name keys', () => {
		expect(findBodyViolations({ staffingAgency: 'x'.repeat(100), serviceName: 'Any name!', note: 'a b' })).toEqual([]);
	});
});
