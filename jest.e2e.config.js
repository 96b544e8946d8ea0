/**
 * Real-n8n end-to-end suite: each test file starts its own n8n 2.8.4 (test/harness/n8n/runtime.ts) with
 * this repo's packed package installed as a community package. Run in band: n8n is heavy (about
 * 500 MB and 2-7 s to start) and these machines have 2 cores.
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
	globalSetup: '<rootDir>/test/harness/globalSetup.ts',
	globalTeardown: '<rootDir>/test/harness/globalTeardown.ts',
	// One test file at a time, in this process.
	maxWorkers: 1,
	// The first run installs n8n inside globalSetup (no timeout there); starting n8n takes seconds.
	testTimeout: 120_000,
	slowTestThreshold: 30,
};
