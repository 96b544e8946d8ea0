/* eslint-disable @n8n/community-nodes/no-restricted-globals, no-console -- repository tooling: runs in Node.js, never inside n8n */
/**
 * Exactly once at every crash point: the node's real webhook, first step and watchdog functions run in a
 * deterministic model of one n8n process (test/helpers/n8nModel.ts), with the provider (retries, copies) and
 * the API (status changes, edits that move modStamp only) around it. n8n's Update of the package is modelled
 * too (once between two starts of n8n): requests and executions then run a fresh copy of the package, while
 * the watchdog of the version that activated the workflow keeps running until n8n restarts. fast-check
 * generates schedules, and n8n is stopped at any step of any of them; then n8n runs until the provider has an
 * answer for everything and the watchdog has run once more.
 *
 * Checked for every status change: executions started for it = 1, where started counts executions n8n
 * marked crashed (n8n died while it ran: the provider's retry or the next watchdog run may start it once more,
 * counted apart), and not those whose first step output nothing (the change ran, or was being started, in
 * another execution; counted apart). Counted apart as well: a change the watchdog found together with a
 * later change of the same subject to the same status (collapsed: the watchdog sees one state per watchdog run),
 * and, in the schedules with an Update, a change with an execution in flight at the Update or inserted after
 * it, before n8n stopped (two versions' memories, which share nothing, in one process).
 *
 * SIM_RUNS sets the number of schedules (2,000, and half as many with Updates, in npm test);
 * `npm run soak:simulation` runs ten times as many.
 */
import * as fc from 'fast-check';

import {
	CASE_STATUS_CHANGE,
	caseStatusOf,
	changeOf,
} from '../../../nodes/BackgroundCheckTrigger/event';
import { signedHeaders } from '../../helpers/deliveries';
import { N8nModel, loadNode, type Row } from '../../helpers/n8nModel';

const RUNS = Math.max(1, Number(process.env.SIM_RUNS) || 2_000);
const SEED = process.env.SIM_SEED === undefined ? undefined : Number(process.env.SIM_SEED);

const SECRET = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
const CASES = ['c1', 'c2'];
const STATUSES = ['A', 'B', 'C', 'D'];
/** About 15 ms a schedule on one core; twenty times that on a busy machine. */
const timeoutFor = (runs: number) => 30_000 + runs * 300;
/** The clock moves this much between two steps of a schedule. */
const STEP_MS = 500;

type Change = ReturnType<typeof changeOf>;

interface StatusChange {
	change: Change;
	caseId: string;
	status: string;
	modStamp: string;
	body: string;
	messageId: string;
	acknowledged: boolean;
}

const statusOf = (name: string) =>
	caseStatusOf({ caseStatusId: name, secondaryCaseStatusId: null });

const changeOfRow = (row: Row) =>
	changeOf({
		event: String(row.items[0].json.event),
		eventObject: row.items[0].json.eventObject as never,
	});

class Simulation {
	stamp = 0;
	readonly api = new Map<string, { status: string; modStamp: string }>();
	readonly changes: StatusChange[] = [];
	readonly targets = new Map<object, StatusChange>();
	readonly n8n = new N8nModel(loadNode(), {
		parameters: { event: CASE_STATUS_CHANGE, reconcile: true, reconcileEvery: '10s' },
		credentials: { backgroundCheckWebhookApi: { signingSecret: SECRET }, backgroundCheckApi: {} },
		api: (_method, path) =>
			path.endsWith('/case/list')
				? { statusCode: 200, body: { cases: this.listed() } }
				: { statusCode: 200, body: { serviceGroupServices: [], data: [] } },
	});

	get rows() {
		return this.n8n.rows;
	}

	get afterUpdates() {
		return this.n8n.afterUpdates;
	}

	async begin(): Promise<void> {
		for (const caseId of CASES)
			this.api.set(caseId, { status: statusOf(STATUSES[0]), modStamp: this.nextStamp() });
		this.n8n.runsByItself = false;
		await this.n8n.activate('activate');
	}

	listed() {
		return [...this.api].map(([id, { status, modStamp }]) => ({
			id,
			caseStatusId: JSON.parse(status)[0] as string,
			secondaryCaseStatusId: null,
			modStamp,
		}));
	}

