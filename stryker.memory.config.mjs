// Mutation testing of the trigger's state model alone (`nodes/BackgroundCheckTrigger/memory.ts`) against its
// own tests, the memory test and the exactly-once simulation: `npm run test:mutation:memory`, about 16 minutes
// on 2 cores. The other tests that reach it start the sandbox per file and would make each mutant take seconds.
import base from './stryker.config.mjs';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
	...base,
	mutate: ['nodes/BackgroundCheckTrigger/memory.ts'],
	jest: {
		...base.jest,
		config: {
			roots: ['<rootDir>/test/nodes/BackgroundCheckTrigger'],
			testMatch: ['**/memory.test.ts', '**/exactlyOnce.simulation.test.ts'],
		},
	},
	jsonReporter: { fileName: '.dev/mutation/memory.json' },
};
