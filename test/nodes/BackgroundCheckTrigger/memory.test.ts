import { createHash } from 'crypto';
import { ObservableObject, type IDataObject, type IWebhookFunctions } from 'n8n-workflow';

import { nodeMemory } from '../../../nodes/BackgroundCheckTrigger/activation';

import {
	BUCKET_SECONDS,
	CLAIM_SECONDS,
	DUPLICATE_MEMORY_SIZE,
	HASH_LENGTH,
	PROCESS_LIMIT,
	RETENTION_SECONDS,
	TriggerMemory,
	shortHash,
	memoryOf,
	type Admission,
	type Change,
} from '../../../nodes/BackgroundCheckTrigger/memory';
import {
	WEBHOOK_DELIVERY_ATTEMPTS,
	WEBHOOK_RESPONSE_DEADLINE_SECONDS,
	WEBHOOK_RETRY_DELAYS_SECONDS,
} from '../../../nodes/shared/catalog';
import { caseStatusOf } from '../../../nodes/BackgroundCheckTrigger/event';
import * as savedState from '../../../nodes/BackgroundCheckTrigger/savedState';

/** On an hour boundary, so that bucket arithmetic in the tests is plain. */
const NOW = 1_760_000_400 - (1_760_000_400 % BUCKET_SECONDS);

const change = (eventKey: string, extra: Partial<Change> = {}): Change => ({
	eventKey,
	...extra,
});
const stamped = (key: string, subject: string, modStamp: string) =>
	change(key, { subject, modStamp });

/** An admission whose outcome must be `expected`. */
function expectOutcome<O extends Admission['outcome']>(expected: O, admission: Admission) {
	expect(admission.outcome).toBe(expected);
	return admission as Extract<Admission, { outcome: O }>;
}

// These take their arguments in the order of TriggerMemory.admit; a key alone is a change without subject.
const admit = (memory: TriggerMemory, given: string | Change, dropOlder = false, now = NOW) =>
	memory.admit(typeof given === 'string' ? change(given) : given, dropOlder, now);
const outcome = (memory: TriggerMemory, given: string | Change, dropOlder = false, now = NOW) =>
	admit(memory, given, dropOlder, now).outcome;
/** Claims a change, which must be admitted. */
const claim = (memory: TriggerMemory, given: string | Change, dropOlder = false, now = NOW) =>
	expectOutcome('admitted', admit(memory, given, dropOlder, now)).claim;
/** Admits a change and starts its execution at `now`. */
const run = (memory: TriggerMemory, given: string | Change, dropOlder = false, now = NOW) =>
	claim(memory, given, dropOlder, now).start(now);

interface SavedForm {
	v: number;
	recorded: boolean;
	events: Array<[number, string]>;
	covers: Array<[string, number, number | string]>;
	ordered: Array<[string, number | string]>;
	statuses: string[];
	subjects: Array<[string, number, (number | string)?]>;
}
const formOf = (saved: string): SavedForm =>
	({
		events: [],
		covers: [],
		statuses: [],
		subjects: [],
		...(JSON.parse(saved) as Partial<SavedForm>),
	}) as SavedForm;
/** The saved subjects kept for Ignore Older Events. */
const orderedOf = (saved: string) => formOf(saved).ordered ?? [];
const coversOf = (saved: string) => formOf(saved).covers ?? [];

const HASH = new RegExp(`.{${HASH_LENGTH}}`, 'g');
/** The event hashes of a saved form, oldest first. */
const savedHashes = (saved: string) =>
	formOf(saved).events.flatMap(([, run]) => run.match(HASH) ?? []);

/** What n8n saves and a restarted process reads back. */
const throughJson = (memory: TriggerMemory) =>
	JSON.parse(JSON.stringify({ memory: memory.serialize() })).memory as string;

/** A new process that read what `memory` saved. */
function restarted(memory: TriggerMemory, now = NOW): TriggerMemory {
	const after = new TriggerMemory();
	after.duplicateMemorySize = memory.duplicateMemorySize;
	after.mergeSaved(throughJson(memory), now);
	return after;
}

/** Spies on the reading of a saved form. */
const spyOnParse = () => jest.spyOn(savedState, 'read');

