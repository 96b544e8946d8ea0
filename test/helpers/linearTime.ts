/* eslint-disable @n8n/community-nodes/no-restricted-globals -- repository tooling: runs in Node.js, never inside n8n */
/**
 * Linear time shown as a ratio of costs, never as a timed threshold: the median time of one call on a large
 * input over the median time on a small one. Four times the input costs about 4x in linear time and 16x in
 * quadratic time, whatever the machine's speed. Each sample repeats the call until it takes a few
 * milliseconds, so that timer resolution and single garbage collections do not decide; samples alternate
 * small and large, so that a busy moment of the machine hits both.
 */
const SAMPLES = 9;
const SAMPLE_NANOSECONDS = 10_000_000n;
/** A quadratic function on a large input may take seconds per call: stop sampling then (the ratio is clear). */
const BUDGET_NANOSECONDS = 8_000_000_000n;

function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.floor(sorted.length / 2)];
}

/** Nanoseconds per call of `run(input)`, over enough calls to take SAMPLE_NANOSECONDS. */
function timePerCall<T>(run: (input: T) => unknown, input: T, calls: number): number {
	const started = process.hrtime.bigint();
	for (let call = 0; call < calls; call++) run(input);
	return Number(process.hrtime.bigint() - started) / calls;
}

/** How many calls on `input` take about SAMPLE_NANOSECONDS (at least one). */
function callsPerSample<T>(run: (input: T) => unknown, input: T): number {
	let calls = 1;
	for (;;) {
		const started = process.hrtime.bigint();
		for (let call = 0; call < calls; call++) run(input);
		const elapsed = process.hrtime.bigint() - started;
		if (elapsed >= SAMPLE_NANOSECONDS || calls >= 1 << 16) return calls;
		calls *= 2;
	}
}

export interface CostRatio {
	ratio: number;
	/** Median nanoseconds per call. */
	small: number;
	large: number;
	samples: number;
}

/** Median cost of `run(large)` over median cost of `run(small)`. */
export function costRatio<T>(run: (input: T) => unknown, small: T, large: T): CostRatio {
	const smallCalls = callsPerSample(run, small);
	const largeCalls = callsPerSample(run, large);
	const smallTimes: number[] = [];
	const largeTimes: number[] = [];
	const started = process.hrtime.bigint();
	while (smallTimes.length < SAMPLES && process.hrtime.bigint() - started < BUDGET_NANOSECONDS) {
		smallTimes.push(timePerCall(run, small, smallCalls));
		largeTimes.push(timePerCall(run, large, largeCalls));
	}
	const smallMedian = median(smallTimes);
	const largeMedian = median(largeTimes);
	return {
		ratio: largeMedian / smallMedian,
		small: smallMedian,
		large: largeMedian,
		samples: smallTimes.length,
	};
}

/** 4x the input: linear time gives about 4, quadratic about 16. Below this bound is "well under quadratic". */
export const LINEAR_RATIO_BOUND = 8;

/** Measurements at most, when the first is not under LINEAR_RATIO_BOUND. */
const MEASUREMENTS = 3;

/**
 * The cost ratio of `run` between `small` and `large` (4x `small`), measured again (up to MEASUREMENTS times)
 * while not under LINEAR_RATIO_BOUND: on a machine shared with other work, and with other test files running
 * in parallel, one or two measurements can be unlucky, while a quadratic function stays near 16 (or far above)
 * in every one. Returns the best.
 */
export function linearCostRatio<T>(run: (input: T) => unknown, small: T, large: T): CostRatio {
	let best = costRatio(run, small, large);
	for (let measured = 1; measured < MEASUREMENTS && best.ratio >= LINEAR_RATIO_BOUND; measured++) {
		const next = costRatio(run, small, large);
		if (next.ratio < best.ratio) best = next;
	}
	return best;
}

/** `unit` repeated to exactly `length` characters. */
export function repeatTo(unit: string, length: number): string {
	return unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
}

export const KiB = 1024;
