import { sleep } from 'n8n-workflow';

/** How often a wait asks again without a signal: a signal can be missed (another process, an expired claim). */
const RECHECK_MS = 1000;

/**
 * The one way the trigger waits: {@link until} asks `check` again whenever its name is signalled, and at
 * least every second, until it answers or the time is up (by the clock, or by the seconds that passed without a signal when sleep is mocked).
 */
export class Signals {
	private readonly waiting = new Map<string, Set<() => void>>();

	signal(name: string): void {
		const resolvers = this.waiting.get(name);
		this.waiting.delete(name);
		for (const resolve of resolvers ?? []) resolve();
	}

	/** Resolves at the next signal of `name`. */
	next(name: string): Promise<void> {
		return new Promise((resolve) => this.add(name, resolve));
	}

	async until<T>(
		name: string,
		timeoutMs: number,
		check: () => T | undefined,
	): Promise<T | undefined> {
		let seconds = Math.ceil(timeoutMs / RECHECK_MS);
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const value = check();
			if (value !== undefined || seconds <= 0 || Date.now() >= deadline) return value;
			let resolver!: () => void;
			const signalled = new Promise<boolean>((resolve) =>
				this.add(name, (resolver = () => resolve(true))),
			);
			if (!(await Promise.race([signalled, sleep(RECHECK_MS).then(() => false)]))) seconds--;
			this.waiting.get(name)?.delete(resolver);
			if (this.waiting.get(name)?.size === 0) this.waiting.delete(name);
		}
	}

	private add(name: string, resolve: () => void): void {
		const resolvers = this.waiting.get(name) ?? new Set();
		resolvers.add(resolve);
		this.waiting.set(name, resolvers);
	}
}
