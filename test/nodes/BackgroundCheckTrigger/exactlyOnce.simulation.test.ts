/* eslint-disable @n8n/community-nodes/no-restricted-globals, no-console -- repository tooling: runs in Node.js, never inside n8n */
/**
 * Exactly once at every crash point: a deterministic simulation of one n8n process (regular mode, as n8n
 * 2.8.4 and 2.41.1 run a webhook and a trigger; docs/trigger-state.md names the source of each step), the
 * provider (retries, copies, both delivery systems) and the API (status changes, edits that move modStamp
 * only), with the trigger's real memory (memory.ts) taking the decisions the node takes, in the node's order.
 * n8n's Update of the package is modelled too (once between two starts of n8n): deliveries and executions
 * then run the new version's code, with a memory of its own, while the watchdog of the version that
 * activated the workflow keeps looking with its memory (and n8n saving it when it emits) until n8n restarts.
 * fast-check generates schedules, and n8n is stopped at any step of any of them; then n8n runs until the
 * provider has an answer for everything and the watchdog has looked once more.
 *
 * Checked for every status change: executions started for it = 1, where started counts executions n8n
 * marked crashed (n8n died while it ran: the provider's retry or the next look may start it once more,
 * counted apart), and not those whose first step output nothing (the change ran, or was being started, in
 * another execution; counted apart). Counted apart as well: a change the watchdog found together with a
 * later change of the same subject to the same status (collapsed: the watchdog sees one state per look),
 * and, in the schedules with an Update, a change with an execution in flight at the Update or inserted after
 * it, before n8n stopped (two versions' memories, which share nothing, in one process).
 *
 * SIM_RUNS sets the number of schedules (20,000, and half as many with Updates, in npm test);
 * `npm run soak:simulation` runs ten times as many.
 */
import * as fc from 'fast-check';

import { caseStatusOf, changeOf } from '../../../nodes/BackgroundCheckTrigger/event';
import {
	TriggerMemory,
	type Change,
	type Claim,
} from '../../../nodes/BackgroundCheckTrigger/memory';

const RUNS = Math.max(1, Number(process.env.SIM_RUNS) || 20_000);
const SEED = process.env.SIM_SEED === undefined ? undefined : Number(process.env.SIM_SEED);

interface StatusChange {
	change: Change;
	caseId: string;
	status: string;
	modStamp: string;
	acknowledged: boolean;
	attempts: number;
}

interface Row {
	id: number;
	change: Change;
	found: boolean;
	status: 'new' | 'running' | 'success' | 'crashed';
	/** Its first step output nothing: the change ran, or was being started, in another execution. */
	stopped?: boolean;
	/** The step order of its insert, and of the moment it settled: ended and, for a delivery's, answered. */
	insertedAs: number;
	settledAs?: number;
	ended?: boolean;
	answered?: boolean;
	/** A delivery's: its claim's token, in the item n8n runs it with. */
	token?: string;
	/** Its execution's save (or its look's) was written while a delivery's save was on its way: see `raced`. */
	raced?: boolean;
}

/** One execution n8n runs: the trigger's first step, then the end that saves static data. */
interface Execution {
	row: Row;
	loaded: string | undefined;
	/** The memory its first step handed to static data: n8n serializes it when it writes, at the end. */
	saves?: TriggerMemory;
	step: 'execute' | 'end';
	onDone?: () => void;
}

/** One delivery request, at its next step. */
interface Request {
	target: StatusChange;
	/** The memory of the package version that handles it: n8n resolves the node when it has loaded the workflow. */
	memory?: TriggerMemory;
	step:
		| 'load'
		| 'webhook'
		| 'turn'
		| 'insert'
		| 'running'
		| 'answerRead'
		| 'save'
		| 'commit'
		| 'answer';
	loaded?: string;
	claim?: Claim;
	/** Releases this request's turn to save (memory.ts takeTurn), once n8n has answered. */
	releaseTurn?: () => void;
	/** Called once n8n has answered (after its save): the execution's first step waits for it. */
	answered?: () => void;
	/** The memory the node handed to static data: n8n serializes it when it writes (activation.ts save). */
	saves?: TriggerMemory;
	/**
	 * The string n8n serialized, on its way to the database: concurrent requests' saves may arrive there in
	 * another order than they were serialized (PostgreSQL gives each its own connection).
	 */
	written?: string;
	row?: Row;
	outcome?: 'started' | 'acknowledged';
	failRun?: boolean;
}

