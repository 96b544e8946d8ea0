/* eslint-disable @n8n/community-nodes/no-restricted-globals -- repository tooling: runs in Node.js, never inside n8n */
/**
 * The sandbox's own time. Everything that "takes a while" in the real service (case progress, webhook
 * retries hours apart) is scheduled on this clock, so a demo can run it faster than real time and a test
 * can stop it and step through it without waiting.
 *
 * Sandbox time = the time at the last anchor + real time elapsed since then × timeScale, plus every explicit
 * advance. timeScale 1 is real time, 60 makes a sandbox minute last a real second, 0 freezes the clock.
 */

export type ClockTask = () => unknown;

interface ScheduledTask {
	sequence: number;
	dueAt: number;
	run: ClockTask;
}

export interface ClockView {
	now: string;
	nowMs: number;
	timeScale: number;
	pendingTasks: number;
}

export class SandboxClock {
	private anchorSandboxMs: number;
	private anchorRealMs: number;
	private scale: number;
	private readonly queue: ScheduledTask[] = [];
	private readonly inFlight = new Set<Promise<unknown>>();
	private nextSequence = 0;
	private timer: NodeJS.Timeout | undefined;
	private advancing: Promise<void> = Promise.resolve();
	private isAdvancing = false;
	private stopped = false;

	constructor(timeScale: number, startAtMs = Date.now()) {
		assertTimeScale(timeScale);
		this.scale = timeScale;
		this.anchorSandboxMs = startAtMs;
		this.anchorRealMs = Date.now();
	}

	now(): number {
		return this.anchorSandboxMs + (Date.now() - this.anchorRealMs) * this.scale;
	}

	nowIso(): string {
		return new Date(Math.floor(this.now())).toISOString();
	}

	get timeScale(): number {
		return this.scale;
	}

	setTimeScale(timeScale: number): void {
		assertTimeScale(timeScale);
		this.reanchor(this.now());
		this.scale = timeScale;
		this.armTimer();
	}

	view(): ClockView {
		return {
			now: this.nowIso(),
			nowMs: Math.floor(this.now()),
			timeScale: this.scale,
			pendingTasks: this.queue.length,
		};
	}

	/** Runs `run` once sandbox time reaches `dueAt`; returns a function that cancels it. */
	scheduleAt(dueAt: number, run: ClockTask): () => void {
		const task: ScheduledTask = { sequence: this.nextSequence++, dueAt, run };
		this.queue.push(task);
		this.queue.sort((a, b) => a.dueAt - b.dueAt || a.sequence - b.sequence);
		this.armTimer();
		return () => {
			const index = this.queue.indexOf(task);
			if (index >= 0) this.queue.splice(index, 1);
		};
	}

	scheduleIn(delayMs: number, run: ClockTask): () => void {
		return this.scheduleAt(this.now() + delayMs, run);
	}

	/**
	 * Moves sandbox time forward and runs everything that falls due on the way, in order, each task at its
	 * own due time and awaited before the next, so retries and follow-up steps scheduled by a task run too.
	 */
	advance(ms: number): Promise<void> {
		if (!(ms >= 0)) throw new RangeError('The clock only moves forward');
		const run = async () => {
			this.isAdvancing = true;
			const target = this.now() + ms;
			try {
				for (;;) {
					const task = this.takeDue(target);
					if (task) {
						if (task.dueAt > this.now()) this.reanchor(task.dueAt);
						await this.start(task);
					} else if (this.inFlight.size > 0) {
						await Promise.allSettled([...this.inFlight]);
					} else {
						break;
					}
				}
				if (target > this.now()) this.reanchor(target);
			} finally {
				this.isAdvancing = false;
				this.armTimer();
			}
		};
		this.advancing = this.advancing.then(run, run);
		return this.advancing;
	}

	/** Resolves once nothing is due and no task is still running (a delivery awaiting its receiver, say). */
	async settle(): Promise<void> {
		await this.advancing;
		for (;;) {
			for (let task = this.takeDue(this.now()); task; task = this.takeDue(this.now()))
				this.start(task);
			if (this.inFlight.size === 0) return;
			await Promise.allSettled([...this.inFlight]);
		}
	}

	/** Drops every scheduled task (reset); tasks already running finish on their own. */
	clear(): void {
		this.queue.length = 0;
		this.armTimer();
	}

	stop(): void {
		this.stopped = true;
		this.clear();
	}

	private reanchor(sandboxMs: number): void {
		this.anchorSandboxMs = sandboxMs;
		this.anchorRealMs = Date.now();
	}

	private takeDue(upTo: number): ScheduledTask | undefined {
		return this.queue.length > 0 && this.queue[0].dueAt <= upTo ? this.queue.shift() : undefined;
	}

	private start(task: ScheduledTask): Promise<unknown> {
		const running = Promise.resolve()
			.then(task.run)
			.catch((error: unknown) => {
				process.emitWarning(
					`Sandbox clock task failed: ${error instanceof Error ? error.stack : String(error)}`,
				);
			})
			.finally(() => this.inFlight.delete(running));
		this.inFlight.add(running);
		return running;
	}

	/** One real timer for the earliest task; tasks already due run even while the clock is frozen. */
	private armTimer(): void {
		if (this.timer) clearTimeout(this.timer);
		this.timer = undefined;
		// While advancing, the advance loop alone runs tasks, so their order is deterministic.
		if (this.stopped || this.isAdvancing || this.queue.length === 0) return;
		const wait = this.queue[0].dueAt - this.now();
		if (wait > 0 && this.scale === 0) return;
		const realDelay = wait <= 0 ? 0 : Math.min(wait / this.scale, 2 ** 31 - 1);
		this.timer = setTimeout(() => this.runDueNow(), realDelay);
		this.timer.unref();
	}

	private runDueNow(): void {
		this.timer = undefined;
		for (let task = this.takeDue(this.now()); task; task = this.takeDue(this.now()))
			this.start(task);
		this.armTimer();
	}
}

function assertTimeScale(timeScale: number): void {
	if (!Number.isFinite(timeScale) || timeScale < 0)
		throw new RangeError('timeScale must be a number >= 0');
}
