/**
 * Jest reporter in every jest config of this repository: the run fails when a test file ran no test (all
 * skipped, or none declared), so a suite that quietly stops testing cannot pass. A run narrowed with -t
 * (--testNamePattern) is exempt: it skips tests on purpose. Visible skips with a reason (it.skip) are fine as
 * long as the file ran at least one other test.
 */
class EveryFileRanTests {
	constructor(globalConfig) {
		this.globalConfig = globalConfig;
		this.error = undefined;
	}

	onRunComplete(_contexts, results) {
		if (this.globalConfig.testNamePattern) return;
		const idle = results.testResults.filter(
			(file) => !file.testExecError && file.numPassingTests + file.numFailingTests === 0,
		);
		if (idle.length === 0) return;
		const names = idle.map((file) =>
			file.testFilePath.replace(`${this.globalConfig.rootDir}/`, ''),
		);
		this.error = new Error(`these test files ran no test: ${names.join(', ')}`);
		process.stderr.write(`\n${this.error.message}\n`);
	}

	getLastError() {
		return this.error;
	}
}

module.exports = EveryFileRanTests;
