/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @typescript-eslint/no-explicit-any -- repository tooling: runs in Node.js, never inside n8n; sandbox answers are read as loose JSON */
/**
 * `npm start` as a user runs it (n8n with the package, the sandbox, credentials,
 * examples imported, triggers active and subscribed), the four example workflows end to end, Ctrl-C, and
 * a second start on the same folder.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { httpRequest } from '../harness/n8n/http';
import { N8nApi } from '../harness/n8n/publicApi';
import { getFreePort, startUserFolder } from '../harness/n8n/runtime';
import type { StartedSession } from '../../scripts/start';
import { ARTIFACTS_DIR, REPO_DIR } from '../harness/n8nInstance';

jest.setTimeout(240_000);

const FORM_WORKFLOW = 'Order a background check';
const ONBOARDING_WORKFLOW = 'Start onboarding when a case completes';
const ATS_WORKFLOW = 'Sync screening results to an ATS';
const REPORT_WORKFLOW = 'Attach the report to the candidate in the ATS when a case completes';

interface Started {
	child: ChildProcess;
	output: () => string;
	session: StartedSession;
}

const devDir = path.join(ARTIFACTS_DIR, `npm-start-${process.pid}`);
const running = new Set<ChildProcess>();
/** Like the default 7450, one sandbox port for both starts: the imported examples post to its inbox. */
let sandboxPort: number;

async function waitFor<T>(
	what: string,
	probe: () => Promise<T | undefined> | T | undefined,
	timeoutMs = 60_000,
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await probe();
		if (value !== undefined) return value;
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
}

async function npmStart(): Promise<Started> {
	const sessionFile = path.join(devDir, 'session.json');
	fs.rmSync(sessionFile, { force: true });
	let output = '';
	const child = spawn('npm', ['start'], {
		cwd: REPO_DIR,
		env: {
			...process.env,
			// n8n on any free port: other suites may be running n8n on this machine.
			N8N_PORT: '0',
			SANDBOX_PORT: String(sandboxPort),
			SANDBOX_TIME_SCALE: '0',
			BGC_DEV_DIR: devDir,
		},
		stdio: ['ignore', 'pipe', 'pipe'],
		// A process group of its own, so Ctrl-C can be sent the way a terminal sends it: to the whole group.
		detached: true,
	});
	running.add(child);
	child.once('exit', () => running.delete(child));
	child.stdout!.on('data', (chunk) => (output += chunk));
	child.stderr!.on('data', (chunk) => (output += chunk));
	const session = await waitFor(
		'npm start to write its session',
		() => {
			if (child.exitCode !== null)
				throw new Error(`npm start exited (${child.exitCode}):\n${output}`);
			return fs.existsSync(sessionFile) && output.includes('Ctrl-C stops')
				? (JSON.parse(fs.readFileSync(sessionFile, 'utf8')) as StartedSession)
				: undefined;
		},
		180_000,
	);
	return { child, output: () => output, session };
}

/** Ctrl-C as a terminal sends it; resolves once npm is gone with what the script said on its way out. */
async function stopWithCtrlC(started: Started): Promise<string> {
	const exited = new Promise<void>((resolve) => started.child.once('exit', () => resolve()));
	process.kill(-started.child.pid!, 'SIGINT');
	await exited;
	return started.output();
}

async function admin<T>(
	session: StartedSession,
	method: string,
	adminPath: string,
	body?: unknown,
): Promise<T> {
	const answer = await httpRequest(`${session.sandbox.adminUrl}${adminPath}`, { method, body });
	if (answer.status >= 300) throw new Error(`${method} ${adminPath} -> ${answer.status}`);
	return answer.json as T;
}

/** Lets the sandbox run a case to its end: every step and delivery due in the next day. */
async function runSandboxForADay(session: StartedSession) {
	await admin(session, 'POST', '/clock/advance', { seconds: 24 * 3600 });
	await admin(session, 'POST', '/idle');
}

const inbox = (session: StartedSession, name: string) =>
	admin<Array<{ body: Record<string, unknown> }>>(session, 'GET', `/inbox/${name}`);

