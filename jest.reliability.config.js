/**
 * Reliability suite: load, faults and bad input. The real-n8n files start their own n8n
 * 2.8.4 with the packed package, like the e2e suite (same global setup); the bad-input file runs the node
 * against the sandbox without n8n. Files end in `.reliability.ts`, so the default jest run does not pick
 * them up. Run in band: one n8n at a time on a 2-core machine. No timing is asserted; waits are bounded.
 *   npx jest -c jest.reliability.config.js      (npm run test:reliability)
 */
module.exports = {
	// As the real-n8n suite (preset, transform, global setup, reporters, one file at a time), over its own files.
	...require('./jest.e2e.config.js'),
	roots: ['<rootDir>/test/reliability'],
	testMatch: ['<rootDir>/test/reliability/**/*.reliability.ts'],
	slowTestThreshold: 60,
};
