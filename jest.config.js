/** Unit and sandbox tests: fast, no n8n process. The real-n8n suite has its own config (jest.e2e.config.js). */
module.exports = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	// Jest's default on 2 cores is one worker; its main process mostly waits, and many files wait on timers.
	maxWorkers: 2,
	testPathIgnorePatterns: ['/node_modules/', '\\.e2e\\.test\\.ts$'],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.dev.json' }] },
	// Fails the run when a test file ran no test (test/helpers/everyFileRanTests.js).
	reporters: ['default', '<rootDir>/test/helpers/everyFileRanTests.js'],
};
