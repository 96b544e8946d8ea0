import { createHash } from 'crypto';
import { ObservableObject, type IDataObject } from 'n8n-workflow';

import {
	BUCKET_SECONDS,
	DeliveryDeduplicator,
	HASH_LENGTH,
	PROCESS_LIMIT,
	RETENTION_SECONDS,
	SAVED_LIMIT,
	deduplicatorFor,
	forgetDeduplicator,
	type Admission,
	type AdmissionRequest,
	type Claim,
} from '../../../nodes/BackgroundCheckTrigger/deliveryDeduplicator';
import {
	WEBHOOK_DELIVERY_ATTEMPTS,
	WEBHOOK_RESPONSE_DEADLINE_SECONDS,
	WEBHOOK_RETRY_DELAYS_SECONDS,
} from '../../../nodes/shared/catalog';

/** On an hour boundary, so that bucket arithmetic in the tests is plain. */
const NOW = 1_760_000_400 - (1_760_000_400 % BUCKET_SECONDS);

function admitted(admission: Admission): Claim {
	if (admission.outcome !== 'admitted')
		throw new Error(`expected admission, got ${admission.outcome}`);
	return admission.claim;
}

const event = (key: string, extra: Partial<AdmissionRequest> = {}): AdmissionRequest => ({
	key,
	dropOlder: false,
	...extra,
});

/** Admits and commits `key` at `now`. */
function run(
	deduplicator: DeliveryDeduplicator,
	key: string,
	now = NOW,
	extra: Partial<AdmissionRequest> = {},
): void {
	admitted(deduplicator.admit(event(key, extra), now)).commit(now);
}

/** The hashes of a persisted v3 string, oldest first. */
function savedHashes(persisted: string): string[] {
	const lines = persisted.split('\nlatest')[0].split('\n').slice(1);
	return lines.flatMap(
		(line) => line.split(' ')[1].match(new RegExp(`.{${HASH_LENGTH}}`, 'g')) ?? [],
	);
}

/** A saved copy without its first line (which names the process that wrote it). */
const body = (persisted: string) => persisted.slice(persisted.indexOf('\n'));

/** What n8n saves and a restarted process reads back. */
const throughJson = (deduplicator: DeliveryDeduplicator) =>
	JSON.parse(JSON.stringify({ copy: deduplicator.persistedView })).copy as string;