const CASES = ['c1', 'c2'];
const STATUSES = ['A', 'B', 'C', 'D'];

class Simulation {
	now = 1_000_000;
	stamp = 0;
	readonly api = new Map<string, { status: string; modStamp: string }>();
	readonly changes: StatusChange[] = [];
	db: string | undefined;
	readonly rows: Row[] = [];
	/** The memory of the package version n8n runs deliveries and executions with. */
	memory = new TriggerMemory();
	/** The memory of the version that activated the workflow: its watchdog's, and its static data. */
	watchdog = { memory: this.memory, staticData: undefined as string | undefined };
	requests: Request[] = [];
	executions: Execution[] = [];
	up = true;
	recorded = false;
	/** Step order: inserts, first steps, settled rows, Updates and stops. */
	order = 0;
	/** From each Update until n8n stops: two versions' memories in one process. */
	readonly afterUpdates: Array<{ from: number; to?: number }> = [];

	constructor() {
		for (const caseId of CASES)
			this.api.set(caseId, { status: this.statusOf(STATUSES[0]), modStamp: this.nextStamp() });
		this.restartWatchdog('activate');
	}

	statusOf = (name: string) => caseStatusOf({ caseStatusId: name, secondaryCaseStatusId: null });

	nextStamp(): string {
		this.stamp += 1000;
		return new Date(Date.UTC(2026, 0, 1) + this.stamp).toISOString();
	}

	eventOf(caseId: string, status: string, modStamp: string) {
		return {
			event: 'case.statuschange',
			eventObject: {
				id: caseId,
				caseStatusId: JSON.parse(status)[0] as string,
				secondaryCaseStatusId: null,
				modStamp,
			},
		};
	}

	/** The API: a case moves to the next status (the provider will deliver it) or is only edited. */
	changeCase(caseIndex: number, statusOnly: boolean): void {
		const caseId = CASES[caseIndex % CASES.length];
		const current = this.api.get(caseId)!;
		const modStamp = this.nextStamp();
		if (statusOnly) {
			this.api.set(caseId, { ...current, modStamp });
			return;
		}
		const position = STATUSES.findIndex((name) => this.statusOf(name) === current.status);
		if (position === STATUSES.length - 1) return;
		const status = this.statusOf(STATUSES[position + 1]);
		this.api.set(caseId, { status, modStamp });
		this.changes.push({
			change: changeOf(this.eventOf(caseId, status, modStamp)),
			caseId,
			status,
			modStamp,
			acknowledged: false,
			attempts: 0,
		});
	}

	/** The provider sends one attempt (or a copy) of a change; n8n down: the attempt fails. */
	deliver(index: number, failRun = false): void {
		if (this.changes.length === 0) return;
		const target = this.changes[index % this.changes.length];
		target.attempts++;
		if (!this.up) return;
		this.requests.push({ target, step: 'load', failRun });
	}

	/** Advances one request by one step (n8n's LiveWebhooks.executeWebhook, then WorkflowRunner.run). */
	stepRequest(index: number): void {
		if (!this.up || this.requests.length === 0) return;
		const request = this.requests[index % this.requests.length];
		switch (request.step) {
			case 'load':
				request.loaded = this.db;
				request.memory = this.memory;
				request.memory!.absorb(request.loaded, this.now);
				request.step = 'webhook';
				return;
			case 'webhook': {
				const admission = request.memory!.admit(request.target.change, false, this.now);
				if (admission.outcome === 'busy') return; // waits for the copy being started
				if (admission.outcome !== 'admitted') {
					request.outcome = 'acknowledged';
					if (request.loaded === request.memory!.serialize()) request.step = 'answer';
					else {
						request.saves = request.memory;
						request.step = 'turn';
					}
					return;
				}
				request.claim = admission.claim;
				request.step = 'turn';
				return;
			}
			case 'turn': {
				const turn = request.memory!.takeTurn(this.now);
				if ('busy' in turn) {
					// A delivery that runs waits for the request saving now; a duplicate leaves its repair to it.
					if (request.claim) return;
					request.saves = undefined;
					request.step = 'answer';
					return;
				}
				request.releaseTurn = turn.release;
				request.step = request.claim ? 'insert' : 'save';
				return;
			}
			case 'insert':
				request.row = this.insert(request.target.change, false);
				request.row.token = request.claim!.token;
				request.step = 'running';
				return;
			case 'running':
				if (request.failRun) {
					// run() threw after the insert (n8n's database closing in a stop): 500, no answer read, no save.
					request.claim!.release();
					request.releaseTurn!();
					this.finish(request);
					this.crash();
					return;
				}
				this.startExecution(request.row!);
				request.step = 'answerRead';
				return;
			case 'answerRead':
				request.answered = request.claim!.start(this.now);
				request.saves = request.memory;
				request.outcome = 'started';
				request.step = 'save';
				return;
			case 'save':
				request.written = request.saves?.serialize();
				request.step = 'commit';
				return;
			case 'commit':
				if (request.written !== undefined) this.db = request.written;
				request.step = 'answer';
				return;
			case 'answer':
				request.releaseTurn?.();
				request.answered?.();
				if (request.row) this.settle(request.row, 'answered');
				request.target.acknowledged = true;
				this.finish(request);
		}
	}

