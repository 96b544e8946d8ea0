/**
 * Queue-mode suite: n8n's queue mode on this machine (test/harness/n8n/queue.ts: PostgreSQL, Redis, a
 * path-hashing load balancer and a round-robin one, 1 main + 2 webhook processes + 2 workers, the packed
 * package in each) and the trigger's exactly-once promise there, scenario by scenario. Files end in
 * `.queue.ts`. One file at a time (queue mode starts 5 n8n processes); no timing is asserted, every wait is
 * bounded.
 *   npx jest -c jest.queue.config.js      (npm run test:queue)
 */
module.exports = {
	// As the real-n8n suite (preset, transform, global setup, reporters), over its own files, one at a time.
	...require('./jest.e2e.config.js'),
	roots: ['<rootDir>/test/queue'],
	maxWorkers: 1,
	testMatch: ['<rootDir>/test/queue/**/*.queue.ts'],
	testTimeout: 180_000,
	slowTestThreshold: 120,
};