describe('DeliveryDeduplicator', () => {
	it('admits an event once and calls any later copy a duplicate', () => {
		const deduplicator = new DeliveryDeduplicator();
		run(deduplicator, 'case:1');
		expect(deduplicator.admit(event('case:1'), NOW).outcome).toBe('duplicate');
		expect(deduplicator.admit(event('case:2'), NOW).outcome).toBe('admitted');
	});

	it('refuses a concurrent copy while the first one is still being processed', () => {
		const deduplicator = new DeliveryDeduplicator();
		const first = admitted(deduplicator.admit(event('case:1'), NOW));
		expect(deduplicator.admit(event('case:1'), NOW).outcome).toBe('duplicate');
		first.commit(NOW);
		expect(deduplicator.admit(event('case:1'), NOW).outcome).toBe('duplicate');
	});

	it('admits a copy again after the first one released its claim (filtered out)', () => {
		const deduplicator = new DeliveryDeduplicator();
		admitted(deduplicator.admit(event('case:1'), NOW)).release();
		run(deduplicator, 'case:1');
		expect(deduplicator.admit(event('case:1'), NOW).outcome).toBe('duplicate');
	});

	it('ignores a second settle of the same claim', () => {
		const deduplicator = new DeliveryDeduplicator();
		const claim = admitted(deduplicator.admit(event('case:1'), NOW));
		claim.commit(NOW);
		claim.release();
		expect(deduplicator.admit(event('case:1'), NOW).outcome).toBe('duplicate');
	});

	it('survives a restart through its saved copy', () => {
		const before = new DeliveryDeduplicator();
		run(before, 'case:1');
		const after = new DeliveryDeduplicator();
		after.absorb(throughJson(before), NOW + 60);
		expect(after.admit(event('case:1'), NOW + 60).outcome).toBe('duplicate');
		expect(after.size).toBe(1);
	});

	it('saves 10-character hashes, not the keys, run together: about 10 bytes per event', () => {
		const deduplicator = new DeliveryDeduplicator();
		run(deduplicator, 'case:["c-1","pending",null,"2025-01-01T00:00:00.000Z"]');
		run(deduplicator, 'case:2');
		const hash = createHash('sha256').update('case:2').digest('base64url').slice(0, 10);
		expect(deduplicator.toPersisted()).toMatch(
			new RegExp(`^v3 [0-9a-f]{8}\\n${NOW} [\\w-]{10}${hash.replace(/-/g, '\\-')}\\nlatest$`),
		);
		expect(deduplicator.toPersisted()).not.toContain('c-1');
	});

	it('offers a view for static data that serializes to what it holds when n8n saves it', () => {
		const deduplicator = new DeliveryDeduplicator();
		// Static data as n8n hands it to a node: wrapped in its change-tracking proxy.
		const staticData = ObservableObject.create({ 'node:Trigger': {} }) as IDataObject & {
			__dataChanged: boolean;
		};
		const nodeData = staticData['node:Trigger'] as IDataObject;
		run(deduplicator, 'case:1');
		nodeData.dedup = deduplicator.persistedView as unknown as IDataObject;
		expect(staticData.__dataChanged).toBe(true);

		run(deduplicator, 'case:2');
		const saved = JSON.parse(JSON.stringify(staticData));
		expect(saved['node:Trigger'].dedup).toEqual(deduplicator.toPersisted());
		expect(savedHashes(saved['node:Trigger'].dedup)).toHaveLength(2);
	});

	it('merges what another writer saved with what it holds, and saves the union', () => {
		const processA = new DeliveryDeduplicator();
		const processB = new DeliveryDeduplicator();
		run(processA, 'case:a');
		run(processB, 'case:b', NOW, {
			subject: 's',
			modStamp: '2025-01-02T00:00:00Z',
			dropOlder: true,
		});
		processA.absorb(throughJson(processB), NOW);
		expect(processA.admit(event('case:b'), NOW).outcome).toBe('duplicate');
		expect(
			processA.admit(
				event('x', { subject: 's', modStamp: '2025-01-01T00:00:00Z', dropOlder: true }),
				NOW,
			).outcome,
		).toBe('outOfOrder');
		expect(savedHashes(processA.toPersisted())).toHaveLength(2);
		processA.absorb(throughJson(processB), NOW);
		expect(processA.size).toBe(2);
	});

	it('says when what a request read lacks something it holds (another writer saved over it), and not otherwise', () => {
		const deduplicator = new DeliveryDeduplicator();
		expect(deduplicator.isBehind(undefined)).toBe(false);
		run(deduplicator, 'case:1');
		expect(deduplicator.isBehind(undefined)).toBe(true);
		const saved = throughJson(deduplicator);
		expect(deduplicator.isBehind(saved)).toBe(false);
		expect(deduplicator.isBehind(deduplicator.persistedView)).toBe(false);
		run(deduplicator, 'case:2');
		expect(deduplicator.isBehind(saved)).toBe(true);
	});

	it('does not re-parse a string it produced or absorbed, even one saved out of order (steady state)', () => {
		const deduplicator = new DeliveryDeduplicator();
		const parse = jest.spyOn(
			deduplicator as unknown as { absorbText(text: string): void },
			'absorbText',
		);
		run(deduplicator, 'case:a');
		const first = throughJson(deduplicator);
		run(deduplicator, 'case:b');
		const second = throughJson(deduplicator);
		deduplicator.absorb(second, NOW);
		deduplicator.absorb(first, NOW);
		deduplicator.absorb(second, NOW);
		expect(parse).not.toHaveBeenCalled();
		expect(deduplicator.size).toBe(2);

		const other = new DeliveryDeduplicator();
		run(other, 'case:c');
		const foreign = other.toPersisted();
		deduplicator.absorb(foreign, NOW);
		deduplicator.absorb(foreign, NOW);
		expect(parse).toHaveBeenCalledTimes(1);
	});

	it('reads what earlier versions saved (v2 strings with 12-character hashes, v1 objects), so an upgrade keeps the memory', () => {
		const hash = (key: string, length: number) =>
			createHash('sha256').update(key).digest('base64url').slice(0, length);
		const v2 = new DeliveryDeduplicator();
		v2.absorb(
			`v2\n${NOW - 60} ${hash('case:1', 12)}\n${NOW - 30} ${hash('delivery:x', 12)} ${hash('case:2', 12)}\nlatest\n${hash('s', 12)} 2025-01-02T00:00:00Z`,
			NOW,
		);
		expect(v2.admit(event('case:1'), NOW).outcome).toBe('duplicate');
		expect(v2.admit(event('case:2'), NOW).outcome).toBe('duplicate');
		expect(
			v2.admit(event('y', { subject: 's', modStamp: '2025-01-01T00:00:00Z', dropOlder: true }), NOW)
				.outcome,
		).toBe('outOfOrder');

		const v1 = new DeliveryDeduplicator();
		v1.absorb(
			JSON.parse(
				JSON.stringify({
					deliveries: [[[hash('delivery:a', 16), hash('case:3', 16)], NOW - 60]],
					latest: [[hash('t', 16), '2025-01-02T00:00:00Z']],
				}),
			),
			NOW,
		);
		expect(v1.admit(event('case:3'), NOW).outcome).toBe('duplicate');
		expect(
			v1.admit(event('z', { subject: 't', modStamp: '2025-01-01T00:00:00Z', dropOlder: true }), NOW)
				.outcome,
		).toBe('outOfOrder');
		// Saved again in format v3, from which a restarted process still knows it.
		const restarted = new DeliveryDeduplicator();
		restarted.absorb(throughJson(v1), NOW);
		expect(restarted.admit(event('case:3'), NOW).outcome).toBe('duplicate');
	});

	it('keeps any modStamp text intact through the string', () => {
		const modStamp = 'odd "stamp"\nwith a newline \\ and spaces';
		const before = new DeliveryDeduplicator();
		run(before, 'a', NOW, { subject: 's', modStamp, dropOlder: true });
		const after = new DeliveryDeduplicator();
		after.absorb(throughJson(before), NOW);
		const body = (persisted: string) => persisted.slice(persisted.indexOf('\n'));
		expect(body(after.toPersisted())).toBe(body(before.toPersisted()));
		expect(after.toPersisted()).toContain(JSON.stringify(modStamp).slice(1, -1));
	});

	it('keeps an ISO modStamp in 8 characters and reads it back as the same instant; escapes a leading ~', () => {
		const before = new DeliveryDeduplicator();
		run(before, 'a', NOW, { subject: 's', modStamp: '2025-03-01T10:00:00.123Z', dropOlder: true });
		run(before, 'b', NOW, { subject: 't', modStamp: '~not a time', dropOlder: true });
		const [, , , iso, tilde] = before.toPersisted().split('\n');
		expect(iso).toMatch(/^[\w-]{10} ~[0-9a-z]{8}$/);
		expect(tilde).toMatch(/ \\u007enot a time$/);
		const after = new DeliveryDeduplicator();
		after.absorb(throughJson(before), NOW);
		expect(
			after.admit(
				event('c', { subject: 's', modStamp: '2025-03-01T10:00:00.122Z', dropOlder: true }),
				NOW,
			).outcome,
		).toBe('outOfOrder');
		expect(
			after.admit(
				event('d', { subject: 's', modStamp: '2025-03-01T10:00:00.123Z', dropOlder: true }),
				NOW,
			).outcome,
		).toBe('admitted');
		expect(body(after.toPersisted())).toBe(body(before.toPersisted()));
	});

	it('knows its own saved copies from those another writer made', () => {
		const mine = new DeliveryDeduplicator();
		expect(mine.wrote(undefined)).toBe(true);
		run(mine, 'case:1');
		expect(mine.wrote(undefined)).toBe(false);
		expect(mine.wrote(throughJson(mine))).toBe(true);
		expect(mine.wrote(mine.persistedView)).toBe(true);
		const other = new DeliveryDeduplicator();
		run(other, 'case:2');
		expect(mine.wrote(throughJson(other))).toBe(false);
	});

	it('skips lines of a saved string it cannot read', () => {
		const deduplicator = new DeliveryDeduplicator();
		deduplicator.absorb(
			`v3\nnot-a-time aaaaaaaaaa\n${NOW} short\n${NOW} bbbbbbbbbbcc\nlatest\nnospace\ncccccccccc "broken`,
			NOW,
		);
		expect(deduplicator.size).toBe(1);
	});

	it('absorbs its own view without duplicating entries', () => {
		const deduplicator = new DeliveryDeduplicator();
		run(deduplicator, 'case:1');
		deduplicator.absorb(deduplicator.persistedView, NOW);
		expect(deduplicator.size).toBe(1);
	});

	it.each([
		undefined,
		null,
		'text',
		'v1\n1760000000 aaaaaaaaaaaa',
		{ deliveries: 'x' },
		{ deliveries: [[['k'], 'not a time'], 'junk', [[1, 2], NOW]] },
	])('ignores saved data it cannot read: %p', (persisted) => {
		const deduplicator = new DeliveryDeduplicator();
		expect(() => deduplicator.absorb(persisted, NOW)).not.toThrow();
		expect(deduplicator.size).toBe(0);
	});

	describe("the provider's retry window", () => {
		it('lasts beyond the last of the 8 attempts (spec 8), each given its 15-second deadline', () => {
			const lastAttempt =
				WEBHOOK_RETRY_DELAYS_SECONDS.reduce((sum, delay) => sum + delay, 0) +
				WEBHOOK_DELIVERY_ATTEMPTS * WEBHOOK_RESPONSE_DEADLINE_SECONDS;
			expect(WEBHOOK_RETRY_DELAYS_SECONDS).toHaveLength(WEBHOOK_DELIVERY_ATTEMPTS - 1);
			expect(RETENTION_SECONDS).toBeGreaterThan(lastAttempt);
			expect(RETENTION_SECONDS).toBe(28 * 3600);
		});

		it('recognises a retry 28 hours later, also after 5,000 other events and a restart in between', () => {
			const deduplicator = new DeliveryDeduplicator(SAVED_LIMIT.max);
			run(deduplicator, 'case:first', NOW + 59 * 60);
			for (let index = 0; index < 5000; index++)
				run(deduplicator, `case:other-${index}`, NOW + 3600 + index * 20);
			const retryAt = NOW + 59 * 60 + RETENTION_SECONDS;
			expect(deduplicator.admit(event('case:first'), retryAt).outcome).toBe('duplicate');
			const restarted = new DeliveryDeduplicator(SAVED_LIMIT.max);
			restarted.absorb(throughJson(deduplicator), retryAt);
			expect(restarted.admit(event('case:first'), retryAt).outcome).toBe('duplicate');
		});

		it('forgets an event once its hour is more than 28 hours old', () => {
			const deduplicator = new DeliveryDeduplicator();
			run(deduplicator, 'case:old', NOW + 10);
			run(deduplicator, 'case:new', NOW + BUCKET_SECONDS + RETENTION_SECONDS);
			expect(deduplicator.size).toBe(1);
			expect(
				deduplicator.admit(event('case:old'), NOW + BUCKET_SECONDS + RETENTION_SECONDS).outcome,
			).toBe('admitted');
		});

		it(`holds at most ${PROCESS_LIMIT.toLocaleString('en-US')} events in process memory, forgetting the oldest`, () => {
			const deduplicator = new DeliveryDeduplicator();
			for (let index = 0; index < PROCESS_LIMIT + 10; index++)
				run(deduplicator, `case:${index}`, NOW + Math.floor(index / 10));
			expect(deduplicator.size).toBe(PROCESS_LIMIT);
			expect(deduplicator.admit(event('case:9'), NOW + PROCESS_LIMIT).outcome).toBe('admitted');
			expect(deduplicator.admit(event('case:10'), NOW + PROCESS_LIMIT).outcome).toBe('duplicate');
		});
	});

	describe('ordering by modStamp', () => {
		const at = (minute: number) => `2025-03-01T10:${String(minute).padStart(2, '0')}:00.000Z`;
		const caseEvent = (key: string, minute: number, dropOlder = true) =>
			event(key, { subject: 'case.statuschange|c-1', modStamp: at(minute), dropOlder });

		it('drops an event older than one already received for the same subject', () => {
			const deduplicator = new DeliveryDeduplicator();
			admitted(deduplicator.admit(caseEvent('e2', 2), NOW)).commit(NOW);
			expect(deduplicator.admit(caseEvent('e1', 1), NOW)).toEqual({
				outcome: 'outOfOrder',
				newerModStamp: at(2),
			});
		});

		it('admits an equal or newer modStamp, and other subjects', () => {
			const deduplicator = new DeliveryDeduplicator();
			admitted(deduplicator.admit(caseEvent('e2', 2), NOW)).commit(NOW);
			expect(deduplicator.admit(caseEvent('e2b', 2), NOW).outcome).toBe('admitted');
			expect(deduplicator.admit(caseEvent('e3', 3), NOW).outcome).toBe('admitted');
			expect(
				deduplicator.admit(
					event('e0', { subject: 'case.statuschange|c-2', modStamp: at(0), dropOlder: true }),
					NOW,
				).outcome,
			).toBe('admitted');
		});

		it('keeps older events when dropping is off, without losing the newest modStamp', () => {
			const deduplicator = new DeliveryDeduplicator();
			admitted(deduplicator.admit(caseEvent('e2', 2, false), NOW)).commit(NOW);
			expect(deduplicator.admit(caseEvent('e1', 1, false), NOW).outcome).toBe('admitted');
			expect(deduplicator.admit(caseEvent('e0', 0, true), NOW).outcome).toBe('outOfOrder');
		});

		it('counts a claimed event as seen at once, so a concurrent older one is dropped', () => {
			const deduplicator = new DeliveryDeduplicator();
			deduplicator.admit(caseEvent('e2', 2), NOW);
			expect(deduplicator.admit(caseEvent('e1', 1), NOW).outcome).toBe('outOfOrder');
		});

		it('does not drop when a modStamp is not a timestamp', () => {
			const deduplicator = new DeliveryDeduplicator();
			run(deduplicator, 'a', NOW, { subject: 's', modStamp: 'yesterday', dropOlder: true });
			expect(
				deduplicator.admit(event('b', { subject: 's', modStamp: at(1), dropOlder: true }), NOW)
					.outcome,
			).toBe('admitted');
		});

		it('keeps the newest modStamp across a restart', () => {
			const before = new DeliveryDeduplicator();
			admitted(before.admit(caseEvent('e2', 2), NOW)).commit(NOW);
			const after = new DeliveryDeduplicator();
			after.absorb(throughJson(before), NOW);
			expect(after.admit(caseEvent('e1', 1), NOW).outcome).toBe('outOfOrder');
		});
	});
});

