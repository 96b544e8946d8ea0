/**
 * Reliability suite: load, faults and bad input in real n8n. Each file starts its own n8n with the packed
 * package, like the e2e suite (same global setup). Tests that need no n8n are in the default jest run
 * (jest.config.js), which runs once; the breadth of bad input is
 * test/nodes/BackgroundCheck/badInputEveryOperation.integration.test.ts. Files end in `.reliability.ts`, so
 * the default jest run does not pick them up. One file at a time: load and kills want the machine to
 * themselves. No timing is asserted; waits are bounded.
 *   npx jest -c jest.reliability.config.js      (npm run test:reliability)
 */
module.exports = {
	// As the real-n8n suite (preset, transform, global setup, reporters), over its own files, one at a time.
	...require('./jest.e2e.config.js'),
	roots: ['<rootDir>/test/reliability'],
	maxWorkers: 1,
	testMatch: ['<rootDir>/test/reliability/**/*.reliability.ts'],
	slowTestThreshold: 60,
};
