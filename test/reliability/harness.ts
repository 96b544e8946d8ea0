/* eslint-disable @n8n/community-nodes/no-restricted-globals -- repository tooling: runs in Node.js, never inside n8n */
/**
 * What the real-n8n files (reliability and queue suites) share: a bounded pool of concurrent senders and
 * bounded waits. The spec's endpoints and a seeded random order are in test/helpers/.
 */

/** Runs `task` for every input with at most `concurrency` in flight; results in input order. */
export async function runPool<T, R>(
	inputs: T[],
	concurrency: number,
	task: (input: T, index: number) => Promise<R>,
): Promise<R[]> {
	const results = new Array<R>(inputs.length);
	let next = 0;
	const worker = async () => {
		while (next < inputs.length) {
			const index = next++;
			results[index] = await task(inputs[index], index);
		}
	};
	await Promise.all(Array.from({ length: Math.min(concurrency, inputs.length) }, worker));
	return results;
}

/** How long to wait for n8n to be ready after a kill: seconds usually; over a minute on a loaded machine. */
export const READY_AFTER_KILL_MS = 240_000;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it returns a value other than undefined; throws `describe()` after timeoutMs. */
export async function waitFor<T>(
	probe: () => Promise<T | undefined> | T | undefined,
	opts: { timeoutMs: number; intervalMs?: number; describe: () => string | Promise<string> },
): Promise<T> {
	const deadline = Date.now() + opts.timeoutMs;
	for (;;) {
		const value = await probe();
		if (value !== undefined) return value;
		if (Date.now() > deadline)
			throw new Error(`not reached within ${opts.timeoutMs} ms: ${await opts.describe()}`);
		await sleep(opts.intervalMs ?? 250);
	}
}
