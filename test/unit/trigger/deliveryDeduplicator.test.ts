import { createHash } from 'crypto';
import { ObservableObject, type IDataObject } from 'n8n-workflow';

import {
	DEFAULT_DEDUP_LIMITS,
	DeliveryDeduplicator,
	SAVED_DELIVERIES,
	SAVE_INTERVAL_MS,
	deduplicatorFor,
	forgetDeduplicator,
	type Admission,
	type Claim,
} from '../../../nodes/BackgroundCheckTrigger/deliveryDeduplicator';

const NOW = 1_760_000_000;

function admitted(admission: Admission): Claim {
	if (admission.outcome !== 'admitted') throw new Error(`expected admission, got ${admission.outcome}`);
	return admission.claim;
}

/** The delivery lines of a persisted v2 string. */
const deliveryLines = (persisted: string) => persisted.split('\nlatest')[0].split('\n').slice(1);

/** An admission request; the last key is the content key, the one the saved copy keeps. */
const event = (keys: string[], extra: Partial<Parameters<DeliveryDeduplicator['admit']>[0]> = {}) => ({
	keys,
	savedKey: keys[keys.length - 1],
	dropOlder: false,
	...extra,
});

describe('DeliveryDeduplicator', () => {
	it('admits an event once and calls any later copy a duplicate', () => {
		const deduplicator = new DeliveryDeduplicator();
		admitted(deduplicator.admit(event(['delivery:a', 'case:1']))).commit(NOW);
		expect(deduplicator.admit(event(['delivery:a'])).outcome).toBe('duplicate');
	});

	it('treats a match on any one key as a duplicate (the other delivery system\'s copy)', () => {
		const deduplicator = new DeliveryDeduplicator();
		admitted(deduplicator.admit(event(['delivery:a', 'message:m', 'case:1']))).commit(NOW);
		expect(deduplicator.admit(event(['message:other', 'case:1'])).outcome).toBe('duplicate');
		expect(deduplicator.admit(event(['message:m'])).outcome).toBe('duplicate');
		expect(deduplicator.admit(event(['delivery:b', 'case:2'])).outcome).toBe('admitted');
	});

	it('refuses a concurrent copy while the first one is still being processed', () => {
		const deduplicator = new DeliveryDeduplicator();
		const first = admitted(deduplicator.admit(event(['delivery:a'])));
		expect(deduplicator.admit(event(['delivery:a'])).outcome).toBe('duplicate');
		first.commit(NOW);
		expect(deduplicator.admit(event(['delivery:a'])).outcome).toBe('duplicate');
	});

	it('admits a redelivery after the first attempt released its claim', () => {
		const deduplicator = new DeliveryDeduplicator();
		admitted(deduplicator.admit(event(['delivery:a']))).release();
		admitted(deduplicator.admit(event(['delivery:a']))).commit(NOW);
		expect(deduplicator.admit(event(['delivery:a'])).outcome).toBe('duplicate');
	});

	it('ignores a second settle of the same claim', () => {
		const deduplicator = new DeliveryDeduplicator();
		const claim = admitted(deduplicator.admit(event(['delivery:a'])));
		claim.commit(NOW);
		claim.release();
		expect(deduplicator.admit(event(['delivery:a'])).outcome).toBe('duplicate');
	});

	it('survives a restart through its persisted form', () => {
		const before = new DeliveryDeduplicator();
		admitted(before.admit(event(['delivery:a', 'case:1']))).commit(NOW);
		const persisted = JSON.parse(JSON.stringify(before.toPersisted()));

		const after = new DeliveryDeduplicator();
		after.absorb(persisted, NOW + 60);
		expect(after.admit(event(['case:1'])).outcome).toBe('duplicate');
		expect(after.size).toBe(1);
	});

	it('stores hashes, not the keys themselves', () => {
		const deduplicator = new DeliveryDeduplicator();
		admitted(deduplicator.admit(event(['case:["c-1","pending",null,"2025-01-01T00:00:00.000Z"]']))).commit(NOW);
		const persisted = JSON.stringify(deduplicator.toPersisted());
		expect(persisted).not.toContain('c-1');
		expect(persisted.length).toBeLessThan(80);
	});

	it('merges what another writer persisted with what it holds', () => {
		const processA = new DeliveryDeduplicator();
		const processB = new DeliveryDeduplicator();
		admitted(processA.admit(event(['delivery:a']))).commit(NOW);
		admitted(processB.admit(event(['delivery:b']))).commit(NOW);
		processA.absorb(processB.toPersisted(), NOW);
		expect(processA.admit(event(['delivery:b'])).outcome).toBe('duplicate');
		expect(deliveryLines(processA.toPersisted())).toHaveLength(2);
		processA.absorb(processB.toPersisted(), NOW);
		expect(processA.size).toBe(2);
	});

	it('offers a view for static data that serializes to what it holds when n8n saves it', () => {
		const deduplicator = new DeliveryDeduplicator();
		// Static data as n8n hands it to a node: wrapped in its change-tracking proxy.
		const staticData = ObservableObject.create({ 'node:Trigger': {} }) as IDataObject & { __dataChanged: boolean };
		const nodeData = staticData['node:Trigger'] as IDataObject;
		admitted(deduplicator.admit(event(['delivery:a']))).commit(NOW);
		nodeData.dedup = deduplicator.persistedView as unknown as IDataObject;
		expect(staticData.__dataChanged).toBe(true);

		admitted(deduplicator.admit(event(['delivery:b']))).commit(NOW);
		const saved = JSON.parse(JSON.stringify(staticData));
		expect(saved['node:Trigger'].dedup).toEqual(deduplicator.toPersisted());
		expect(deliveryLines(saved['node:Trigger'].dedup)).toHaveLength(2);
	});

	it('persists one string, in format v2: the content key of each delivery, and the modStamps Ignore Older Events checks', () => {
		const deduplicator = new DeliveryDeduplicator();
		admitted(deduplicator.admit(event(['delivery:a', 'case:1'], { subject: 's', modStamp: '2025-01-01T00:00:00Z', dropOlder: true }))).commit(NOW);
		admitted(deduplicator.admit(event(['delivery:b', 'case:2'], { subject: 'unchecked', modStamp: '2025-01-01T00:00:00Z' }))).commit(NOW);
		const caseKey = createHash('sha256').update('case:1').digest('base64url').slice(0, 12);
		expect(deduplicator.toPersisted()).toMatch(new RegExp(`^v2\\n1760000000 ${caseKey}\\n1760000000 [\\w-]{12}\\nlatest\\n[\\w-]{12} 2025-01-01T00:00:00Z$`));
	});

	it('does not re-parse a string it produced or absorbed, even one saved out of order (steady state)', () => {
		const deduplicator = new DeliveryDeduplicator();
		const parse = jest.spyOn(deduplicator as unknown as { absorbText(text: string): void }, 'absorbText');
		admitted(deduplicator.admit(event(['delivery:a']))).commit(NOW);
		const first = JSON.parse(JSON.stringify({ dedup: deduplicator.persistedView })).dedup as string;
		admitted(deduplicator.admit(event(['delivery:b']))).commit(NOW);
		const second = JSON.parse(JSON.stringify({ dedup: deduplicator.persistedView })).dedup as string;
		deduplicator.absorb(second, NOW);
		deduplicator.absorb(first, NOW);
		deduplicator.absorb(second, NOW);
		expect(parse).not.toHaveBeenCalled();
		expect(deduplicator.size).toBe(2);

		const other = new DeliveryDeduplicator();
		admitted(other.admit(event(['delivery:c']))).commit(NOW);
		const foreign = other.toPersisted();
		deduplicator.absorb(foreign, NOW);
		deduplicator.absorb(foreign, NOW);
		expect(parse).toHaveBeenCalledTimes(1);
	});

	it('merges a string another writer changed, and saves the union', () => {
		const processA = new DeliveryDeduplicator();
		const processB = new DeliveryDeduplicator();
		admitted(processA.admit(event(['delivery:a']))).commit(NOW);
		processB.absorb(processA.toPersisted(), NOW);
		admitted(processB.admit(event(['delivery:b'], { subject: 's', modStamp: '2025-01-02T00:00:00Z', dropOlder: true }))).commit(NOW);
		processA.absorb(JSON.parse(JSON.stringify(processB.persistedView)), NOW);
		expect(processA.admit(event(['delivery:b'])).outcome).toBe('duplicate');
		expect(processA.admit(event(['x'], { subject: 's', modStamp: '2025-01-01T00:00:00Z', dropOlder: true })).outcome).toBe('outOfOrder');
		expect(deliveryLines(processA.toPersisted())).toHaveLength(2);
		expect(processA.size).toBe(2);
	});

	it('reads the object form of version 1 (16-character hashes), so an upgrade keeps the memory', () => {
		const v1Hash = (key: string) => createHash('sha256').update(key).digest('base64url').slice(0, 16);
		const persisted = JSON.parse(
			JSON.stringify({
				deliveries: [[[v1Hash('delivery:a'), v1Hash('case:1')], NOW - 60]],
				latest: [[v1Hash('s'), '2025-01-02T00:00:00Z']],
			}),
		);
		const deduplicator = new DeliveryDeduplicator();
		deduplicator.absorb(persisted, NOW);
		expect(deduplicator.admit(event(['case:1'])).outcome).toBe('duplicate');
		expect(deduplicator.admit(event(['y'], { subject: 's', modStamp: '2025-01-01T00:00:00Z', dropOlder: true })).outcome).toBe('outOfOrder');
		// Saved again in format v2 (its content key, the last of the line), from which a restarted process still knows it.
		const restarted = new DeliveryDeduplicator();
		restarted.absorb(deduplicator.toPersisted(), NOW);
		expect(restarted.admit(event(['delivery:other', 'case:1'])).outcome).toBe('duplicate');
		expect(restarted.admit(event(['y'], { subject: 's', modStamp: '2025-01-01T00:00:00Z', dropOlder: true })).outcome).toBe('outOfOrder');
	});

	it('keeps any modStamp text intact through the string', () => {
		const modStamp = 'odd "stamp"\nwith a newline \\ and spaces';
		const before = new DeliveryDeduplicator();
		admitted(before.admit(event(['a'], { subject: 's', modStamp, dropOlder: true }))).commit(NOW);
		const after = new DeliveryDeduplicator();
		after.absorb(JSON.parse(JSON.stringify(before.toPersisted())), NOW);
		expect(after.toPersisted()).toBe(before.toPersisted());
		expect(after.toPersisted()).toContain(JSON.stringify(modStamp).slice(1, -1));
	});

	it('skips lines of a v2 string it cannot read', () => {
		const deduplicator = new DeliveryDeduplicator();
		deduplicator.absorb('v2\nnot-a-time aaaaaaaaaaaa\n1760000000 short\n1760000000 bbbbbbbbbbbb\nlatest\nnospace\ncccccccccccc "broken', NOW);
		expect(deduplicator.size).toBe(1);
	});

	it('absorbs its own view without duplicating entries', () => {
		const deduplicator = new DeliveryDeduplicator();
		admitted(deduplicator.admit(event(['delivery:a']))).commit(NOW);
		deduplicator.absorb(deduplicator.persistedView, NOW);
		expect(deduplicator.size).toBe(1);
	});

	it.each([undefined, null, 'text', 'v1\n1760000000 aaaaaaaaaaaa', { deliveries: 'x' }, { deliveries: [[['k'], 'not a time'], 'junk', [[1, 2], NOW]] }])(
		'ignores persisted data it cannot read: %p',
		(persisted) => {
			const deduplicator = new DeliveryDeduplicator();
			expect(() => deduplicator.absorb(persisted, NOW)).not.toThrow();
			expect(deduplicator.size).toBe(0);
		},
	);

	it('forgets the oldest deliveries beyond its size', () => {
		const deduplicator = new DeliveryDeduplicator({ maxDeliveries: 3, retentionSeconds: 10_000 });
		for (let index = 0; index < 5; index++) admitted(deduplicator.admit(event([`delivery:${index}`]))).commit(NOW + index);
		expect(deduplicator.size).toBe(3);
		expect(deduplicator.admit(event(['delivery:0'])).outcome).toBe('admitted');
		expect(deduplicator.admit(event(['delivery:4'])).outcome).toBe('duplicate');
	});

	it('keeps the newest when older persisted entries are merged beyond its size', () => {
		const persisted = new DeliveryDeduplicator({ maxDeliveries: 10, retentionSeconds: 10_000 });
		for (let index = 0; index < 3; index++) admitted(persisted.admit(event([`old:${index}`]))).commit(NOW - 100 + index);
		const deduplicator = new DeliveryDeduplicator({ maxDeliveries: 3, retentionSeconds: 10_000 });
		for (let index = 0; index < 3; index++) admitted(deduplicator.admit(event([`new:${index}`]))).commit(NOW + index);
		deduplicator.absorb(persisted.toPersisted(), NOW + 10);
		expect(deduplicator.admit(event(['new:0'])).outcome).toBe('duplicate');
		expect(deduplicator.admit(event(['old:2'])).outcome).toBe('admitted');
	});

	it('forgets deliveries older than its retention', () => {
		const deduplicator = new DeliveryDeduplicator({ maxDeliveries: 100, retentionSeconds: 3600 });
		admitted(deduplicator.admit(event(['delivery:old']))).commit(NOW);
		admitted(deduplicator.admit(event(['delivery:new']))).commit(NOW + 3601);
		expect(deduplicator.size).toBe(1);
		expect(deduplicator.admit(event(['delivery:old'])).outcome).toBe('admitted');
	});

	it('remembers deliveries past the provider\'s last retry by default (8 attempts over about 28 hours)', () => {
		expect(DEFAULT_DEDUP_LIMITS.retentionSeconds).toBeGreaterThan((5 + 300 + 1800 + 7200 + 18000 + 36000 + 36000) * 1.5);
	});

	describe('ordering by modStamp', () => {
		const at = (minute: number) => `2025-03-01T10:${String(minute).padStart(2, '0')}:00.000Z`;
		const caseEvent = (key: string, minute: number, dropOlder = true) =>
			event([key], { subject: 'case.statuschange|c-1', modStamp: at(minute), dropOlder });

		it('drops an event older than one already received for the same subject', () => {
			const deduplicator = new DeliveryDeduplicator();
			admitted(deduplicator.admit(caseEvent('e2', 2))).commit(NOW);
			expect(deduplicator.admit(caseEvent('e1', 1))).toEqual({ outcome: 'outOfOrder', newerModStamp: at(2) });
		});

		it('admits an equal or newer modStamp, and other subjects', () => {
			const deduplicator = new DeliveryDeduplicator();
			admitted(deduplicator.admit(caseEvent('e2', 2))).commit(NOW);
			expect(deduplicator.admit(caseEvent('e2b', 2)).outcome).toBe('admitted');
			expect(deduplicator.admit(caseEvent('e3', 3)).outcome).toBe('admitted');
			expect(deduplicator.admit(event(['e0'], { subject: 'case.statuschange|c-2', modStamp: at(0), dropOlder: true })).outcome).toBe(
				'admitted',
			);
		});

		it('keeps older events when dropping is off, without losing the newest modStamp', () => {
			const deduplicator = new DeliveryDeduplicator();
			admitted(deduplicator.admit(caseEvent('e2', 2, false))).commit(NOW);
			expect(deduplicator.admit(caseEvent('e1', 1, false)).outcome).toBe('admitted');
			expect(deduplicator.admit(caseEvent('e0', 0, true)).outcome).toBe('outOfOrder');
		});

		it('counts a claimed event as seen at once, so a concurrent older one is dropped', () => {
			const deduplicator = new DeliveryDeduplicator();
			deduplicator.admit(caseEvent('e2', 2));
			expect(deduplicator.admit(caseEvent('e1', 1)).outcome).toBe('outOfOrder');
		});

		it('does not drop when a modStamp is not a timestamp', () => {
			const deduplicator = new DeliveryDeduplicator();
			admitted(deduplicator.admit(event(['a'], { subject: 's', modStamp: 'yesterday', dropOlder: true }))).commit(NOW);
			expect(deduplicator.admit(event(['b'], { subject: 's', modStamp: at(1), dropOlder: true })).outcome).toBe('admitted');
		});

		it('keeps the newest modStamp across a restart', () => {
			const before = new DeliveryDeduplicator();
			admitted(before.admit(caseEvent('e2', 2))).commit(NOW);
			const after = new DeliveryDeduplicator();
			after.absorb(JSON.parse(JSON.stringify(before.toPersisted())), NOW);
			expect(after.admit(caseEvent('e1', 1)).outcome).toBe('outOfOrder');
		});
	});
});