	/** A delivery's save written and not yet in the database: a save landing meanwhile may be overwritten. */
	deliverySaveOnItsWay(): boolean {
		return this.requests.some(({ step, written }) => step === 'commit' && written !== undefined);
	}

	/** Its execution has ended and, for a delivery's, n8n has answered the delivery: nothing of it is in flight. */
	settle(row: Row, step: 'ended' | 'answered'): void {
		row[step] = true;
		if (row.ended && (row.found || row.answered)) row.settledAs = this.order++;
	}

	finish(request: Request): void {
		this.requests = this.requests.filter((other) => other !== request);
	}

	insert(change: Change, found: boolean): Row {
		const row: Row = {
			id: this.rows.length,
			change,
			found,
			status: 'new',
			insertedAs: this.order++,
		};
		this.rows.push(row);
		return row;
	}

	/** runMainProcess: static data read for the execution, the row set running, the run started. */
	startExecution(row: Row, onDone?: () => void): void {
		row.status = 'running';
		this.executions.push({ row, loaded: this.db, step: 'execute', onDone });
	}

	/**
	 * Advances one execution: the trigger's first step (latestCase.ts), in the package version n8n has loaded
	 * when it runs the step (WorkflowExecute.runNode looks the node up then), then its end (static data saved).
	 */
	stepExecution(index: number): void {
		if (!this.up || this.executions.length === 0) return;
		const execution = this.executions[index % this.executions.length];
		if (execution.step === 'execute') {
			const { memory } = this;
			const { row } = execution;
			// latestCase.ts waits for the answer of the delivery that started it in this memory.
			if (memory.answerOf(row.change)) return;
			memory.absorb(execution.loaded, this.now, { executionCopy: true });
			const origin = row.found
				? memory.originOfFound(row.change)
				: memory.originOfDelivered(row.change, row.token, this.now);
			row.stopped = origin === 'known';
			const news = !row.stopped && memory.record(row.change, this.now, { found: row.found });
			if ((news || origin !== 'ours') && memory.readsSavedMemory) execution.saves = memory;
			execution.step = 'end';
			return;
		}
		if (execution.saves) {
			this.db = execution.saves.serialize();
			if (this.deliverySaveOnItsWay()) execution.row.raced = true;
		}
		execution.row.status = 'success';
		this.settle(execution.row, 'ended');
		this.executions = this.executions.filter((other) => other !== execution);
		execution.onDone?.();
	}

	/** One look of the watchdog (watchdogSchedule.ts lookOnce), its emits included. */
	look(): void {
		if (!this.up || !this.recorded) return;
		// The trigger's static data is the one n8n loaded when it activated the workflow.
		const { memory } = this.watchdog;
		memory.absorb(this.watchdog.staticData, this.now);
		const runs: Array<{ change: Change; claim: Claim }> = [];
		for (const [caseId, current] of this.api) {
			const subject = `case:${caseId}`;
			if (memory.statusOf(subject) === current.status) continue;
			const change = changeOf(this.eventOf(caseId, current.status, current.modStamp));
			const admission = memory.admit(change, false, this.now, { found: true });
			if (admission.outcome === 'busy') continue;
			if (admission.outcome !== 'admitted') {
				memory.learn(subject, change.status, change.modStamp);
				continue;
			}
			runs.push({ change, claim: admission.claim });
		}
		// n8n saves the trigger's static data at emit, then inserts and runs the execution.
		const copy = memory.serialize();
		for (const { change, claim } of runs) {
			this.db = this.watchdog.staticData = copy;
			const row = this.insert(change, true);
			row.raced = this.deliverySaveOnItsWay();
			this.startExecution(row, () => {
				memory.record(change, this.now, { found: true });
				claim.release();
			});
		}
	}

