/**
 * The order of the real-n8n files, two at a time (jest.e2e.config.js): jest's own (the last run's failures
 * first, then the longest by the last run's durations), except on a run with no durations on record (a fresh
 * clone, as in CI). There jest starts the largest files first, and a short file that waits long would start last
 * and run alone; those named here start first.
 */
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

/** The e2e files that wait the longest: the 60 s secret window, watchdog runs and restarts. */
const WAIT_LONGEST = [
	'triggerSecretChange.e2e.test.ts',
	'triggerEdits.e2e.test.ts',
	'trigger.e2e.test.ts',
];

class LongestFirst extends Sequencer {
	sort(tests) {
		const sorted = super.sort(tests);
		if (sorted.every((test) => test.duration != null)) return sorted;
		const rank = (test) => {
			const index = WAIT_LONGEST.indexOf(path.basename(test.path));
			return index < 0 ? WAIT_LONGEST.length : index;
		};
		return sorted
			.map((test, position) => ({ test, position }))
			.sort((a, b) => rank(a.test) - rank(b.test) || a.position - b.position)
			.map(({ test }) => test);
	}
}

module.exports = LongestFirst;
