/**
 * Stops a real n8n process (SIGKILL, as a crash or the OOM killer would) at one chosen step of its own code,
 * so the tests can prove what happens when n8n dies exactly there. Loaded with
 * `NODE_OPTIONS=--require <this file>`; does nothing unless BGC_CRASH_POINT names a step and the file
 * BGC_CRASH_ARM_FILE exists when n8n reaches it (the test creates it once the workflow is active; the first
 * time the step is reached after that, the file is removed and the process killed).
 *
 * Steps (n8n's own functions, the same names on 2.8.4 and 2.41.1):
 * - afterCreate: `ExecutionPersistence.create` has inserted the row (status new), before n8n sets it running
 * - afterInsert: `ActiveExecutions.add` has returned (in regular mode the row is running by then)
 * - afterRunning: `ExecutionRepository.setRunning` has set it running (in regular mode n8n does that
 *   right after the insert, inside `ActiveExecutions.add`)
 * - beforeSave: `WorkflowStaticDataService.saveStaticData` is called with changed static data
 * - afterSave: that save has been written
 *
 * BGC_CRASH_HOLD_MS holds n8n that long at the step before it is killed (the other requests and the
 * execution go on meanwhile), as a slow database would.
 *
 * BGC_STARTUP_RUN_DELAY_MS (for the start after the kill): n8n starts the rows left `new` without waiting
 * for them and then activates the workflows; this delays each such run that long, so the webhook answers
 * first, as a busy start-up would.
 */
const fs = require('node:fs');
const Module = require('node:module');

const point = process.env.BGC_CRASH_POINT;
const armFile = process.env.BGC_CRASH_ARM_FILE;
const holdMs = Number(process.env.BGC_CRASH_HOLD_MS) || 0;
const startUpRunDelayMs = Number(process.env.BGC_STARTUP_RUN_DELAY_MS) || 0;

function fireIfArmed(step) {
	if (step !== point || !armFile || !fs.existsSync(armFile)) return;
	fs.rmSync(armFile, { force: true });
	// Into n8n's log: where exactly it stopped.
	process.stderr.write(`[crash point] killed at ${step}\n${new Error('stack').stack}\n`);
	// The whole process group, as a machine's crash would: n8n, its task runner and the harness's supervisor.
	process.kill(0, 'SIGKILL');
}

/** `applies(...args)`: whether this call is the step (by default every call is). */
function wrap(prototype, method, before, after, applies = () => true) {
	const original = prototype[method];
	if (typeof original !== 'function' || original.crashPointWrapped) return;
	const wrapped = async function (...args) {
		const step = applies(...args);
		if (step && before === point && holdMs > 0 && armFile && fs.existsSync(armFile))
			await new Promise((resolve) => setTimeout(resolve, holdMs));
		if (step && before) fireIfArmed(before);
		const result = await original.apply(this, args);
		if (step && after) fireIfArmed(after);
		return result;
	};
	wrapped.crashPointWrapped = true;
	prototype[method] = wrapped;
}

/** n8n's start-up runs of rows left `new`: 2.41 passes `{ expectedStatus: 'new' }`, 2.8.4 the execution ID. */
function delayStartUpRuns(prototype) {
	const original = prototype.run;
	if (typeof original !== 'function' || original.startUpRunsDelayed) return;
	const delayed = async function (...args) {
		const existing = args[3];
		if (typeof existing === 'string' || existing?.expectedStatus === 'new')
			await new Promise((resolve) => setTimeout(resolve, startUpRunDelayMs));
		return await original.apply(this, args);
	};
	delayed.startUpRunsDelayed = true;
	prototype.run = delayed;
}

const patches = [
	[
		'/n8n/dist/executions/execution-persistence.js',
		(exports) =>
			wrap(exports.ExecutionPersistence?.prototype ?? {}, 'create', undefined, 'afterCreate'),
	],
	[
		'/n8n/dist/workflow-runner.js',
		(exports) => startUpRunDelayMs > 0 && delayStartUpRuns(exports.WorkflowRunner?.prototype ?? {}),
	],
	[
		'/n8n/dist/active-executions.js',
		(exports) => wrap(exports.ActiveExecutions?.prototype ?? {}, 'add', undefined, 'afterInsert'),
	],
	[
		'/@n8n/db/dist/repositories/execution.repository.js',
		(exports) =>
			wrap(exports.ExecutionRepository?.prototype ?? {}, 'setRunning', undefined, 'afterRunning'),
	],
	[
		'/n8n/dist/workflows/workflow-static-data.service.js',
		(exports) =>
			wrap(
				exports.WorkflowStaticDataService?.prototype ?? {},
				'saveStaticData',
				'beforeSave',
				'afterSave',
				// A save that writes: n8n calls it after every webhook request, also after one the trigger
				// refused (the harness's unsigned probe, whose save can come after the test armed the step).
				(workflow) => workflow?.staticData?.__dataChanged === true,
			),
	],
];

if (point || startUpRunDelayMs > 0) {
	const load = Module._load;
	Module._load = function (request, parent, isMain) {
		const exports = load.apply(this, arguments);
		if (request.startsWith('.') || request.startsWith('@n8n/db')) {
			let filename = '';
			try {
				filename = Module._resolveFilename(request, parent, isMain);
			} catch {
				return exports;
			}
			for (const [suffix, patch] of patches) if (filename.endsWith(suffix)) patch(exports);
		}
		return exports;
	};
}