describe('the saved copy', () => {
	/** A full default memory: 1,000 deliveries with a delivery ID, a message ID and a content key each. */
	const fullMemory = (dropOlder = false) => {
		const deduplicator = new DeliveryDeduplicator();
		for (let index = 0; index < DEFAULT_DEDUP_LIMITS.maxDeliveries; index++) {
			const ordering = { subject: `case.statuschange|case-${index}`, modStamp: new Date((NOW + index) * 1000).toISOString(), dropOlder };
			admitted(deduplicator.admit(event([`delivery:${index}`, `message:${index}`, `case:${index}`], ordering))).commit(NOW + index);
		}
		return deduplicator;
	};

	it('holds the content keys of the newest deliveries only, so it stays small with a full memory', () => {
		const deduplicator = fullMemory();
		expect(deduplicator.size).toBe(DEFAULT_DEDUP_LIMITS.maxDeliveries);
		const saved = JSON.stringify({ dedup: deduplicator.persistedView });
		expect(deliveryLines(deduplicator.toPersisted())).toHaveLength(SAVED_DELIVERIES);
		expect(saved.length).toBeLessThan(2600);
		// With Ignore Older Events it also holds the newest 100 subjects' modStamps.
		const withOrdering = fullMemory(true);
		expect(withOrdering.toPersisted().split('\nlatest\n')[1].split('\n')).toHaveLength(SAVED_DELIVERIES);
		expect(JSON.stringify({ dedup: withOrdering.persistedView }).length).toBeLessThan(6500);
	});

	it('after a restart, copies and retries of the newest deliveries are duplicates; older ones were only in process memory', () => {
		const before = fullMemory();
		const after = new DeliveryDeduplicator();
		after.absorb(JSON.parse(JSON.stringify(before.persistedView)), NOW + 2000);
		const newest = DEFAULT_DEDUP_LIMITS.maxDeliveries - 1;
		const oldestSaved = DEFAULT_DEDUP_LIMITS.maxDeliveries - SAVED_DELIVERIES;
		// Another delivery system's copy or a retry: another delivery ID, the same content.
		expect(after.admit(event(['delivery:other-system', `case:${newest}`])).outcome).toBe('duplicate');
		expect(after.admit(event([`delivery:${oldestSaved}`, `message:${oldestSaved}`, `case:${oldestSaved}`])).outcome).toBe('duplicate');
		expect(after.admit(event([`delivery:${oldestSaved - 1}`, `case:${oldestSaved - 1}`])).outcome).toBe('admitted');
		// The process that saw them all still knows every one of them.
		expect(before.admit(event(['delivery:0', 'case:0'])).outcome).toBe('duplicate');
	});

	it('is handed to n8n at most once per interval, and only when something is new', () => {
		const deduplicator = new DeliveryDeduplicator();
		const save = () => JSON.stringify({ dedup: deduplicator.persistedView });
		const t0 = 1_760_000_000_000;
		expect(deduplicator.takeSaveTurn(t0)).toBe(false);

		const first = admitted(deduplicator.admit(event(['delivery:a'])));
		expect(deduplicator.takeSaveTurn(t0)).toBe(true);
		first.commit(NOW);
		save();
		admitted(deduplicator.admit(event(['delivery:b']))).commit(NOW);
		expect(deduplicator.takeSaveTurn(t0 + SAVE_INTERVAL_MS - 1)).toBe(false);
		// Any later request saves what was deferred, even a duplicate that adds nothing itself.
		expect(deduplicator.admit(event(['delivery:a'])).outcome).toBe('duplicate');
		expect(deduplicator.takeSaveTurn(t0 + SAVE_INTERVAL_MS)).toBe(true);
		const restarted = new DeliveryDeduplicator();
		restarted.absorb(JSON.parse(save()).dedup, NOW);
		expect(restarted.admit(event(['delivery:b'])).outcome).toBe('duplicate');

		// Saved and nothing new since: no turn, however late.
		expect(deduplicator.takeSaveTurn(t0 + 60_000)).toBe(false);
	});

	it('counts a delivery still being processed as something new', () => {
		const deduplicator = new DeliveryDeduplicator();
		deduplicator.admit(event(['delivery:a']));
		expect(deduplicator.takeSaveTurn(1_760_000_000_000)).toBe(true);
	});

	it('keeps the modStamps of subjects checked with Ignore Older Events, the newest ones', () => {
		const deduplicator = new DeliveryDeduplicator();
		for (let index = 0; index < SAVED_DELIVERIES + 5; index++) {
			admitted(deduplicator.admit(event([`checked:${index}`], { subject: `checked-${index}`, modStamp: '2025-01-02T00:00:00Z', dropOlder: true }))).commit(NOW);
		}
		admitted(deduplicator.admit(event(['unchecked'], { subject: 'unchecked', modStamp: '2025-01-02T00:00:00Z' }))).commit(NOW);
		const restarted = new DeliveryDeduplicator();
		restarted.absorb(deduplicator.toPersisted(), NOW);
		const older = (subject: string) => event([`older:${subject}`], { subject, modStamp: '2025-01-01T00:00:00Z', dropOlder: true });
		expect(restarted.admit(older(`checked-${SAVED_DELIVERIES + 4}`)).outcome).toBe('outOfOrder');
		expect(restarted.admit(older('checked-0')).outcome).toBe('admitted');
		expect(restarted.admit(older('unchecked')).outcome).toBe('admitted');
		// In process memory every subject's modStamp is kept, checked or not.
		expect(deduplicator.admit(older('unchecked')).outcome).toBe('outOfOrder');
	});
});

describe('process-wide deduplicators', () => {
	it('shares one deduplicator per scope and starts afresh once forgotten', () => {
		const first = deduplicatorFor('workflow-a:node-1', DEFAULT_DEDUP_LIMITS);
		expect(deduplicatorFor('workflow-a:node-1', DEFAULT_DEDUP_LIMITS)).toBe(first);
		expect(deduplicatorFor('workflow-b:node-1', DEFAULT_DEDUP_LIMITS)).not.toBe(first);
		forgetDeduplicator('workflow-a:node-1');
		expect(deduplicatorFor('workflow-a:node-1', DEFAULT_DEDUP_LIMITS)).not.toBe(first);
	});

	it('applies the latest limits to an existing deduplicator', () => {
		const deduplicator = deduplicatorFor('workflow-c:node-1', DEFAULT_DEDUP_LIMITS);
		deduplicatorFor('workflow-c:node-1', { maxDeliveries: 5, retentionSeconds: 60 });
		expect(deduplicator.limits).toEqual({ maxDeliveries: 5, retentionSeconds: 60 });
	});
});
