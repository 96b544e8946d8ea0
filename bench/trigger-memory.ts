/* eslint-disable @n8n/community-nodes/no-restricted-globals -- repository tooling: runs in Node.js, never inside n8n */
/**
 * What one delivery costs the trigger's own state code, by how much the process remembers: admit, start
 * (remember), n8n's answer, and the save n8n writes (the saved form, as JSON.stringify of the node's static
 * data calls it). The process keeps up to 100,000 events for 28 hours; the saved form holds the newest
 * Duplicate Memory Size (100 by default), so a save should cost the same whatever the process holds.
 * In-process, no n8n, no network: the rest of a request is n8n's (docs/benchmarks.md §3).
 *
 *   npm run bench -- trigger-memory        (BENCH_ROUNDS=5, BENCH_DELIVERIES=2000)
 */
import { TriggerMemory, type Change } from '../nodes/BackgroundCheckTrigger/memory';
import { fmt, header, median, printTable, runMain, saveResult } from './lib/report';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 2_000);
const REMEMBERED = [1_000, 10_000, 100_000];

const changeOf = (index: number, nowMs: number): Change => ({
	eventKey: `case.statuschange:case-${index}:Complete`,
	subject: `case:case-${index}`,
	status: '["Complete",null]',
	modStamp: new Date(nowMs - 3_600_000 + index).toISOString(),
});

/** One delivery as deliveryPolicy.ts runs it against the memory, then n8n's write of the static data. */
function deliver(memory: TriggerMemory, change: Change, now: number, staticData: object): number {
	const admission = memory.admit(change, true, now);
	if (admission.outcome !== 'admitted') throw new Error(`not admitted: ${admission.outcome}`);
	const answered = admission.claim.start(now);
	const saved = JSON.stringify(staticData);
	answered();
	return saved.length;
}

async function main(): Promise<void> {
	const machine = header(
		'trigger-memory',
		`The trigger's state code per delivery (admit, remember, save), by events remembered in the process; median of ${ROUNDS} rounds of ${DELIVERIES} deliveries.`,
	);
	const rows: Array<Record<string, unknown>> = [];
	// Warm-up: the first deliveries of a process run before V8 has optimised the code.
	const warmUp = new TriggerMemory();
	for (let i = 0; i < DELIVERIES; i++)
		deliver(warmUp, changeOf(i, Date.now()), Math.floor(Date.now() / 1000), {
			memory: { toJSON: () => warmUp.serialize() },
		});
	for (const remembered of REMEMBERED) {
		const memory = new TriggerMemory();
		const staticData = { memory: { toJSON: () => memory.serialize() } };
		const nowMs = Date.now();
		const now = Math.floor(nowMs / 1000);
		let next = 0;
		while (next < remembered) deliver(memory, changeOf(next++, nowMs), now, staticData);
		const perDelivery: number[] = [];
		let savedBytes = 0;
		for (let round = 0; round < ROUNDS; round++) {
			const started = process.hrtime.bigint();
			for (let i = 0; i < DELIVERIES; i++)
				savedBytes = deliver(memory, changeOf(next++, nowMs), now, staticData);
			perDelivery.push(Number(process.hrtime.bigint() - started) / 1e3 / DELIVERIES);
		}
		rows.push({
			remembered,
			microsecondsPerDelivery: median(perDelivery),
			perDelivery,
			savedBytes,
		});
	}
	printTable(
		['events remembered', 'µs per delivery (median)', 'saved form (bytes)'],
		rows.map((row) => [
			fmt(Number(row.remembered)),
			fmt(Number(row.microsecondsPerDelivery)),
			fmt(Number(row.savedBytes)),
		]),
	);
	saveResult('trigger-memory', { machine, rounds: ROUNDS, deliveries: DELIVERIES, rows });
}

runMain(main);
