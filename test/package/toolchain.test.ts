/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- repository tooling: runs in Node.js, never inside n8n */
/**
 * Issue 17: what n8n checks before it verifies a community package: n8n's own toolchain (@n8n/node-cli) with
 * its generated config, the CLI's Cloud-eligibility check, a publish workflow with provenance, and package
 * metadata that names one repository. `n8n-node lint` itself runs in `npm run lint` (scripts/lint.mjs).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';

const root = join(__dirname, '..', '..');
const cli = join(root, 'node_modules', '@n8n', 'node-cli');
const template = join(cli, 'dist', 'template', 'templates', 'shared', 'default');
const read = (...path: string[]) => readFileSync(join(root, ...path), 'utf8');
const packageJson = JSON.parse(read('package.json'));

/** Runs the CLI's own `n8n-node cloud-support` (status) in `dir` and returns its output (NO_COLOR: plain text). */
function cloudSupportStatus(dir: string): string {
	const result = spawnSync(join(root, 'node_modules', '.bin', 'n8n-node'), ['cloud-support'], {
		cwd: dir,
		encoding: 'utf8',
		env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
	});
	return `${result.stdout}${result.stderr}`;
}

describe("n8n's toolchain", () => {
	it('pins @n8n/node-cli, eslint and prettier exactly, as dev dependencies', () => {
		for (const name of ['@n8n/node-cli', 'eslint', 'prettier']) {
			expect(packageJson.devDependencies[name]).toMatch(/^\d+\.\d+\.\d+$/);
		}
		expect(packageJson.n8n.strict).toBe(true);
	});

	it('has eslint.config.mjs and .prettierrc.js exactly as the pinned CLI generates them', () => {
		expect(read('eslint.config.mjs')).toBe(
			readFileSync(join(template, 'eslint.config.mjs'), 'utf8'),
		);
		expect(read('.prettierrc.js')).toBe(readFileSync(join(template, '.prettierrc.js'), 'utf8'));
	});

	describe("the CLI's Cloud-eligibility check (n8n-node cloud-support)", () => {
		let copy: string;
		beforeEach(() => {
			copy = mkdtempSync(join(tmpdir(), 'bgc-cloud-'));
			cpSync(join(root, 'package.json'), join(copy, 'package.json'));
			cpSync(join(root, 'eslint.config.mjs'), join(copy, 'eslint.config.mjs'));
		});
		afterEach(() => rmSync(copy, { recursive: true, force: true }));

		it('says the package is eligible', () => {
			const output = cloudSupportStatus(root);
			expect(output).toContain('Cloud support is ENABLED');
			expect(output).toMatch(/Status: eligible for n8n Cloud verification/);
		});

		// The same command on copies that differ in one point: the check above can fail.
		it('says a copy with a changed eslint.config.mjs is not eligible', () => {
			writeFileSync(
				join(copy, 'eslint.config.mjs'),
				`${read('eslint.config.mjs')}\nexport const extra = 1;\n`,
			);
			expect(cloudSupportStatus(copy)).toMatch(
				/Cloud support is DISABLED[\s\S]*ESLint config: using custom config/,
			);
		});

		it('says a copy without n8n.strict is not eligible', () => {
			writeFileSync(
				join(copy, 'package.json'),
				JSON.stringify({ ...packageJson, n8n: { ...packageJson.n8n, strict: false } }),
			);
			expect(cloudSupportStatus(copy)).toMatch(
				/Cloud support is DISABLED[\s\S]*Strict mode: disabled/,
			);
		});
	});
});

describe('the GitHub workflows', () => {
	type Step = {
		uses?: string;
		run?: string;
		with?: Record<string, unknown>;
		env?: Record<string, string>;
	};
	type Job = {
		'runs-on': string;
		if?: string;
		permissions?: Record<string, string>;
		steps: Step[];
	};
	type Workflow = {
		on: { push?: { branches?: string[]; tags?: string[] }; pull_request?: unknown };
		permissions?: Record<string, string>;
		jobs: Record<string, Job>;
	};
	const workflow = (name: string): Workflow => parse(read('.github', 'workflows', name));
	const runs = (job: Job) => job.steps.flatMap((step) => (step.run ? [step.run.trim()] : []));

	it("ci.yml runs the README's test command on a fresh clone, for pushes to main and pull requests", () => {
		const ci = workflow('ci.yml');
		expect(ci.on.push?.branches).toEqual(['main']);
		expect(ci.on).toHaveProperty('pull_request');
		const [job] = Object.values(ci.jobs);
		expect(job.steps[0].uses).toMatch(/^actions\/checkout@/);
		const readmeCommand = /^(npm test)\s+#/m.exec(read('README.md'))?.[1];
		expect(readmeCommand).toBe('npm test');
		expect(runs(job).slice(-2)).toEqual(['npm ci', readmeCommand]);
		// Before them only the system packages queue mode starts (a GitHub runner is not root).
		for (const step of runs(job).slice(0, -2)) expect(step).toMatch(/^sudo apt-get /);
		// The oldest pinned n8n runs on the runner's Node.js.
		const setupNode = job.steps.find((step) => step.uses?.startsWith('actions/setup-node@'))!;
		expect(String(setupNode.with!['node-version'])).toBe('20');
	});

	it('publish.yml, on a version tag: checks the tag, builds, lints and publishes with provenance (id-token: write)', () => {
		const publish = workflow('publish.yml');
		expect(Object.keys(publish.on)).toEqual(['push']);
		expect(publish.on.push?.tags).toEqual(['*.*.*']);
		const [job] = Object.values(publish.jobs);
		expect(job.permissions).toEqual({ 'id-token': 'write', contents: 'read' });
		const commands = runs(job);
		const at = (command: string) => commands.findIndex((run) => run.startsWith(command));
		expect(at('npm ci')).toBe(0);
		expect(at('test "$GITHUB_REF_NAME" = ')).toBeGreaterThan(at('npm ci'));
		expect(at('npm run build')).toBeGreaterThan(at('test "$GITHUB_REF_NAME"'));
		expect(at('npm run lint')).toBeGreaterThan(at('npm run build'));
		expect(commands[commands.length - 1]).toBe('npm publish --provenance --access public');
		const setupNode = job.steps.find((step) => step.uses?.startsWith('actions/setup-node@'))!;
		expect(setupNode.with!['registry-url']).toBe('https://registry.npmjs.org');
	});
});

describe('package metadata names one public repository', () => {
	const repository = /^git\+https:\/\/github\.com\/([\w.-]+\/[\w.-]+)\.git$/.exec(
		packageJson.repository.url,
	)?.[1];
	const url = `https://github.com/${repository}`;

	it('in repository, homepage and bugs', () => {
		expect(repository).toBeDefined();
		expect(packageJson.repository.type).toBe('git');
		expect(packageJson.homepage).toBe(`${url}#readme`);
		expect(packageJson.bugs.url).toBe(`${url}/issues`);
		expect(packageJson.author.name).toEqual(expect.any(String));
	});

	it('in the publish workflow (only that repository publishes) and in the README', () => {
		const [job] = Object.values(parse(read('.github', 'workflows', 'publish.yml')).jobs) as Array<{
			if: string;
		}>;
		expect(job.if).toBe(`github.repository == '${repository}'`);
		const linked = [...read('README.md').matchAll(/https:\/\/github\.com\/[\w.-]+\/[\w.-]+/g)].map(
			([link]) => link,
		);
		expect(linked.length).toBeGreaterThan(0);
		expect(new Set(linked)).toEqual(new Set([url]));
	});
});
