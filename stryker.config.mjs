// Mutation testing of the package's code (nodes/, credentials/) against the runs without n8n
// (jest.config.js): `npm run test:mutation`. How long a run takes and what it is for: CONTRIBUTING.md.
// Descriptions and other code that runs when a module loads are left out (ignoreStatic): each such mutant
// would need every test, and the package test's snapshot of the descriptions guards them. That needs a run
// in which no test is skipped (leave a test undefined instead): jest starts a skipped test and never ends it,
// so Stryker counts the load-time code of every later test file as covered by that test.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
const config = {
	mutate: ['nodes/**/*.ts', 'credentials/**/*.ts', '!nodes/shared/catalog.generated.ts'],
	testRunner: 'jest',
	jest: { configFile: 'jest.config.js', enableFindRelatedTests: true },
	coverageAnalysis: 'perTest',
	ignoreStatic: true,
	concurrency: 2,
	timeoutMS: 30_000,
	// The first run of every test, with coverage, one file at a time: about 5 minutes on 2 quiet cores.
	dryRunTimeoutMinutes: 20,
	reporters: ['clear-text', 'progress', 'json'],
	jsonReporter: { fileName: '.dev/mutation/mutation.json' },
	tempDirName: '.dev/stryker-tmp',
	cleanTempDir: 'always',
};
export default config;

/** A run over some of the trigger's modules against some of its tests, reported to `.dev/mutation/<report>.json`. */
export const triggerRun = (modules, testMatch, report) => ({
	...config,
	mutate: modules.map((name) => `nodes/BackgroundCheckTrigger/${name}.ts`),
	jest: {
		...config.jest,
		config: { roots: ['<rootDir>/test/nodes/BackgroundCheckTrigger'], testMatch },
	},
	jsonReporter: { fileName: `.dev/mutation/${report}.json` },
});
