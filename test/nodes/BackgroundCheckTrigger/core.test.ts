import * as fc from 'fast-check';

import {
	CLAIM_SECONDS,
	RecentMap,
	activate,
	admit,
	firstStep,
	shortHash,
	newState,
	originOfDelivered,
	originOfWatchdogRun,
	recordStatuses,
	settle,
	started,
	statusOf,
	takeTurn,
	releaseTurn,
	type Change,
} from '../../../nodes/BackgroundCheckTrigger/core';
import { merge, read, write } from '../../../nodes/BackgroundCheckTrigger/savedState';

const NOW = 1_760_000_400;
const at = (second: number) => new Date(Date.UTC(2025, 0, 1) + second * 1000).toISOString();
const change = (status: string, second: number): Change => ({
	eventKey: `case:c-1:${status}:${second}`,
	subject: 'case:c-1',
	status,
	modStamp: at(second),
});

describe('RecentMap: the newest entries without walking the older ones', () => {
	it("lists the newest entries that are kept, newest first, as the Map's own order has them", () => {
		const key = fc.integer({ min: 0, max: 40 });
		const operation = fc.oneof(
			{ arbitrary: fc.record({ set: key, value: fc.integer({ min: 0, max: 3 }) }), weight: 400 },
			{ arbitrary: fc.record({ remove: key }), weight: 300 },
			{ arbitrary: fc.record({ dropOldest: fc.constant(true) }), weight: 100 },
			{ arbitrary: fc.record({ clear: fc.constant(true) }), weight: 1 },
		);
		fc.assert(
			fc.property(
				fc.array(operation, { maxLength: 300, size: 'max' }),
				fc.nat(45),
				(operations, count) => {
					const map = new RecentMap<number>(8);
					const keep = (value: number) => value !== 0;
					for (const step of operations) {
						if ('set' in step) map.set(`k${step.set}`, step.value);
						else if ('remove' in step) map.delete(`k${step.remove}`);
						else if ('dropOldest' in step && map.size > 0) map.delete(map.keys().next().value!);
						else if ('clear' in step) map.clear();
						const kept = [...map].filter(([, value]) => keep(value)).reverse();
						expect([...map.newest(count, keep)]).toEqual(kept.slice(0, count));
						expect([...map.newest(Infinity)]).toEqual([...map].reverse());
					}
				},
			),
			{ numRuns: 50 },
		);
	});
});