	/**
	 * n8n's Update of the package (community-packages.service.ts: the package unloaded and loaded again, no
	 * workflow activated again): the next requests and executions run the new version, with a new memory.
	 */
	update(): void {
		// One Update per run of n8n: each further one adds a version whose memory the others cannot see either.
		if (!this.up || this.memory !== this.watchdog.memory) return;
		this.afterUpdates.push({ from: this.order++ });
		this.memory = new TriggerMemory();
	}

	/** Activation (activation.ts checkExists, then watchdogSchedule.ts): what the process holds is saved. */
	restartWatchdog(mode: 'activate' | 'init'): void {
		this.memory.absorb(this.db, this.now);
		if (this.db !== this.memory.serialize()) this.db = this.memory.serialize();
		if (mode === 'activate') this.memory.dropRecord();
		if (!this.memory.recorded) {
			this.memory.recordActivation(
				[...this.api].map(([caseId, { status, modStamp }]) => [`case:${caseId}`, status, modStamp]),
			);
			this.db = this.memory.serialize();
		}
		this.watchdog = { memory: this.memory, staticData: this.db };
		this.recorded = true;
	}

	/** n8n dies: what it held in memory and every request and execution in flight are gone. */
	crash(): void {
		if (!this.up) return;
		this.up = false;
		for (const span of this.afterUpdates) span.to ??= this.order++;
		this.requests = [];
		this.executions = [];
		this.memory = new TriggerMemory();
	}

	/**
	 * n8n starts: running rows are marked crashed; rows left new are run, or marked crashed too when n8n's
	 * event log shows them begun (`newRowsCrashed`). n8n starts those runs without waiting for them and
	 * then activates the workflows: their first step may come before the activation (`recoveredFirst`) or
	 * after it.
	 */
	start(newRowsCrashed = false, recoveredFirst = false): void {
		if (this.up) return;
		this.up = true;
		for (const row of this.rows)
			if (row.status === 'running' || (newRowsCrashed && row.status === 'new'))
				row.status = 'crashed';
		for (const row of this.rows.filter((candidate) => candidate.status === 'new')) {
			this.startExecution(row);
			if (recoveredFirst) this.stepExecution(this.executions.length - 1);
		}
		this.restartWatchdog('init');
	}

	/** n8n stays up until every change has an answer, every execution has ended, and one more look. */
	drain(): void {
		this.start();
		for (const request of this.requests) request.failRun = false;
		for (let round = 0; round < 50; round++) {
			for (let index = 0; index < this.changes.length; index++)
				if (!this.changes[index].acknowledged) this.deliver(index);
			for (let steps = 0; this.requests.length > 0 || this.executions.length > 0; steps++) {
				if (steps > 10_000) throw new Error('the simulation does not settle');
				if (this.executions.length > 0) this.stepExecution(0);
				for (let index = this.requests.length - 1; index >= 0; index--) this.stepRequest(index);
			}
			if (this.changes.every(({ acknowledged }) => acknowledged)) break;
		}
		this.look();
		while (this.executions.length > 0) this.stepExecution(0);
	}

	/** Executions started for each change; the watchdog's are the newest change of the subject to its status. */
	tally() {
		const byChange = new Map<StatusChange, Row[]>();
		for (const target of this.changes) byChange.set(target, []);
		for (const row of this.rows) {
			const target = row.found
				? [...this.changes]
						.reverse()
						.find(
							({ change }) =>
								change.subject === row.change.subject &&
								change.status === row.change.status &&
								Date.parse(change.modStamp!) <= Date.parse(row.change.modStamp!),
						)
				: this.changes.find(({ change }) => change.key === row.change.key);
			if (target) byChange.get(target)!.push(row);
		}
		return byChange;
	}
}

type Command =
	| { kind: 'change'; caseIndex: number; statusOnly: boolean }
	| { kind: 'deliver'; index: number; failRun: boolean }
	| { kind: 'request'; index: number }
	| { kind: 'execution'; index: number }
	| { kind: 'look' }
	| { kind: 'update' }
	| { kind: 'crash' }
	| { kind: 'start'; newRowsCrashed: boolean; recoveredFirst: boolean };