	nextStamp(): string {
		this.stamp += 1000;
		return new Date(Date.UTC(2026, 0, 1) + this.stamp).toISOString();
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
		const position = STATUSES.findIndex((name) => statusOf(name) === current.status);
		if (position === STATUSES.length - 1) return;
		const status = statusOf(STATUSES[position + 1]);
		this.api.set(caseId, { status, modStamp });
		const event = {
			event: CASE_STATUS_CHANGE,
			eventObject: {
				id: caseId,
				caseStatusId: STATUSES[position + 1],
				secondaryCaseStatusId: null,
				modStamp,
			},
		};
		this.changes.push({
			change: changeOf(event),
			caseId,
			status,
			modStamp,
			body: JSON.stringify(event),
			messageId: `msg_${this.changes.length}`,
			acknowledged: false,
		});
	}

	/** The provider sends one attempt of a change, signed now; n8n down: the attempt fails. */
	deliver(index: number, failRun = false): void {
		if (this.changes.length === 0) return;
		const target = this.changes[index % this.changes.length];
		const request = this.n8n.deliver(
			{ headers: signedHeaders(SECRET, target.messageId, target.body), body: target.body },
			failRun,
		);
		if (request) this.targets.set(request, target);
	}

	stepRequest(index: number): void {
		const { requests } = this.n8n;
		if (requests.length === 0) return;
		const request = requests[index % requests.length];
		this.n8n.stepRequest(request);
		if (request.answer !== undefined && request.answer < 300)
			this.targets.get(request)!.acknowledged = true;
		// run() threw after the insert: n8n's database closing in a stop.
		if (request.failRun && request.answer === 500) this.n8n.crash();
	}

	stepExecution(index: number): void {
		const { executing } = this.n8n;
		if (executing.length > 0) this.n8n.stepExecution(executing[index % executing.length]);
	}

	/** One Update per run of n8n: each further one adds a version whose memory the others cannot see either. */
	update(): void {
		if (this.n8n.nodeType === this.n8n.activeNodeType) this.n8n.update();
	}

	/** n8n stays up until every change has an answer, every execution has ended, and one more watchdog run. */
	async drain(): Promise<void> {
		await this.n8n.start();
		for (const request of this.n8n.requests) request.failRun = false;
		for (let round = 0; round < 50; round++) {
			for (let index = 0; index < this.changes.length; index++)
				if (!this.changes[index].acknowledged) this.deliver(index);
			for (let steps = 0; this.n8n.requests.length + this.n8n.executing.length > 0; steps++) {
				if (steps > 2_000) throw new Error('the simulation does not settle');
				this.stepExecution(0);
				for (let index = this.n8n.requests.length - 1; index >= 0; index--) this.stepRequest(index);
				await this.n8n.advance(STEP_MS);
			}
			if (this.changes.every(({ acknowledged }) => acknowledged)) break;
		}
		await this.n8n.tick();
		for (let steps = 0; this.n8n.executing.length > 0; steps++) {
			if (steps > 2_000) throw new Error('the simulation does not settle');
			this.stepExecution(0);
			await this.n8n.advance(STEP_MS);
		}
	}

	/** Executions started for each change; the watchdog's are the newest change of the subject to its status. */
	tally() {
		const byChange = new Map<StatusChange, Row[]>();
		for (const target of this.changes) byChange.set(target, []);
		for (const row of this.rows) {
			const change = changeOfRow(row);
			const target = row.fromWatchdog
				? [...this.changes]
						.reverse()
						.find(
							(candidate) =>
								candidate.change.subject === change.subject &&
								candidate.change.status === change.status &&
								Date.parse(candidate.modStamp) <= Date.parse(change.modStamp!),
						)
				: this.changes.find((candidate) => candidate.change.eventKey === change.eventKey);
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
	| { kind: 'watchdogRun' }
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
	{ weight: 2, arbitrary: fc.constant({ kind: 'watchdogRun' as const }) },
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

async function run(commands: Command[]): Promise<Simulation> {
	const simulation = new Simulation();
	await simulation.begin();
	for (const next of commands) {
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
			case 'watchdogRun':
				await simulation.n8n.tick();
				break;
			case 'update':
				simulation.update();
				break;
			case 'crash':
				simulation.n8n.crash();
				break;
			case 'start':
				await simulation.n8n.start(next.newRowsCrashed, next.recoveredFirst);
		}
		await simulation.n8n.advance(STEP_MS);
	}
	await simulation.drain();
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
	 * Lost or started twice, with an execution the watchdog or n8n's start-up ran whose save (or its watchdog run's) was
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
		// n8n died while it ran (each time, when it died again): the retry or the next watchdog run ran it again.
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
			row.fromWatchdog &&
			changeOfRow(row).subject === target.change.subject &&
			changeOfRow(row).status === target.change.status &&
			Date.parse(changeOfRow(row).modStamp!) >= Date.parse(target.modStamp),
	);
}

