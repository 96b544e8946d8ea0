/* eslint-disable @n8n/community-nodes/no-restricted-globals -- repository tooling: runs in Node.js, never inside n8n */
/** The sandbox clock: ordered, awaited tasks on explicit advance; nothing moves while frozen. */
import { SandboxClock } from '../../sandbox/clock';

describe('SandboxClock', () => {
	it('runs due tasks in order, each at its own due time, including tasks scheduled on the way', async () => {
		const clock = new SandboxClock(0, Date.UTC(2025, 0, 1));
		const start = clock.now();
		const ran: [string, number][] = [];
		clock.scheduleIn(2000, () => ran.push(['b', clock.now() - start]));
		clock.scheduleIn(1000, () => {
			ran.push(['a', clock.now() - start]);
			clock.scheduleIn(500, () => ran.push(['a+500', clock.now() - start]));
		});
		clock.scheduleIn(5000, () => ran.push(['later', clock.now() - start]));

		await clock.advance(2000);

		expect(ran).toEqual([
			['a', 1000],
			['a+500', 1500],
			['b', 2000],
		]);
		expect(clock.now() - start).toBe(2000);
		clock.stop();
	});

	it('awaits asynchronous tasks before running the next one', async () => {
		const clock = new SandboxClock(0);
		const order: string[] = [];
		clock.scheduleIn(10, async () => {
			await new Promise((resolve) => setTimeout(resolve, 5));
			order.push('slow');
		});
		clock.scheduleIn(20, () => order.push('next'));
		await clock.advance(20);
		expect(order).toEqual(['slow', 'next']);
		clock.stop();
	});

	it('stays still while frozen but runs tasks that are already due', async () => {
		const clock = new SandboxClock(0);
		const now = clock.now();
		let ran = false;
		clock.scheduleIn(0, () => (ran = true));
		await clock.settle();
		expect(ran).toBe(true);
		expect(clock.now()).toBe(now);
		clock.stop();
	});

	it('cancels a scheduled task', async () => {
		const clock = new SandboxClock(0);
		let ran = false;
		const cancel = clock.scheduleIn(10, () => (ran = true));
		cancel();
		await clock.advance(20);
		expect(ran).toBe(false);
		clock.stop();
	});
});
