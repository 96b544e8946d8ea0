/* eslint-disable @n8n/community-nodes/no-restricted-globals, @typescript-eslint/no-require-imports -- repository tooling: runs in Node.js, never inside n8n; the reporter is CommonJS */
/** The reporter every jest config of this repository uses: a test file that ran no test fails the run. */
const EveryFileRanTests = require('../helpers/everyFileRanTests');

const file = (name: string, passed: number, failed = 0, skipped = 0) => ({
	testFilePath: `/repo/test/${name}`,
	numPassingTests: passed,
	numFailingTests: failed,
	numPendingTests: skipped,
});

function errorAfter(files: ReturnType<typeof file>[], testNamePattern?: string): Error | undefined {
	const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
	try {
		const reporter = new EveryFileRanTests({ rootDir: '/repo', testNamePattern });
		reporter.onRunComplete(new Set(), { testResults: files });
		return reporter.getLastError();
	} finally {
		stderr.mockRestore();
	}
}

describe('everyFileRanTests (jest reporter)', () => {
	it('fails the run naming each file that ran no test', () => {
		expect(
			errorAfter([file('a.test.ts', 3), file('b.test.ts', 0, 0, 2), file('c.test.ts', 0)])?.message,
		).toBe('these test files ran no test: test/b.test.ts, test/c.test.ts');
	});

	it('lets a file with a visible skip pass when it ran other tests, and a failing file is failing already', () => {
		expect(errorAfter([file('a.test.ts', 1, 0, 1), file('b.test.ts', 0, 1)])).toBeUndefined();
	});

	it('does not apply to a run narrowed with -t', () => {
		expect(errorAfter([file('a.test.ts', 0, 0, 4)], 'one test')).toBeUndefined();
	});
});
