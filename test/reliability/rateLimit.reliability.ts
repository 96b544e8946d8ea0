/* eslint-disable no-console -- repository tooling: runs in Node.js, never inside n8n */
/**
 * The 500-item read (Case > Get, default settings) in real n8n against an API that accepts 20 requests per
 * second per token and answers the others 429 with Retry-After (the sandbox's rateLimit fault): every item
 * comes back right, in order and paired, with one token exchange; the node was pushed back, waited and
 * slowed down (few refusals).
 * n8n's HTTP Request node runs the same workflow with the same limit; its result is logged for comparison
 * (it ignores Retry-After), not asserted. No timing is asserted.
 */
import {
	createCases,
	deployCaseWorkflow,
	HTTP_REQUEST_VERSION,
	runCaseWorkflow,
} from '../../bench/lib/caseWorkflow';
import { DEFAULT_CONCURRENCY } from '../../nodes/BackgroundCheck/helpers/execute';
import type { Sandbox } from '../../sandbox';
import { startTestSandbox } from '../harness/backgroundCheck';
import { startTestN8n, type TestN8n } from '../harness/n8nInstance';

const ITEMS = 500;
const PER_SECOND = 20;

let n8n: TestN8n;
let sandbox: Sandbox;
let caseIds: string[];

beforeAll(async () => {
	sandbox = await startTestSandbox();
	n8n = await startTestN8n('reliability-rate-limit');
	caseIds = await createCases(sandbox, ITEMS);
	sandbox.admin.injectFault({
		kind: 'rateLimit',
		perSecond: PER_SECOND,
		method: 'GET',
		pathPrefix: '/case/id/',
	});
}, 300_000);

afterAll(async () => {
	sandbox?.admin.clearFaults();
	await n8n?.stop();
	await sandbox?.stop();
});

describe(`${ITEMS} reads under a limit of ${PER_SECOND} requests per second per token`, () => {
	it('the Background Check node with default settings returns every case, in order and paired, with one token exchange', async () => {
		const workflow = await deployCaseWorkflow(n8n.api, sandbox, {
			kind: 'backgroundCheck',
			label: 'Background Check (defaults)',
		});
		const run = await runCaseWorkflow(n8n.api, sandbox, workflow, caseIds, { allowFailure: true });
		expect(run.failure).toBeUndefined();
		expect(run.correctItems).toBe(ITEMS);
		expect(run.exchanges).toBe(1);
		// The limit was reached (so the waits were exercised) and every case was read once successfully.
		expect(run.refused).toBeGreaterThan(0);
		expect(run.caseGets - run.refused).toBe(ITEMS);
		// It slowed down: refused are about the requests in flight when the limit was first reached, not the
		// ~20 of every one-second window that pausing alone gets (312 for these 500 reads without the pace).
		expect(run.refused).toBeLessThanOrEqual(2 * DEFAULT_CONCURRENCY);
		console.log(
			`Background Check under ${PER_SECOND}/s: ${run.executionMs} ms, ${run.caseGets} GETs, ${run.refused} answered 429`,
		);
	}, 240_000);

	it("reports what n8n's HTTP Request node does with the same limit (for comparison, not asserted)", async () => {
		const workflow = await deployCaseWorkflow(n8n.api, sandbox, {
			kind: 'httpRequest',
			label: `HTTP Request v${HTTP_REQUEST_VERSION}`,
		});
		const run = await runCaseWorkflow(n8n.api, sandbox, workflow, caseIds, { allowFailure: true });
		console.log(
			`HTTP Request v${HTTP_REQUEST_VERSION} under ${PER_SECOND}/s: ${run.correctItems}/${ITEMS} items right, ${run.caseGets} GETs, ` +
				`${run.refused} answered 429, ${run.exchanges} exchanges; ${run.failure ?? 'succeeded'}`,
		);
		expect(run.caseGets).toBeGreaterThan(0);
	}, 240_000);
});