describe('TriggerMemory', () => {
	let memory: TriggerMemory;
	beforeEach(() => (memory = new TriggerMemory()));
	afterEach(() => jest.restoreAllMocks());

	describe('originOfWatchdogRun: the first step of an execution a watchdog emitted', () => {
		const at = (status: string, modStamp: string) =>
			change(`case:1|${status}|${modStamp}`, { subject: 'case:1', status, modStamp });
		const delivered = at('B', '2026-01-01T00:00:01.000Z');

		it('is ours while this memory’s watchdog claims it, and known once that claim has started its execution', () => {
			const admission = memory.admit(delivered, false, NOW, { fromWatchdog: true });
			const watchdog = expectOutcome('admitted', admission).claim;
			expect(memory.originOfWatchdogRun(delivered)).toBe('ours');
			watchdog.start(NOW);
			expect(memory.originOfWatchdogRun(delivered)).toBe('known');
		});

		it('is known when it ran here, or a delivery of it is being started here', () => {
			const starting = claim(memory, delivered);
			expect(memory.originOfWatchdogRun(delivered)).toBe('known');
			starting.release();
			expect(memory.originOfWatchdogRun(delivered)).toBe('new');
		});

		it('is known at the status this memory knows only when it read the saved memory (it holds every delivery)', () => {
			const edited = at('B', '2026-01-01T00:00:05.000Z');
			memory.mergeSaved(undefined, NOW);
			run(memory, delivered);
			expect(memory.originOfWatchdogRun(edited)).toBe('known');
			expect(memory.originOfWatchdogRun(at('C', '2026-01-01T00:00:05.000Z'))).toBe('new');
			expect(memory.originOfWatchdogRun(change('without a subject'))).toBe('new');
			// A queue-mode worker: only execution copies, so what it knows of a subject may be old.
			const worker = new TriggerMemory();
			worker.mergeSaved(undefined, NOW, { executionCopy: true });
			worker.remember(delivered, NOW);
			expect(worker.originOfWatchdogRun(edited)).toBe('new');
			expect(worker.originOfWatchdogRun(delivered)).toBe('known');
		});
	});

	it('admits an event once and calls any later copy a duplicate', () => {
		run(memory, 'case:1');
		expect(outcome(memory, 'case:1')).toBe('duplicate');
		expect(outcome(memory, 'case:2')).toBe('admitted');
	});

	it('holds back only copies: other events of one subject, or without a subject or status, are admitted side by side', () => {
		claim(memory, change('case:1@a', { subject: 'case:1' }));
		expect(outcome(memory, change('case:1@b', { subject: 'case:1' }))).toBe('admitted');
		claim(memory, change('x@a', { status: 'B' }));
		expect(outcome(memory, change('x@b', { status: 'B' }))).toBe('admitted');
		claim(memory, 'y@a');
		expect(outcome(memory, 'y@b')).toBe('admitted');
		run(memory, change('z', { subject: 'case:2' }));
		expect(outcome(memory, 'z')).toBe('duplicate');
	});

	it('holds a copy back as busy while the first is being started, and calls it a duplicate once started', async () => {
		const first = claim(memory, 'case:1');
		let settled = false;
		void expectOutcome('busy', admit(memory, 'case:1')).settled.then(() => (settled = true));
		await Promise.resolve();
		expect(settled).toBe(false);
		first.start(NOW);
		await Promise.resolve();
		expect(settled).toBe(true);
		expect(outcome(memory, 'case:1')).toBe('duplicate');
	});

	it('admits a copy again after the first released its claim (filtered out, or n8n could not start it)', async () => {
		const first = claim(memory, 'case:1');
		const copy = expectOutcome('busy', admit(memory, 'case:1'));
		first.release();
		await copy.settled;
		run(memory, 'case:1');
		expect(outcome(memory, 'case:1')).toBe('duplicate');
	});

	it(`stops holding copies back ${CLAIM_SECONDS} seconds after a claim whose outcome never came`, () => {
		claim(memory, 'case:1');
		expect(outcome(memory, 'case:1', false, NOW + CLAIM_SECONDS - 1)).toBe('busy');
		expect(outcome(memory, 'case:1', false, NOW + CLAIM_SECONDS)).toBe('admitted');
	});

	it('ignores a second settle of the same claim, and a settle of a claim replaced after it expired', () => {
		const settledTwice = claim(memory, 'case:1');
		settledTwice.start(NOW);
		settledTwice.release();
		expect(outcome(memory, 'case:1')).toBe('duplicate');

		const stale = claim(memory, 'case:2');
		claim(memory, 'case:2', false, NOW + CLAIM_SECONDS);
		stale.release();
		expect(outcome(memory, 'case:2', false, NOW + CLAIM_SECONDS)).toBe('busy');
	});

	it(`gives the turn to save to one request at a time, freed by its release or ${CLAIM_SECONDS} seconds after it was taken`, async () => {
		const first = memory.takeTurn(NOW);
		if (!('release' in first)) throw new Error('the first request did not get the turn');
		const waiting = memory.takeTurn(NOW + 1);
		if (!('busy' in waiting)) throw new Error('a second request got the turn');
		first.release();
		await waiting.busy;
		const second = memory.takeTurn(NOW + 1);
		expect('release' in second).toBe(true);
		// A release of a turn that expired and was taken again frees nothing.
		expect('busy' in memory.takeTurn(NOW + CLAIM_SECONDS)).toBe(true);
		const third = memory.takeTurn(NOW + 1 + CLAIM_SECONDS);
		if ('release' in second) second.release();
		expect('busy' in memory.takeTurn(NOW + 2 + CLAIM_SECONDS)).toBe(true);
		if ('release' in third) third.release();
		expect('release' in memory.takeTurn(NOW + 2 + CLAIM_SECONDS)).toBe(true);
	});

	it("holds a started delivery's answer until n8n gives it (after its save), for the execution's first step to wait on", async () => {
		expect(memory.answerOf(change('case:1'))).toBeUndefined();
		const answered = claim(memory, 'case:1').start(NOW);
		const answer = memory.answerOf(change('case:1'));
		let given = false;
		void answer!.then(() => (given = true));
		await Promise.resolve();
		expect(given).toBe(false);
		answered();
		await Promise.resolve();
		expect(given).toBe(true);
		expect(memory.answerOf(change('case:1'))).toBeUndefined();
	});

	it('saves nothing of an event until its execution has started', () => {
		const pending = claim(memory, 'case:1');
		expect(savedHashes(memory.serialize())).toEqual([]);
		expect(memory.size).toBe(0);
		expect(memory.empty).toBe(true);
		pending.start(NOW);
		expect(memory.empty).toBe(false);
		expect(savedHashes(memory.serialize())).toEqual([shortHash('case:1')]);
	});

	it('survives a restart through its saved string', () => {
		run(memory, 'case:1');
		const after = restarted(memory, NOW + 60);
		expect(outcome(after, 'case:1', false, NOW + 60)).toBe('duplicate');
		expect(after.size).toBe(1);
	});

	describe('originOfDelivered: the first step of an execution a delivery started', () => {
		const delivered = change('case:1|B', { subject: 'case:1', status: 'B' });
		const origin = (token: string) => memory.originOfDelivered(delivered, token, NOW);

		it('is ours when this memory admitted the delivery (its claim token), whatever else it knows', () => {
			const started = claim(memory, delivered);
			expect(origin(started.token)).toBe('ours');
			started.start(NOW);
			expect(origin(started.token)).toBe('ours');
		});

		it('from another process or version: known while this memory starts the change itself, and once it has', () => {
			memory.mergeSaved(undefined, NOW);
			const foreign = claim(new TriggerMemory(), delivered).token;
			expect(origin(foreign)).toBe('new');
			const retry = claim(memory, delivered);
			expect(origin(foreign)).toBe('known');
			retry.start(NOW);
			expect(origin(foreign)).toBe('known');
		});

		it('is new when this memory only read the change in what was saved: that may be this execution’s own save', () => {
			const before = new TriggerMemory();
			const foreign = claim(before, delivered);
			foreign.start(NOW);
			memory.mergeSaved(throughJson(before), NOW);
			expect(origin(foreign.token)).toBe('new');
			// A queue-mode worker (execution copies only), or n8n starting before the activation: nothing to compare.
			const worker = new TriggerMemory();
			worker.mergeSaved(throughJson(before), NOW, { executionCopy: true });
			expect(worker.originOfDelivered(delivered, 'another process', NOW)).toBe('new');
			expect(memory.originOfDelivered(delivered, undefined, NOW)).toBe('new');
		});

		it('is new in a process that read only execution copies, even for a change its watchdog ran: the delivery decided', () => {
			const watchdogRun = change('case:1|B|t', {
				subject: 'case:1',
				status: 'B',
				modStamp: '2025-01-01T00:00:00.000Z',
			});
			const main = new TriggerMemory();
			main.remember(watchdogRun, NOW, { fromWatchdog: true });
			const worker = new TriggerMemory();
			worker.mergeSaved(throughJson(main), NOW, { executionCopy: true });
			expect(
				worker.originOfDelivered(
					{ ...watchdogRun, eventKey: 'a delivery of it' },
					'another process',
					NOW,
				),
			).toBe('new');
		});
	});

	it('saves 10-character hashes, not the keys, run together by hour: about 10 bytes per event', () => {
		const key = 'case:["c-1","pending",null,"2025-01-01T00:00:00.000Z"]';
		run(memory, key);
		run(memory, 'case:2');
		const hash = createHash('sha256').update('case:2').digest('base64url').slice(0, 10);
		expect(formOf(memory.serialize()).events).toEqual([[NOW, `${shortHash(key)}${hash}`]]);
		expect(memory.serialize()).not.toContain('c-1');
	});

	it('is written as n8n writes static data: the string of what the process holds then, not when handed over', () => {
		const staticData = ObservableObject.create({ 'node:Trigger': {} }) as IDataObject & {
			__dataChanged: boolean;
		};
		const context = {
			getWorkflow: () => ({ id: 'memory-test-workflow' }),
			getNode: () => ({ id: 'trigger' }),
			getNodeParameter: (...args: unknown[]) => args[args.length - 1],
			logger: { warn: () => undefined },
			getWorkflowStaticData: () => staticData['node:Trigger'] as IDataObject,
		} as unknown as IWebhookFunctions;
		const node = nodeMemory(context);
		const now = Math.floor(Date.now() / 1000);
		run(node.memory, 'case:1', false, now);
		node.save();
		expect(staticData.__dataChanged).toBe(true);
		// Another request starts an event before n8n writes this request's static data.
		run(node.memory, 'case:2', false, now);
		const saved = JSON.parse(JSON.stringify(staticData));
		expect(saved['node:Trigger'].memory).toBe(node.memory.serialize());
		expect(savedHashes(saved['node:Trigger'].memory)).toHaveLength(2);
	});

	it('merges what another process saved with what it holds, and saves the union', () => {
		const other = new TriggerMemory();
		run(memory, 'case:a');
		run(other, stamped('case:b', 's', '2025-01-02T00:00:00.000Z'), true);
		memory.mergeSaved(throughJson(other), NOW);
		expect(outcome(memory, 'case:b')).toBe('duplicate');
		expect(outcome(memory, stamped('x', 's', '2025-01-01T00:00:00.000Z'), true)).toBe('outOfOrder');
		expect(savedHashes(memory.serialize())).toHaveLength(2);
		memory.mergeSaved(throughJson(other), NOW);
		expect(memory.size).toBe(2);
	});

	it("saves what another process's string brought (events, the watchdog's runs and record) after a save of its own", () => {
		/** Builds this process's save, reads `saved`, and builds the next one. */
		const nextSaveAfter = (saved: string) => {
			memory.serialize();
			memory.mergeSaved(saved, NOW);
			return memory.serialize();
		};
		run(memory, 'case:a');
		const other = new TriggerMemory();
		run(other, 'case:b');
		expect(savedHashes(nextSaveAfter(throughJson(other)))).toEqual([
			shortHash('case:a'),
			shortHash('case:b'),
		]);
		// Version 1's form, as an upgrade reads it.
		const watchdogRun = `c\t${shortHash('cover')}\t${NOW}\t~1`;
		expect(coversOf(nextSaveAfter(`m1 0\n${watchdogRun}`))).toEqual([[shortHash('cover'), NOW, 1]]);
		expect(formOf(nextSaveAfter('m1 1')).recorded).toBe(true);
	});

	it('keeps events oldest first when a string brings an older hour: the newest are saved, the oldest forgotten first', () => {
		const later = NOW + 2 * BUCKET_SECONDS;
		for (let index = 0; index < DUPLICATE_MEMORY_SIZE.default; index++)
			run(memory, `case:${index}`, false, later);
		const other = new TriggerMemory();
		run(other, 'case:older');
		run(other, 'case:oldest', false, NOW - BUCKET_SECONDS);
		memory.mergeSaved(throughJson(other), later);
		const hours = formOf(memory.serialize()).events.map(([hour]) => hour);
		expect(hours).toEqual([later]);
		expect(savedHashes(memory.serialize())).not.toContain(shortHash('case:older'));
		memory.mergeSaved(undefined, NOW + BUCKET_SECONDS + RETENTION_SECONDS);
		expect(memory.size).toBe(DUPLICATE_MEMORY_SIZE.default);
		expect(outcome(memory, 'case:older', false, later)).toBe('admitted');
	});

	it('reads back an old string of its own (more saves since than it recognises) without sorting or re-saving', () => {
		run(memory, 'case:a');
		const old = throughJson(memory);
		for (let saves = 0; saves < 70; saves++) {
			run(memory, `case:${saves}`);
			memory.serialize();
		}
		const current = memory.serialize();
		const parse = spyOnParse();
		const { version } = memory.state;
		memory.mergeSaved(old, NOW);
		expect(parse).toHaveBeenCalledTimes(1);
		expect(memory.state.version).toBe(version);
		// Unchanged: the next save is the string it already built.
		expect(memory.serialize()).toBe(current);
		expect(memory.size).toBe(71);
	});

	it('recognises the strings of its last 60 saves without parsing them (a request reads a copy several saves old)', () => {
		const strings: string[] = [];
		for (let saves = 0; saves < 60; saves++) {
			run(memory, `case:${saves}`);
			strings.push(throughJson(memory));
		}
		const parse = spyOnParse();
		for (const text of strings) memory.mergeSaved(text, NOW);
		expect(parse).not.toHaveBeenCalled();
	});

	it('does not re-parse a string it produced or absorbed, even one saved out of order (steady state)', () => {
		const parse = spyOnParse();
		run(memory, 'case:a');
		const first = throughJson(memory);
		run(memory, 'case:b');
		const second = throughJson(memory);
		for (const text of [second, first, second]) memory.mergeSaved(text, NOW);
		expect(parse).not.toHaveBeenCalled();
		expect(memory.size).toBe(2);

		const other = new TriggerMemory();
		run(other, 'case:c');
		const foreign = other.serialize();
		for (const text of [foreign, foreign]) memory.mergeSaved(text, NOW);
		expect(parse).toHaveBeenCalledTimes(1);
	});

	it('keeps any modStamp text intact through the string', () => {
		const modStamp = 'odd "stamp"\twith a tab,\na newline \\ and spaces';
		run(memory, stamped('a', 's', modStamp), true);
		run(memory, stamped('b', 'no milliseconds', '2025-03-01T10:00:00Z'), true);
		const after = restarted(memory);
		expect(after.modStampOf('s')).toBe(modStamp);
		expect(after.modStampOf('no milliseconds')).toBe('2025-03-01T10:00:00Z');
		expect(after.serialize()).toBe(memory.serialize());
	});

	it('keeps an ISO modStamp as its epoch milliseconds and reads it back as the same instant; other text stays text', () => {
		run(memory, stamped('a', 's', '2025-03-01T10:00:00.123Z'), true);
		run(memory, stamped('b', 't', '~not a time'), true);
		const [iso, text] = orderedOf(memory.serialize());
		expect(iso).toEqual([shortHash('s'), Date.parse('2025-03-01T10:00:00.123Z')]);
		expect(text).toEqual([shortHash('t'), '~not a time']);
		const after = restarted(memory);
		expect(after.modStampOf('t')).toBe('~not a time');
		expect(outcome(after, stamped('c', 's', '2025-03-01T10:00:00.122Z'), true)).toBe('outOfOrder');
		expect(outcome(after, stamped('d', 's', '2025-03-01T10:00:00.123Z'), true)).toBe('admitted');
		expect(after.serialize()).toBe(memory.serialize());
	});

	it('reads the form version 1 saved (an upgrade), skipping lines it cannot read, and saves what it read as version 2', () => {
		memory.mergeSaved(
			[
				'm1 0',
				'e\tnot-a-time\taaaaaaaaaa',
				`e\t${NOW}\tshort`,
				`e\t${NOW}`,
				`e\t${NOW}\tbbbbbbbbbbcc`,
				'c\tcccccccccc\tx\t~1',
				`c\tdddddddddd\t${NOW}\t"broken`,
				'o\tdddddddddd\t"broken',
				'o\teeeeeeeeee\t123',
				'w\t0\tx',
				'q\tunknown',
			].join('\n'),
			NOW,
		);
		expect(memory.size).toBe(1);
		expect(formOf(memory.serialize())).toMatchObject({ v: 2, events: [[NOW, 'bbbbbbbbbb']] });
		expect(outcome(memory, 'x')).toBe('admitted');
	});

	it('absorbs its own string without duplicating entries', () => {
		run(memory, 'case:1');
		memory.mergeSaved(memory.serialize(), NOW);
		expect(memory.size).toBe(1);
	});

	it.each([
		undefined,
		null,
		'text',
		`v3 0123abcd\n${NOW} aaaaaaaaaa\nlatest`,
		'w1 1 1 0123abcd\n\t"x"\naaaaaaaaaa0',
		{ deliveries: [[['k'], NOW]] },
	])('ignores saved data it cannot read: %p', (saved) => {
		expect(() => memory.mergeSaved(saved, NOW)).not.toThrow();
		expect(memory.size).toBe(0);
		expect(memory.recorded).toBe(false);
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
			memory.duplicateMemorySize = DUPLICATE_MEMORY_SIZE.max;
			run(memory, 'case:first', false, NOW + 59 * 60);
			for (let index = 0; index < 5000; index++)
				run(memory, `case:other-${index}`, false, NOW + 3600 + index * 20);
			const retryAt = NOW + 59 * 60 + RETENTION_SECONDS;
			expect(outcome(memory, 'case:first', false, retryAt)).toBe('duplicate');
			expect(outcome(restarted(memory, retryAt), 'case:first', false, retryAt)).toBe('duplicate');
		});

		it('forgets an event once its hour is more than 28 hours old', () => {
			const later = NOW + BUCKET_SECONDS + RETENTION_SECONDS;
			run(memory, 'case:old', false, NOW + 10);
			run(memory, 'case:new', false, later);
			expect(memory.size).toBe(1);
			expect(outcome(memory, 'case:old', false, later)).toBe('admitted');
		});

		it(`holds at most ${PROCESS_LIMIT.toLocaleString('en-US')} events in process memory, forgetting the oldest`, () => {
			// Without an expect per event, which would make this test 10 times slower.
			let refused = 0;
			for (let index = 0; index < PROCESS_LIMIT + 10; index++) {
				const now = NOW + Math.floor(index / 10);
				const admission = admit(memory, `case:${index}`, false, now);
				if (admission.outcome === 'admitted') admission.claim.start(now);
				else refused++;
			}
			expect(refused).toBe(0);
			expect(memory.size).toBe(PROCESS_LIMIT);
			expect(outcome(memory, 'case:9', false, NOW + PROCESS_LIMIT)).toBe('admitted');
			expect(outcome(memory, 'case:10', false, NOW + PROCESS_LIMIT)).toBe('duplicate');
		});
	});

	describe('ordering by modStamp', () => {
		const at = (minute: number) => `2025-03-01T10:${String(minute).padStart(2, '0')}:00.000Z`;
		const caseChange = (key: string, minute: number, status = `status-${minute}`) =>
			change(key, { subject: 'case:c-1', modStamp: at(minute), status });
		/** What is known of case c-1: its status and modStamp. */
		const known = () => [memory.statusOf('case:c-1'), memory.modStampOf('case:c-1')];

		it('drops an event older than one already started for the same subject', () => {
			run(memory, caseChange('e2', 2), true);
			expect(outcome(memory, caseChange('e1', 1), true)).toBe('outOfOrder');
		});

		it('admits an equal or newer modStamp, and other subjects', () => {
			run(memory, caseChange('e2', 2), true);
			expect(outcome(memory, caseChange('e2b', 2), true)).toBe('admitted');
			expect(outcome(memory, caseChange('e3', 3), true)).toBe('admitted');
			expect(outcome(memory, stamped('e0', 'case:c-2', at(0)), true)).toBe('admitted');
			expect(outcome(memory, 'without a subject', true)).toBe('admitted');
		});

		it('keeps older events when dropping is off, without losing the newest modStamp or its status', () => {
			run(memory, caseChange('e2', 2));
			run(memory, caseChange('e1', 1));
			expect(known()).toEqual(['status-2', at(2)]);
			expect(outcome(memory, caseChange('e0', 0), true)).toBe('outOfOrder');
		});

		it('learns what a claim carries only once it has started: a released claim leaves the subject as it was', () => {
			const concurrent = claim(memory, caseChange('e2', 2), true);
			expect(outcome(memory, caseChange('e1', 1), true)).toBe('admitted');
			concurrent.release();
			expect(memory.modStampOf('case:c-1')).toBeUndefined();
			expect(memory.statusOf('case:c-1')).toBeUndefined();
		});

		it('moves what is known of a subject forward only', () => {
			memory.rememberStatus('case:c-1', 'B', at(5));
			memory.rememberStatus('case:c-1', 'A', at(4));
			expect(known()).toEqual(['B', at(5)]);
			memory.rememberStatus('case:c-1', 'C');
			expect(known()).toEqual(['C', at(5)]);
			memory.rememberStatus('case:c-1', 'D', at(6));
			expect(known()).toEqual(['D', at(6)]);
			memory.rememberStatus('case:c-1', 'E', at(6));
			expect(known()).toEqual(['E', at(6)]);
		});

		it('does not drop when a modStamp is not a timestamp', () => {
			run(memory, stamped('a', 's', 'yesterday'), true);
			expect(outcome(memory, stamped('b', 's', at(1)), true)).toBe('admitted');
		});

		it('keeps the newest modStamp across a restart', () => {
			run(memory, caseChange('e2', 2), true);
			expect(outcome(restarted(memory), caseChange('e1', 1), true)).toBe('outOfOrder');
		});

		it('saves the modStamp of a subject once any change of it was checked with Ignore Older Events, and only then', () => {
			run(memory, caseChange('e1', 1));
			run(memory, caseChange('e0', 0));
			memory.remember(caseChange('r1', 1), NOW);
			expect(orderedOf(memory.serialize())).toEqual([]);
			run(memory, caseChange('e1b', 1), true);
			run(memory, caseChange('e2', 2));
			expect(outcome(restarted(memory), caseChange('e1c', 1), true)).toBe('outOfOrder');
			// A string saved before that brings an older modStamp of a subject checked elsewhere.
			const other = new TriggerMemory();
			run(other, stamped('k', 'case:c-2', at(0)), true);
			memory.rememberStatus('case:c-2', undefined, at(3));
			memory.mergeSaved(throughJson(other), NOW);
			expect(outcome(restarted(memory), stamped('k2', 'case:c-2', at(2)), true)).toBe('outOfOrder');
		});
	});

	describe("the watchdog's runs (covers)", () => {
		const at = (second: number) => new Date(Date.parse('2025-03-01T10:00:00.000Z') + second * 1000);
		const complete = (modStamp: Date, key = `case:c-1@${modStamp.toISOString()}`) =>
			change(key, { subject: 'case:c-1', status: 'complete', modStamp: modStamp.toISOString() });

		it('calls a later delivery of a change the watchdog ran, with an older or equal modStamp, a duplicate', () => {
			memory.remember(complete(at(10)), NOW, { fromWatchdog: true });
			expect(outcome(memory, complete(at(5)))).toBe('duplicate');
			expect(outcome(memory, complete(at(10), 'other-key'))).toBe('duplicate');
		});

		it('admits a newer change to the same status, another status, and another subject', () => {
			memory.remember(complete(at(10)), NOW, { fromWatchdog: true });
			const older = complete(at(5));
			expect(outcome(memory, complete(at(11)))).toBe('admitted');
			expect(outcome(memory, { ...older, eventKey: 'other', status: 'pending' })).toBe('admitted');
			expect(outcome(memory, { ...older, eventKey: 'c-2', subject: 'case:c-2' })).toBe('admitted');
		});

		it('covers nothing for a delivered change (only for one the watchdog ran)', () => {
			memory.remember(complete(at(10)), NOW);
			expect(outcome(memory, complete(at(5)))).toBe('admitted');
			expect(orderedOf(memory.serialize())).toEqual([]);
			memory.remember({ ...complete(at(10)), modStamp: undefined }, NOW, { fromWatchdog: true });
			expect(coversOf(memory.serialize())).toEqual([]);
		});

		it('forgets a run once its hour is more than 28 hours old: a delivery of it after that runs', () => {
			memory.remember(complete(at(10)), NOW, { fromWatchdog: true });
			const forgotten = NOW + BUCKET_SECONDS + RETENTION_SECONDS;
			memory.mergeSaved(undefined, forgotten - 1);
			expect(outcome(memory, complete(at(5)), false, forgotten - 1)).toBe('duplicate');
			memory.mergeSaved(undefined, forgotten);
			expect(outcome(memory, complete(at(5)), false, forgotten)).toBe('admitted');
			expect(coversOf(memory.serialize())).toEqual([]);
		});

		it('saves the newest Duplicate Memory Size runs', () => {
			for (let index = 0; index <= DUPLICATE_MEMORY_SIZE.default; index++)
				memory.remember({ ...complete(at(index)), subject: `case:${index}` }, NOW, {
					fromWatchdog: true,
				});
			const saved = coversOf(memory.serialize());
			expect(saved).toHaveLength(DUPLICATE_MEMORY_SIZE.default);
			expect(saved[0][0]).toBe(shortHash(`cover|case:1|complete`));
		});

		it('keeps covers across a restart, the newest modStamp of each', () => {
			memory.remember(complete(at(10)), NOW, { fromWatchdog: true });
			memory.remember(complete(at(3)), NOW, { fromWatchdog: true });
			expect(coversOf(memory.serialize())).toHaveLength(1);
			expect(outcome(restarted(memory), complete(at(9)))).toBe('duplicate');
		});
	});

	describe("the watchdog's record", () => {
		it("saves every subject's status while it has a record: the distinct statuses once, then each subject's hash and index", () => {
			memory.recordStatuses([
				['case:1', '["pending",null]'],
				['casedata:1', '["s",null]'],
				['case:2', '["pending",null]'],
			]);
			memory.rememberStatus('case:3', undefined, '2025-01-01T00:00:00.000Z', true);
			const saved = throughJson(memory);
			const form = formOf(saved);
			expect(form.recorded).toBe(true);
			expect(form.statuses).toEqual(['["pending",null]', '["s",null]']);
			expect(form.subjects).toEqual([
				[shortHash('case:1'), 0],
				[shortHash('casedata:1'), 1],
				[shortHash('case:2'), 0],
			]);
			expect(form.ordered).toEqual([[shortHash('case:3'), Date.parse('2025-01-01T00:00:00.000Z')]]);
			const after = restarted(memory);
			expect(after.recorded).toBe(true);
			expect(after.statusOf('case:2')).toBe('["pending",null]');
			expect(after.statusOf('casedata:1')).toBe('["s",null]');
		});

		it('reads back what it saved, statuses with the modStamp they were known at, and 37 statuses as two digits each', () => {
			const statuses = Array.from({ length: 37 }, (_, index): [string, string, string] => [
				`case:${index}`,
				`status-${index}`,
				new Date((NOW + index) * 1000).toISOString(),
			]);
			memory.recordStatuses(statuses);
			const after = restarted(memory);
			for (const [subject, status] of statuses) expect(after.statusOf(subject)).toBe(status);
			expect(after.serialize()).toBe(memory.serialize());
			expect(orderedOf(memory.serialize())).toEqual([]);
		});

		it('keeps a status it knows over a saved one that comes without its modStamp', () => {
			memory.recordStatuses([['case:1', 'A']]);
			memory.rememberStatus('case:1', 'B');
			const hash = shortHash('case:1');
			const modStamp = `~${Date.parse('2025-01-01T00:00:00.000Z').toString(36)}`;
			// Saved at A; a line of an unknown kind and an unreadable `t` line give A no modStamp.
			memory.mergeSaved(
				`m1 1\nd\tA\nw\t1\t${hash}0\nq\t${hash}\t${modStamp}\nt\t${hash}\t"broken`,
				NOW,
			);
			expect(memory.statusOf('case:1')).toBe('B');
		});

		it('keeps a status whose IDs hold a tab, a newline or a backslash as it was', () => {
			const status = caseStatusOf({ caseStatusId: 'a\tb\\tc', secondaryCaseStatusId: 'd\ne' });
			memory.recordStatuses([['case:1', status]]);
			expect(restarted(memory).statusOf('case:1')).toBe(status);
		});

		it('starts from nothing when the record is dropped (a user activates again)', () => {
			memory.recordStatuses([['case:1', 'A']]);
			run(memory, 'case:1@x');
			memory.dropRecord();
			expect(memory.recorded).toBe(false);
			expect(memory.statusOf('case:1')).toBeUndefined();
			expect(formOf(memory.serialize())).toMatchObject({ recorded: false, subjects: [] });
			// Events are kept: copies of them are still duplicates.
			expect(outcome(memory, 'case:1@x')).toBe('duplicate');
		});
	});
});

