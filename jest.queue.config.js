/**
 * Queue-mode suite (issue 15): n8n's queue mode on this machine (scripts/n8n/queue.ts: PostgreSQL, Redis,
 * HAProxy, 1 main + 2 webhook processes + 2 workers, the packed package in each) and the trigger's
 * exactly-once promise there, scenario by scenario. Same global setup as the e2e suite (runtime installed,
 * repo packed once). Files end in `.queue.ts`. Run in band; no timing is asserted, every wait is bounded.
 *   npx jest -c jest.queue.config.js      (npm run test:queue)
 */
module.exports = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	rootDir: __dirname,
	roots: ['<rootDir>/test/queue'],
	testMatch: ['<rootDir>/test/queue/**/*.queue.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.dev.json' }] },
	globalSetup: '<rootDir>/test/e2e/harness/globalSetup.ts',
	globalTeardown: '<rootDir>/test/e2e/harness/globalTeardown.ts',
	maxWorkers: 1,
	testTimeout: 180_000,
	slowTestThreshold: 120,
};
