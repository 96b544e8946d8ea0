/**
 * Real-n8n end-to-end suite: each test file starts its own n8n (the pinned runtime, test/harness/n8n/runtime.ts)
 * with this repo's packed package installed as a community package, on its own port and user folder. Two files
 * run at a time: one file at a time kept under one core busy (it mostly waits for executions, watchdog runs and
 * restarts), so two fill a 2-core machine.
 *   npx jest -c jest.e2e.config.js
 */
module.exports = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	rootDir: __dirname,
	roots: ['<rootDir>/test/e2e'],
	testMatch: ['<rootDir>/test/e2e/**/*.e2e.test.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.dev.json' }] },
	// Fails the run when a test file ran no test (test/helpers/everyFileRanTests.js).
	reporters: ['default', '<rootDir>/test/helpers/everyFileRanTests.js'],
	// The files that wait longest start first, on a fresh clone too (test/helpers/longestFirst.js).
	testSequencer: '<rootDir>/test/helpers/longestFirst.js',
	globalSetup: '<rootDir>/test/harness/globalSetup.ts',
	globalTeardown: '<rootDir>/test/harness/globalTeardown.ts',
	maxWorkers: 2,
	// The first run installs n8n inside globalSetup (no timeout there); starting n8n takes seconds.
	testTimeout: 120_000,
	slowTestThreshold: 30,
};
