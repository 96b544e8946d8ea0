/**
 * Queue-mode suite: n8n's queue mode on this machine (test/harness/n8n/queue.ts: PostgreSQL, Redis, a
 * path-hashing load balancer and a round-robin one, 1 main + 2 webhook processes + 2 workers, the packed
 * package in each) and the trigger's exactly-once promise there, scenario by scenario. Files end in `.queue.ts`. Run in band; no timing is
 * asserted, every wait is bounded.
 *   npx jest -c jest.queue.config.js      (npm run test:queue)
 */
module.exports = {
	// As the real-n8n suite (preset, transform, global setup, reporters, one file at a time), over its own files.
	...require('./jest.e2e.config.js'),
	roots: ['<rootDir>/test/queue'],
	testMatch: ['<rootDir>/test/queue/**/*.queue.ts'],
	testTimeout: 180_000,
	slowTestThreshold: 120,
};