describe('core: the decisions, pure', () => {
	it('admits a delivery once: a copy waits while it is being started, and is a duplicate once it started', () => {
		const state = newState();
		const first = admit(state, change('A', 1), false, NOW);
		if (first.outcome !== 'admitted') throw new Error(first.outcome);
		expect(admit(state, change('A', 1), false, NOW)).toEqual({ outcome: 'busy' });
		started(state, first.claim, change('A', 1), NOW, false);
		expect(admit(state, change('A', 1), false, NOW).outcome).toBe('duplicate');
	});

	it('lets a copy run when the claim settles without a start, or expires', () => {
		const state = newState();
		const first = admit(state, change('A', 1), false, NOW);
		if (first.outcome !== 'admitted') throw new Error(first.outcome);
		expect(admit(state, change('A', 1), false, NOW + CLAIM_SECONDS).outcome).toBe('admitted');
		settle(state, first.claim);
		expect(admit(state, change('B', 2), false, NOW).outcome).toBe('admitted');
	});

	it('refuses an older change of a subject with Ignore Older Events, and only then', () => {
		const state = newState();
		const newer = admit(state, change('A', 5), true, NOW);
		if (newer.outcome !== 'admitted') throw new Error(newer.outcome);
		started(state, newer.claim, change('A', 5), NOW, true);
		expect(admit(state, change('B', 4), true, NOW).outcome).toBe('outOfOrder');
		expect(admit(state, change('B', 4), false, NOW).outcome).toBe('admitted');
	});

	it('gives the turn to save to one request at a time, for at most the claim time', () => {
		const state = newState();
		const id = takeTurn(state, NOW)!;
		expect(takeTurn(state, NOW + 1)).toBeUndefined();
		expect(takeTurn(state, NOW + CLAIM_SECONDS)).toBeDefined();
		releaseTurn(state, id);
		expect(state.turn).toBeDefined();
	});

	it('first step: runs an execution it admitted, stops one another process started for a change it started', () => {
		const state = newState();
		state.readSaved = true;
		const admitted = admit(state, change('A', 1), false, NOW);
		if (admitted.outcome !== 'admitted') throw new Error(admitted.outcome);
		started(state, admitted.claim, change('A', 1), NOW, false);
		expect(originOfDelivered(state, change('A', 1), true, NOW)).toBe('ours');
		expect(originOfDelivered(state, change('A', 1), false, NOW)).toBe('known');
		expect(firstStep(state, change('A', 1), 'known', false, NOW, false)).toEqual({
			runs: false,
			save: true,
		});
		expect(firstStep(state, change('B', 2), 'ours', false, NOW, false)).toEqual({
			runs: true,
			save: true,
		});
		expect(firstStep(state, change('B', 2), 'ours', false, NOW, false)).toEqual({
			runs: true,
			save: false,
		});
	});

	it('first step in a process that never read the saved form (a queue-mode worker) runs and never saves', () => {
		const state = newState();
		expect(originOfDelivered(state, change('A', 1), false, NOW)).toBe('new');
		expect(firstStep(state, change('A', 1), 'new', false, NOW, true)).toEqual({
			runs: true,
			save: false,
		});
	});

	it('a change the watchdog ran covers a later delivery of it with an older modStamp', () => {
		const state = newState();
		const watchdogRun = admit(state, change('A', 9), false, NOW, true);
		if (watchdogRun.outcome !== 'admitted') throw new Error(watchdogRun.outcome);
		expect(originOfWatchdogRun(state, change('A', 9))).toBe('ours');
		firstStep(state, change('A', 9), 'ours', true, NOW, false);
		settle(state, watchdogRun.claim);
		expect(admit(state, { ...change('A', 8), eventKey: 'the delivery' }, false, NOW).outcome).toBe(
			'duplicate',
		);
	});

	it("activation: a user's drops the watchdog's record (statuses), a restart keeps it; off drops and saves", () => {
		const state = newState();
		recordStatuses(state, [['case:c-1', 'A']]);
		expect(activate(state, false, true)).toEqual({ record: false, save: false });
		expect(statusOf(state, 'case:c-1')).toBe('A');
		expect(activate(state, true, true)).toEqual({ record: true, save: false });
		expect(statusOf(state, 'case:c-1')).toBeUndefined();
		recordStatuses(state, [['case:c-1', 'A']]);
		expect(activate(state, false, false)).toEqual({ record: false, save: true });
		expect(state.recorded).toBe(false);
	});
});

describe('savedState: version 2 JSON, and version 1 read as a migration', () => {
	it('migrates a version 1 string into the same state as its version 2 form', () => {
		const hash = shortHash('case:1');
		const subject = shortHash('case:c-1');
		const version1 = [
			'm1 1',
			`e\t${NOW}\t${hash}`,
			`c\t${shortHash('cover')}\t${NOW}\t~${Date.parse(at(3)).toString(36)}`,
			`o\t${shortHash('ordered')}\t"not a time"`,
			'd\tA\tB',
			`w\t1\t${subject}1`,
			`t\t${subject}\t~${Date.parse(at(2)).toString(36)}`,
		].join('\n');
		const migrated = newState();
		merge(migrated, read(version1)!);
		const again = newState();
		merge(again, read(write(migrated, 100))!);
		for (const state of [migrated, again]) {
			expect(state.recorded).toBe(true);
			expect([...state.events]).toEqual([[hash, NOW]]);
			expect([...state.covers]).toEqual([[shortHash('cover'), { modStamp: at(3), hour: NOW }]]);
			expect(state.subjects.get(subject)).toEqual({ status: 'B', modStamp: at(2), ordered: false });
			expect(state.subjects.get(shortHash('ordered'))).toEqual({
				modStamp: 'not a time',
				ordered: true,
				status: undefined,
			});
		}
		expect(JSON.parse(write(migrated, 100)).v).toBe(2);
	});

	it('reads nothing from what is neither form', () => {
		for (const text of [undefined, 42, '', 'm2 0', '{"v":3}', '{broken'])
			expect(read(text)).toBeUndefined();
	});
});