describe('the saved copy', () => {
	/** `count` events, one every 20 seconds, the newest last. */
	const memoryOf = (count: number, dropOlder = false, savedLimit: number = SAVED_LIMIT.default) => {
		const deduplicator = new DeliveryDeduplicator(savedLimit);
		for (let index = 0; index < count; index++) {
			const ordering = {
				subject: `case.statuschange|case-${index}`,
				modStamp: new Date((NOW + index) * 1000).toISOString(),
				dropOlder,
			};
			run(deduplicator, `case:${index}`, NOW + index * 20, ordering);
		}
		return deduplicator;
	};

	it('holds the newest Duplicate Memory Size events, 10 bytes each (default 100: about 1 KB); process memory holds them all', () => {
		const deduplicator = memoryOf(3000);
		expect(deduplicator.size).toBe(3000);
		expect(savedHashes(throughJson(deduplicator))).toHaveLength(SAVED_LIMIT.default);
		expect(JSON.stringify(throughJson(deduplicator)).length).toBeLessThan(1100);
		const larger = memoryOf(3000, false, 1000);
		expect(savedHashes(throughJson(larger))).toHaveLength(1000);
		expect(JSON.stringify(throughJson(larger)).length).toBeLessThan(10_100);
		// With Ignore Older Events it also holds the newest subjects' modStamps, about 22 bytes each.
		const withOrdering = memoryOf(3000, true);
		expect(withOrdering.toPersisted().split('\nlatest\n')[1].split('\n')).toHaveLength(
			SAVED_LIMIT.default,
		);
		expect(JSON.stringify(throughJson(withOrdering)).length).toBeLessThan(3400);
	});

	it('after a restart, copies and retries of the saved events are duplicates; older ones were only in process memory', () => {
		const before = memoryOf(3000, false, 1000);
		const after = new DeliveryDeduplicator(1000);
		const later = NOW + 3000 * 20;
		after.absorb(throughJson(before), later);
		const oldestSaved = 3000 - 1000;
		expect(after.admit(event('case:2999'), later).outcome).toBe('duplicate');
		expect(after.admit(event(`case:${oldestSaved}`), later).outcome).toBe('duplicate');
		expect(after.admit(event(`case:${oldestSaved - 1}`), later).outcome).toBe('admitted');
		expect(before.admit(event('case:0'), later).outcome).toBe('duplicate');
	});

	it('follows a change of Duplicate Memory Size', () => {
		const deduplicator = memoryOf(300, false, 1000);
		expect(savedHashes(deduplicator.toPersisted())).toHaveLength(300);
		deduplicator.savedLimit = 100;
		expect(savedHashes(deduplicator.toPersisted())).toHaveLength(100);
	});

	it('keeps the modStamps of subjects checked with Ignore Older Events, the newest ones', () => {
		const deduplicator = new DeliveryDeduplicator(100);
		for (let index = 0; index < 105; index++)
			run(deduplicator, `checked:${index}`, NOW, {
				subject: `checked-${index}`,
				modStamp: '2025-01-02T00:00:00Z',
				dropOlder: true,
			});
		run(deduplicator, 'unchecked', NOW, { subject: 'unchecked', modStamp: '2025-01-02T00:00:00Z' });
		const restarted = new DeliveryDeduplicator(100);
		restarted.absorb(deduplicator.toPersisted(), NOW);
		const older = (subject: string) =>
			event(`older:${subject}`, { subject, modStamp: '2025-01-01T00:00:00Z', dropOlder: true });
		expect(restarted.admit(older('checked-104'), NOW).outcome).toBe('outOfOrder');
		expect(restarted.admit(older('checked-0'), NOW).outcome).toBe('admitted');
		expect(restarted.admit(older('unchecked'), NOW).outcome).toBe('admitted');
		// In process memory every subject's modStamp is kept, checked or not.
		expect(deduplicator.admit(older('unchecked'), NOW).outcome).toBe('outOfOrder');
	});
});

describe('process-wide deduplicators', () => {
	it('shares one deduplicator per scope and starts afresh once forgotten', () => {
		const first = deduplicatorFor('workflow-a:node-1', SAVED_LIMIT.default);
		expect(deduplicatorFor('workflow-a:node-1', SAVED_LIMIT.default)).toBe(first);
		expect(deduplicatorFor('workflow-b:node-1', SAVED_LIMIT.default)).not.toBe(first);
		forgetDeduplicator('workflow-a:node-1');
		expect(deduplicatorFor('workflow-a:node-1', SAVED_LIMIT.default)).not.toBe(first);
	});

	it('applies the latest Duplicate Memory Size to an existing deduplicator', () => {
		const deduplicator = deduplicatorFor('workflow-c:node-1', SAVED_LIMIT.default);
		deduplicatorFor('workflow-c:node-1', 250);
		expect(deduplicator.savedLimit).toBe(250);
	});
});