const withoutUpdate = [
	{
		weight: 3,
		arbitrary: fc.record({
			kind: fc.constant('change' as const),
			caseIndex: fc.nat(3),
			statusOnly: fc.boolean(),
		}),
	},
	{
		weight: 4,
		arbitrary: fc.record({
			kind: fc.constant('deliver' as const),
			index: fc.nat(20),
			failRun: fc.constant(false),
		}),
	},
	{
		weight: 1,
		arbitrary: fc.record({
			kind: fc.constant('deliver' as const),
			index: fc.nat(20),
			failRun: fc.constant(true),
		}),
	},
	{ weight: 8, arbitrary: fc.record({ kind: fc.constant('request' as const), index: fc.nat(20) }) },
	{
		weight: 4,
		arbitrary: fc.record({ kind: fc.constant('execution' as const), index: fc.nat(20) }),
	},
	{ weight: 2, arbitrary: fc.constant({ kind: 'look' as const }) },
	{ weight: 1, arbitrary: fc.constant({ kind: 'crash' as const }) },
	{
		weight: 1,
		arbitrary: fc.record({
			kind: fc.constant('start' as const),
			newRowsCrashed: fc.boolean(),
			recoveredFirst: fc.boolean(),
		}),
	},
];
/** Schedules of up to 80 commands (fast-check's default sizes stay far shorter, and miss most interleavings). */
const schedules = (update: boolean) =>
	fc.array(
		fc.oneof(
			...withoutUpdate,
			...(update ? [{ weight: 1, arbitrary: fc.constant({ kind: 'update' as const }) }] : []),
		),
		{ minLength: 1, maxLength: 80, size: 'max' },
	);

function run(commands: Command[]): Simulation {
	const simulation = new Simulation();
	for (const next of commands) {
		simulation.now += 0.5;
		switch (next.kind) {
			case 'change':
				simulation.changeCase(next.caseIndex, next.statusOnly);
				break;
			case 'deliver':
				simulation.deliver(next.index, next.failRun);
				break;
			case 'request':
				simulation.stepRequest(next.index);
				break;
			case 'execution':
				simulation.stepExecution(next.index);
				break;
			case 'look':
				simulation.look();
				break;
			case 'update':
				simulation.update();
				break;
			case 'crash':
				simulation.crash();
				break;
			case 'start':
				simulation.start(next.newRowsCrashed, next.recoveredFirst);
		}
	}
	simulation.drain();
	return simulation;
}

interface Counts {
	changes: number;
	once: number;
	crashedThenRetried: number;
	collapsed: number;
	/**
	 * Lost or started twice, with an execution in flight when n8n's Update came or inserted after it, before n8n
	 * stopped: two versions' memories, which share nothing, in one process (docs/trigger-state.md: left open;
	 * restart n8n after updating).
	 */
	afterUpdate: number;
	/**
	 * Lost or started twice, with an execution the watchdog or n8n's start-up ran whose save (or its look's) was
	 * written while a delivery's save was on its way to the database: the delivery's, older, may land last
	 * (docs/trigger-state.md: left open).
	 */
	raced: number;
	/** Executions whose first step output nothing: the change ran, or was being started, in another one. */
	stoppedAtTrigger: number;
	lost: number;
	doubled: number;
}

const noCounts = (): Counts => ({
	changes: 0,
	once: 0,
	crashedThenRetried: 0,
	collapsed: 0,
	afterUpdate: 0,
	raced: 0,
	stoppedAtTrigger: 0,
	lost: 0,
	doubled: 0,
});

function count(
	simulation: Simulation,
	counts: Counts,
): Array<{ change: StatusChange; rows: Row[] }> {
	const wrong: Array<{ change: StatusChange; rows: Row[] }> = [];
	for (const [change, all] of simulation.tally()) {
		counts.changes++;
		const rows = all.filter(({ stopped }) => !stopped);
		counts.stoppedAtTrigger += all.length - rows.length;
		const crashed = rows.filter(({ status }) => status === 'crashed').length;
		if (rows.length === 1) counts.once++;
		// n8n died while it ran (each time, when it died again): the retry or the next look ran it again.
		else if (rows.length >= 2 && rows.length - crashed <= 1) counts.crashedThenRetried++;
		else if (rows.length === 0 && collapsedInto(simulation, change)) counts.collapsed++;
		else if (all.some((row) => simulation.afterUpdates.some((span) => touches(row, span))))
			counts.afterUpdate++;
		else if (all.some(({ raced }) => raced)) counts.raced++;
		else {
			if (rows.length === 0) counts.lost++;
			else counts.doubled++;
			wrong.push({ change, rows });
		}
	}
	return wrong;
}