describe('the saved form', () => {
	/** `count` events, one every 20 seconds, the newest last. */
	const memoryWith = (count: number, dropOlder = false, size?: number) => {
		const memory = new TriggerMemory();
		memory.duplicateMemorySize = size ?? DUPLICATE_MEMORY_SIZE.default;
		for (let index = 0; index < count; index++) {
			const modStamp = new Date((NOW + index) * 1000).toISOString();
			const event = stamped(`case:${index}`, `case:case-${index}`, modStamp);
			run(memory, event, dropOlder, NOW + index * 20);
		}
		return memory;
	};
	/** The length of the saved string as n8n stores it, in JSON. */
	const savedLength = (memory: TriggerMemory) => JSON.stringify(throughJson(memory)).length;

	it('holds the newest Duplicate Memory Size events, 10 bytes each (default 100: about 1 KB); process memory holds them all', () => {
		const memory = memoryWith(3000);
		expect(memory.size).toBe(3000);
		expect(savedHashes(throughJson(memory))).toHaveLength(DUPLICATE_MEMORY_SIZE.default);
		expect(savedLength(memory)).toBeLessThan(1100);
		const larger = memoryWith(3000, false, 1000);
		expect(savedHashes(throughJson(larger))).toHaveLength(1000);
		expect(savedLength(larger)).toBeLessThan(10_200);
		// With Ignore Older Events it also holds the newest subjects' modStamps, about 30 bytes each in JSON
		// (version 1's base-36 lines: about 26; 4,175 bytes in all against 3,650, accepted for plain JSON).
		const withOrdering = memoryWith(3000, true);
		expect(orderedOf(withOrdering.serialize())).toHaveLength(DUPLICATE_MEMORY_SIZE.default);
		expect(savedLength(withOrdering)).toBeLessThan(4300);
	});

	it('after a restart, copies and retries of the saved events are duplicates; older ones were only in process memory', () => {
		const before = memoryWith(3000, false, 1000);
		const later = NOW + 3000 * 20;
		const after = restarted(before, later);
		const oldestSaved = 3000 - 1000;
		expect(outcome(after, 'case:2999', false, later)).toBe('duplicate');
		expect(outcome(after, `case:${oldestSaved}`, false, later)).toBe('duplicate');
		expect(outcome(after, `case:${oldestSaved - 1}`, false, later)).toBe('admitted');
		expect(outcome(before, 'case:0', false, later)).toBe('duplicate');
	});

	it('follows a change of Duplicate Memory Size', () => {
		const memory = memoryWith(300, false, 1000);
		expect(savedHashes(memory.serialize())).toHaveLength(300);
		memory.duplicateMemorySize = 100;
		expect(savedHashes(memory.serialize())).toHaveLength(100);
	});

	it('keeps the modStamps of subjects checked with Ignore Older Events, the newest ones', () => {
		const memory = new TriggerMemory();
		const newer = '2025-01-02T00:00:00.000Z';
		for (let index = 0; index < 105; index++)
			run(memory, stamped(`checked:${index}`, `checked-${index}`, newer), true);
		run(memory, stamped('unchecked', 'unchecked', newer));
		expect(orderedOf(memory.serialize())).toHaveLength(DUPLICATE_MEMORY_SIZE.default);
		const after = restarted(memory);
		const older = (subject: string) =>
			stamped(`older:${subject}`, subject, '2025-01-01T00:00:00.000Z');
		expect(outcome(after, older('checked-104'), true)).toBe('outOfOrder');
		expect(outcome(after, older('checked-0'), true)).toBe('admitted');
		expect(outcome(after, older('unchecked'), true)).toBe('admitted');
		// In process memory every subject's modStamp is kept, checked or not.
		expect(outcome(memory, older('unchecked'), true)).toBe('outOfOrder');
	});
});

describe('memoryOf', () => {
	it('gives one memory per workflow and node in the process', () => {
		const first = memoryOf('workflow-a:node-1');
		expect(memoryOf('workflow-a:node-1')).toBe(first);
		expect(memoryOf('workflow-b:node-1')).not.toBe(first);
		expect(memoryOf('workflow-a:node-2')).not.toBe(first);
	});
});
