/* eslint-disable @n8n/community-nodes/no-restricted-globals -- repository tooling: runs in Node.js, never inside n8n */
/**
 * What the fuzz suite (the files named *.fuzz.test.ts, fast-check) shares. Every property runs a fixed number of generated inputs
 * on each `npm test`, listed per target in docs/security.md; FUZZ_SCALE multiplies them for a longer local
 * hunt (`FUZZ_SCALE=20 npx jest fuzz`). A failure prints fast-check's seed and the shrunk input:
 * `FUZZ_SEED=<seed>` replays that run.
 */
import * as fc from 'fast-check';

import { KiB, LINEAR_RATIO_BOUND, linearCostRatio, repeatTo } from './linearTime';

const SCALE = Math.max(1, Math.floor(Number(process.env.FUZZ_SCALE) || 1));
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

/** fast-check options for `count` generated inputs (times FUZZ_SCALE). */
export function runs(count: number): fc.Parameters<unknown> {
	return { numRuns: count * SCALE, ...(SEED === undefined ? {} : { seed: SEED }) };
}

/** The inputs each property of the suite tries per run, by name: docs/security.md quotes these. */
export const RUNS = {
	/** Cheap pure functions (parsers, validators, redaction): many inputs. */
	many: 5_000,
	/** Functions that compute HMACs or go through a credential: fewer, still thousands. */
	some: 2_000,
	/** Linear-time properties: each input is a timed measurement of 18+ calls at 16 and 64 KiB. */
	timed: 6,
} as const;

/**
 * The linear-time property: for generated units (short strings of the characters a parser or redaction
 * reacts to), `run` on an input of 64 KiB built from the unit (by default the unit repeated) costs well
 * under quadratic time against 16 KiB. No shrinking on failure: a timed property would re-measure for minutes.
 * `examples` are units tried on every run before the generated ones (inputs that were once quadratic).
 */
export function assertLinear(
	unit: fc.Arbitrary<string>,
	run: (input: string) => unknown,
	build: (piece: string, length: number) => string = repeatTo,
	examples: string[] = [],
): void {
	fc.assert(
		fc.property(unit, (piece) => {
			const small = build(piece, 16 * KiB);
			const large = build(piece, 64 * KiB);
			expect([small.length, large.length]).toEqual([16 * KiB, 64 * KiB]);
			return linearCostRatio(run, small, large).ratio < LINEAR_RATIO_BOUND;
		}),
		{
			...runs(RUNS.timed),
			// fast-check counts examples among numRuns: the generated units stay RUNS.timed.
			numRuns: runs(RUNS.timed).numRuns! + examples.length,
			examples: examples.map((example) => [example] as [string]),
			endOnFailure: true,
		},
	);
}

/** `prefix` followed by `piece` repeated, `length` characters in all. */
export const prefixed = (prefix: string) => (piece: string, length: number) =>
	prefix + repeatTo(piece, length - prefix.length);

/** Lower-case hexadecimal strings. */
export const hex = (length: { minLength?: number; maxLength?: number }) =>
	fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), ...length });

/** A string built from `pieces`, up to `maxLength` pieces: the characters and tokens a parser reacts to. */
export function stringOf(pieces: string[], maxLength = 40): fc.Arbitrary<string> {
	return fc
		.array(fc.constantFrom(...pieces), { minLength: 1, maxLength })
		.map((parts) => parts.join(''));
}