async function submitOrderForm(
	session: StartedSession,
	candidate: { first: string; last: string; email: string },
) {
	const form = session.workflows.find((workflow) => workflow.name === FORM_WORKFLOW)!;
	const body = new FormData();
	body.set('field-0', candidate.first);
	body.set('field-1', candidate.last);
	body.set('field-2', candidate.email);
	const response = await fetch(form.url!, { method: 'POST', body });
	expect(response.status).toBe(200);
}

beforeAll(async () => {
	sandboxPort = await getFreePort();
	fs.rmSync(devDir, { recursive: true, force: true });
	fs.rmSync(startUserFolder(devDir), { recursive: true, force: true });
});

afterAll(() => {
	for (const child of running) process.kill(-child.pid!, 'SIGKILL');
	if (process.env.BGC_E2E_KEEP !== '1')
		fs.rmSync(startUserFolder(devDir), { recursive: true, force: true });
});

describe('npm start', () => {
	it('starts n8n with the package, the sandbox and the examples, and the examples run end to end', async () => {
		const started = await npmStart();
		try {
			const { session } = started;
			expect(started.output()).toContain(`n8n editor:   ${session.editorUrl}`);
			expect(started.output()).toContain(`login:        ${session.owner.email}`);
			expect((await httpRequest(`${session.editorUrl}/healthz`)).status).toBe(200);
			// Outside the repository: the package resolves n8n's own n8n-workflow, not the repository's.
			expect(path.relative(REPO_DIR, session.userFolder)).toMatch(/^\.\./);
			expect(session.workflows.map((workflow) => [workflow.name, workflow.active])).toEqual([
				[REPORT_WORKFLOW, true],
				[FORM_WORKFLOW, true],
				[ONBOARDING_WORKFLOW, true],
				[ATS_WORKFLOW, true],
			]);
			const subscriptions = await admin<Array<{ url: string }>>(
				session,
				'GET',
				'/webhooks/subscriptions',
			);
			expect(subscriptions.map((subscription) => subscription.url).sort()).toEqual(
				session.workflows
					.filter((workflow) => workflow.name !== FORM_WORKFLOW)
					.map((workflow) => workflow.url)
					.sort(),
			);

			// "Order a background check": the form orders the package picked in the node.
			await submitOrderForm(session, {
				first: 'Ann',
				last: "O'Neil",
				email: 'ann.oneil@example.com',
			});
			const requests = await admin<Array<{ method: string; path: string; body: any }>>(
				session,
				'GET',
				'/requests',
			);
			const create = requests.find((request) => request.path === '/case/create')!;
			expect(create.body).toEqual({
				packageId: 'pkg-basic-criminal',
				email: 'ann.oneil@example.com',
				givenName: 'Ann',
				familyName: "O'Neil",
			});

			await runSandboxForADay(session);

			// "Start onboarding when a case completes": one onboarding record, from the Complete event only.
			const onboarding = await waitFor('the onboarding record', async () => {
				const received = await inbox(session, 'onboarding');
				return received.length > 0 ? received : undefined;
			});
			expect(onboarding).toHaveLength(1);
			expect(onboarding[0].body).toMatchObject({
				caseStatus: 'Complete',
				candidate: { givenName: 'Ann', familyName: "O'Neil", email: 'ann.oneil@example.com' },
				package: 'Basic Criminal',
			});

			// "Sync screening results to an ATS": one readable result per screening of the package.
			const screenings = [
				'County Criminal Search',
				'National Criminal Search',
				'Sex Offender Search',
				'SSN Trace',
			];
			const ats = await waitFor('every screening result', async () => {
				const received = await inbox(session, 'ats');
				return received.length >= screenings.length ? received : undefined;
			});
			expect(
				ats
					.map((entry) => entry.body)
					.sort((a, b) => String(a.screening).localeCompare(String(b.screening))),
			).toEqual(
				screenings.map((screening) =>
					expect.objectContaining({
						screening,
						result: 'clear',
						resultMeaning: 'Done and good',
						needsReview: false,
					}),
				),
			);

			// "Attach the report ...": one PDF of the case report, posted as a multipart upload with the candidate.
			const documents = await waitFor('the report in the ATS', async () => {
				const received = await inbox(session, 'ats-documents');
				return received.length > 0 ? received : undefined;
			});
			expect(documents).toHaveLength(1);
			const reportRequests = (
				await admin<Array<{ method: string; path: string; headers: Record<string, string> }>>(
					session,
					'GET',
					'/requests',
				)
			).filter((request) => request.path.endsWith('/report/pdf/download/url'));
			expect(reportRequests.map((request) => request.method)).toEqual(['GET']);
			const caseId = /^\/case\/id\/([^/]+)\//.exec(reportRequests[0].path)![1];
			expect(documents[0].body).toEqual({
				fields: {
					candidateEmail: 'ann.oneil@example.com',
					caseId,
					documentType: 'background-check-report',
				},
				files: [
					expect.objectContaining({
						field: 'file',
						fileName: "O'Neil-Ann-background-check.pdf",
						mimeType: 'application/pdf',
						head: expect.stringMatching(/^%PDF-/),
						size: expect.any(Number),
					}),
				],
			});
			expect((documents[0].body as any).files[0].size).toBeGreaterThan(1000);

			const api = new N8nApi(session.editorUrl, session.n8nApiKey);
			const onboardingId = session.workflows.find(
				(workflow) => workflow.name === ONBOARDING_WORKFLOW,
			)!.id;
			// The inbox can get the record before n8n has finished the execution (it saves the trigger's memory and
			// the execution's status after its last node): wait until it is listed and nothing is running, then count.
			const runs = await waitFor('the onboarding execution to finish', async () => {
				const listed = await api.listExecutions({ workflowId: onboardingId, includeData: false });
				// An empty list is not "nothing running": n8n may not have listed the execution yet.
				return listed.length > 0 &&
					listed.every((run) => !['new', 'running', 'waiting'].includes(run.status))
					? listed
					: undefined;
			});
			expect(runs.map((run) => run.status)).toEqual(['success']);
		} finally {
			expect(await stopWithCtrlC(started)).toContain('[start] stopping n8n and the sandbox');
		}
		for (const url of [`${started.session.editorUrl}/healthz`, started.session.sandbox.adminUrl]) {
			await waitFor(
				`${url} to stop answering`,
				() =>
					httpRequest(url, { timeoutMs: 2000 }).then(
						() => undefined,
						() => true,
					),
				20_000,
			);
		}
	});

	it('starts again on the same folder without duplicating anything, with the new signing secrets', async () => {
		const started = await npmStart();
		try {
			const { session } = started;
			const api = new N8nApi(session.editorUrl, session.n8nApiKey);
			const workflows = await api.request<{ data: Array<{ name: string; active: boolean }> }>(
				'GET',
				'/workflows',
			);
			expect(workflows.data.map((workflow) => workflow.name).sort()).toEqual(
				[FORM_WORKFLOW, ONBOARDING_WORKFLOW, ATS_WORKFLOW, REPORT_WORKFLOW].sort(),
			);
			expect(workflows.data.every((workflow) => workflow.active)).toBe(true);
			const credentials = await api.request<{ data: unknown[] }>('GET', '/credentials');
			expect(credentials.data).toHaveLength(4);

			// The fresh sandbox generated new secrets; the updated credentials must verify its deliveries.
			await submitOrderForm(session, { first: 'Ben', last: 'Ode', email: 'ben.ode@example.com' });
			await runSandboxForADay(session);
			const onboarding = await waitFor('the onboarding record after a restart', async () => {
				const received = await inbox(session, 'onboarding');
				return received.length > 0 ? received : undefined;
			});
			expect(onboarding[0].body).toMatchObject({ candidate: { givenName: 'Ben' } });
			const deliveries = await admin<Array<{ outcome: string; statusCode: number }>>(
				session,
				'GET',
				'/webhooks/deliveries',
			);
			expect(deliveries.length).toBeGreaterThan(0);
			expect(deliveries.every((delivery) => delivery.outcome === 'succeeded')).toBe(true);
		} finally {
			expect(await stopWithCtrlC(started)).toContain('[start] stopping n8n and the sandbox');
		}
	});
});