/** In flight when the Update came (not settled yet), or inserted before n8n stopped after it. */
const touches = ({ insertedAs, settledAs }: Row, { from, to }: { from: number; to?: number }) =>
	insertedAs < from
		? settledAs === undefined || settledAs > from
		: to === undefined || insertedAs < to;

/** A later change of the same subject to the same status, which the watchdog ran with a newer modStamp. */
function collapsedInto(simulation: Simulation, target: StatusChange): boolean {
	return simulation.rows.some(
		(row) =>
			!row.stopped &&
			row.found &&
			row.change.subject === target.change.subject &&
			row.change.status === target.change.status &&
			Date.parse(row.change.modStamp!) >= Date.parse(target.modStamp),
	);
}

describe('exactly once at every crash point (simulated n8n, provider and API)', () => {
	const property = (update: boolean, runs: number) => {
		const counts = noCounts();
		fc.assert(
			fc.property(schedules(update), (commands) => {
				const wrong = count(run(commands), counts);
				if (wrong.length > 0) console.log(JSON.stringify(wrong, null, 1));
				return wrong.length === 0;
			}),
			{ numRuns: runs, ...(SEED === undefined ? {} : { seed: SEED }) },
		);
		// The figures a soak prints; in npm test they show the schedules reached every outcome counted apart.
		console.log(`simulation${update ? ' with Updates' : ''}: ${JSON.stringify(counts)}`);
		return counts;
	};

	it(`starts each status change once in ${RUNS.toLocaleString('en-US')} generated schedules with n8n stopped at any step`, () => {
		const counts = property(false, RUNS);
		expect(counts.lost + counts.doubled + counts.afterUpdate).toBe(0);
		// The schedules reached the outcomes counted apart: a crashed execution run again by a retry, and an
		// execution stopped at the trigger (a row n8n ran at its start, for a change a retry was starting).
		expect(counts.once).toBeGreaterThan(0);
		if (RUNS >= 1_000)
			expect(counts.crashedThenRetried * counts.stoppedAtTrigger).toBeGreaterThan(0);
	});

	it(`with n8n's Update of the package in the schedules: every change outside the Update's moment once (${Math.ceil(RUNS / 2).toLocaleString('en-US')} schedules)`, () => {
		const counts = property(true, Math.ceil(RUNS / 2));
		expect(counts.lost + counts.doubled).toBe(0);
	});

	/** A change delivered, n8n stopped after the execution row exists and before the answer was read. */
	const stoppedAfterInsert: Command[] = [
		{ kind: 'change', caseIndex: 0, statusOnly: false },
		{ kind: 'deliver', index: 0, failRun: false },
		// Loaded, admitted, its turn to save taken, inserted.
		...Array.from({ length: 4 }, (): Command => ({ kind: 'request', index: 0 })),
		{ kind: 'crash' },
	];
	/** The statuses of the executions of the one change of `commands`. */
	const executionsOf = (commands: Command[]) => {
		const [[, rows]] = [...run(commands).tally()];
		return rows.map(({ status, stopped }) => (stopped ? 'stopped at the trigger' : status));
	};

	it('lets no execution end before n8n saved its event: stopped in between, it is crashed and the retry runs', () => {
		// The answer has been read; n8n would save, then answer. Without the first step's wait the execution
		// ends here, and the retry after the stop runs the event a second time.
		const request: Command = { kind: 'request', index: 0 };
		const execution: Command = { kind: 'execution', index: 0 };
		expect(
			executionsOf([
				...stoppedAfterInsert.slice(0, -1),
				request,
				request,
				execution,
				execution,
				{ kind: 'crash' },
			]),
		).toEqual(['crashed', 'success']);
	});

	it('reaches the crash points it claims to cover: a stop between insert and answer, and a failed run', () => {
		// n8n runs the row at its next start and the trigger's first step remembers it; the retry is a duplicate.
		expect(executionsOf(stoppedAfterInsert)).toEqual(['success']);
	});

	it('saves what an execution run at start-up remembered before n8n can stop again', () => {
		// The row is run at the next start before the activation read the saved memory: the execution does not
		// save (its process holds only the row's copy); the activation does, so a second stop loses nothing.
		expect(
			executionsOf([
				...stoppedAfterInsert,
				{ kind: 'start', newRowsCrashed: false, recoveredFirst: true },
				{ kind: 'execution', index: 0 },
				{ kind: 'crash' },
			]),
		).toEqual(['success']);
	});

	it('stops a row n8n runs at its start at the trigger when a retry of its delivery was admitted before its first step', () => {
		// n8n starts the rows left `new` without waiting for them, then activates the workflow (start.ts):
		// the retry can be admitted before the row's first step, and runs.
		const request: Command = { kind: 'request', index: 0 };
		expect(
			executionsOf([
				...stoppedAfterInsert,
				{ kind: 'start', newRowsCrashed: false, recoveredFirst: false },
				{ kind: 'deliver', index: 0, failRun: false },
				request,
				request,
				{ kind: 'execution', index: 0 },
			]),
		).toEqual(['stopped at the trigger', 'success']);
	});

	it('saves one delivery at a time, so that an answered change is in what reaches the database last', () => {
		// Two changes delivered together. Were the second saved and answered while the first's save, written
		// earlier, was still on its way, the first's would land last without the second, and after a stop the
		// provider's copy of the second would run it again. The second waits for the first's answer instead.
		const request = (index: number): Command => ({ kind: 'request', index });
		const execution = (index: number): Command => ({ kind: 'execution', index });
		const simulation = run([
			{ kind: 'change', caseIndex: 0, statusOnly: false },
			{ kind: 'change', caseIndex: 1, statusOnly: false },
			{ kind: 'deliver', index: 0, failRun: false },
			{ kind: 'deliver', index: 1, failRun: false },
			// The first up to its save written (load, webhook, turn, insert, running, answer read, save).
			...Array.from({ length: 7 }, () => request(0)),
			// The second as far as it can go, then the first's save lands and it answers.
			...Array.from({ length: 10 }, () => request(1)),
			request(0),
			request(0),
			// The second, if it waited, now runs to its answer; then both executions end.
			...Array.from({ length: 8 }, () => request(0)),
			...Array.from({ length: 4 }, () => execution(0)),
			{ kind: 'crash' },
			{ kind: 'start', newRowsCrashed: false, recoveredFirst: false },
			{ kind: 'deliver', index: 1, failRun: false },
		]);
		const [[, first], [, second]] = [...simulation.tally()];
		expect([first.length, second.length]).toEqual([1, 1]);
	});

	it("holds every started change in what n8n writes last, when it writes two executions' static data in reverse order", () => {
		// Two changes found in one look; the second execution's end is written before the first's. Had the first
		// written what its first step handed over, the second change would be forgotten at the restart and its
		// late delivery would run it again.
		const execution = (index: number): Command => ({ kind: 'execution', index });
		expect(
			executionsOf([
				{ kind: 'change', caseIndex: 1, statusOnly: false },
				{ kind: 'change', caseIndex: 0, statusOnly: false },
				{ kind: 'look' },
				execution(0),
				execution(1),
				execution(1),
				execution(0),
				{ kind: 'crash' },
			]),
		).toEqual(['success']);
	});

	it("after n8n's Update: the old version's watchdog finds a change the new one ran; its execution stops at the trigger and saves the new memory again", () => {
		const request: Command = { kind: 'request', index: 0 };
		const execution: Command = { kind: 'execution', index: 0 };
		expect(
			executionsOf([
				{ kind: 'update' },
				{ kind: 'change', caseIndex: 0, statusOnly: false },
				{ kind: 'deliver', index: 0, failRun: false },
				...Array<Command>(9).fill(request),
				execution,
				execution,
				// The look's emit makes n8n save the old version's memory, which never saw the delivery.
				{ kind: 'look' },
				execution,
				execution,
				{ kind: 'crash' },
				{ kind: 'start', newRowsCrashed: false, recoveredFirst: false },
				// A copy of the delivery after the restart is a duplicate: the stopped execution saved it again.
				{ kind: 'deliver', index: 0, failRun: false },
			]),
		).toEqual(['success', 'stopped at the trigger']);
	});
});