describe('exactly once at every crash point (the real node in a model of n8n, the provider and the API)', () => {
	beforeEach(() => {
		jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
		jest.setSystemTime(Date.UTC(2026, 0, 1));
	});
	afterEach(() => jest.useRealTimers());

	const property = async (update: boolean, runs: number) => {
		const counts = noCounts();
		await fc.assert(
			fc.asyncProperty(schedules(update), async (commands) => {
				const wrong = count(await run(commands), counts);
				if (wrong.length > 0) console.log(JSON.stringify(wrong, null, 1));
				return wrong.length === 0;
			}),
			{ numRuns: runs, ...(SEED === undefined ? {} : { seed: SEED }) },
		);
		// The figures a soak prints; in npm test they show the schedules reached every outcome counted apart.
		console.log(`simulation${update ? ' with Updates' : ''}: ${JSON.stringify(counts)}`);
		return counts;
	};

	it(
		`starts each status change once in ${RUNS.toLocaleString('en-US')} generated schedules with n8n stopped at any step`,
		async () => {
			const counts = await property(false, RUNS);
			expect(counts.lost + counts.doubled + counts.afterUpdate).toBe(0);
			// The schedules reached the outcome counted apart most often: a crashed execution run again by a
			// retry. An execution stopped at the trigger is rarer here (a few in 2,000); a scenario below has it.
			expect(counts.once).toBeGreaterThan(0);
			if (RUNS >= 1_000) expect(counts.crashedThenRetried).toBeGreaterThan(0);
		},
		timeoutFor(RUNS),
	);

	it(
		`with n8n's Update of the package in the schedules: every change outside the Update's moment once (${Math.ceil(RUNS / 2).toLocaleString('en-US')} schedules)`,
		async () => {
			const counts = await property(true, Math.ceil(RUNS / 2));
			expect(counts.lost + counts.doubled).toBe(0);
		},
		timeoutFor(Math.ceil(RUNS / 2)),
	);

	const request = (index = 0): Command => ({ kind: 'request', index });
	const execution = (index = 0): Command => ({ kind: 'execution', index });
	const steps = (count: number, command: Command) => Array<Command>(count).fill(command);

	/** A change delivered, n8n stopped after the execution row exists and before the answer was read. */
	const stoppedAfterInsert: Command[] = [
		{ kind: 'change', caseIndex: 0, statusOnly: false },
		{ kind: 'deliver', index: 0, failRun: false },
		// Loaded (the webhook function admits it and takes the turn to save), returned, inserted.
		...steps(3, request()),
		{ kind: 'crash' },
	];
	/** The statuses of the executions of the one change of `commands`. */
	const executionsOf = async (commands: Command[]) => {
		const simulation = await run(commands);
		const [[, rows]] = [...simulation.tally()];
		return rows.map(({ status, stopped }) => (stopped ? 'stopped at the trigger' : status));
	};

	it('lets no execution end before n8n saved its event: stopped in between, it is crashed and the retry runs', async () => {
		// Run and answer read; n8n would save, then answer. Without the first step's wait the execution ends
		// within its three steps, and the retry after the stop runs the event a second time.
		expect(
			await executionsOf([
				...stoppedAfterInsert.slice(0, -1),
				...steps(2, request()),
				...steps(3, execution()),
				{ kind: 'crash' },
			]),
		).toEqual(['crashed', 'success']);
	});

	it('reaches the crash points it claims to cover: a stop between insert and answer, and a failed run', async () => {
		// n8n runs the row at its next start and the trigger's first step remembers it; the retry is a duplicate.
		expect(await executionsOf(stoppedAfterInsert)).toEqual(['success']);
	});

	it('saves what an execution run at start-up remembered before n8n can stop again', async () => {
		// The row's first step runs at the next start before the activation read the saved memory: the
		// execution does not save (its process holds only the row's copy); the activation does.
		expect(
			await executionsOf([
				...stoppedAfterInsert,
				{ kind: 'start', newRowsCrashed: false, recoveredFirst: true },
				execution(),
				{ kind: 'crash' },
			]),
		).toEqual(['success']);
	});

	it('stops a row n8n runs at its start at the trigger when a retry of its delivery was admitted before its first step', async () => {
		// n8n starts the rows left `new` without waiting for them, then activates the workflow (start.ts):
		// the retry can be admitted before the row's first step, and runs.
		expect(
			await executionsOf([
				...stoppedAfterInsert,
				{ kind: 'start', newRowsCrashed: false, recoveredFirst: false },
				{ kind: 'deliver', index: 0, failRun: false },
				request(),
				execution(),
			]),
		).toEqual(['stopped at the trigger', 'success']);
	});

	it('saves one delivery at a time, so that an answered change is in what reaches the database last', async () => {
		// Two changes delivered together. Were the second saved and answered while the first's save, serialized
		// earlier, was still on its way, the first's would land last without the second, and after a stop the
		// provider's copy of the second would run it again. The second waits for the first's answer instead.
		const simulation = await run([
			{ kind: 'change', caseIndex: 0, statusOnly: false },
			{ kind: 'change', caseIndex: 1, statusOnly: false },
			{ kind: 'deliver', index: 0, failRun: false },
			{ kind: 'deliver', index: 1, failRun: false },
			// The first up to its save serialized (load, webhook, insert, running, answer read, save).
			...steps(6, request(0)),
			// The second as far as it can go, then the first's save lands and it answers.
			...steps(10, request(1)),
			...steps(2, request(0)),
			// The second, if it waited, now runs to its answer; then both executions end.
			...steps(8, request(0)),
			...steps(6, execution(0)),
			{ kind: 'crash' },
			{ kind: 'start', newRowsCrashed: false, recoveredFirst: false },
			{ kind: 'deliver', index: 1, failRun: false },
		]);
		const [[, first], [, second]] = [...simulation.tally()];
		expect([first.length, second.length]).toEqual([1, 1]);
	});

	it("holds every started change in what n8n writes last, when it writes two executions' static data in reverse order", async () => {
		// Two changes found in one watchdog run; the second execution's end is written before the first's. Had the first
		// written what its first step handed over, the second change would be forgotten at the restart and its
		// late delivery would run it again.
		expect(
			await executionsOf([
				{ kind: 'change', caseIndex: 1, statusOnly: false },
				{ kind: 'change', caseIndex: 0, statusOnly: false },
				{ kind: 'watchdogRun' },
				execution(0),
				...steps(3, execution(1)),
				...steps(2, execution(0)),
				{ kind: 'crash' },
			]),
		).toEqual(['success']);
	});

	it("after n8n's Update: the old version's watchdog finds a change the new one ran; its execution stops at the trigger and saves the new memory again", async () => {
		expect(
			await executionsOf([
				{ kind: 'update' },
				{ kind: 'change', caseIndex: 0, statusOnly: false },
				{ kind: 'deliver', index: 0, failRun: false },
				...steps(8, request()),
				...steps(3, execution()),
				// The watchdog run's emit makes n8n save the old version's memory, which never saw the delivery.
				{ kind: 'watchdogRun' },
				...steps(3, execution()),
				{ kind: 'crash' },
				{ kind: 'start', newRowsCrashed: false, recoveredFirst: false },
				// A copy of the delivery after the restart is a duplicate: the stopped execution saved it again.
				{ kind: 'deliver', index: 0, failRun: false },
			]),
		).toEqual(['success', 'stopped at the trigger']);
	});
});
