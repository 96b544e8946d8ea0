/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- repository tooling: runs in Node.js, never inside n8n */
/**
 * What n8n checks before it verifies a community package: n8n's own toolchain (@n8n/node-cli) with its
 * generated config, the CLI's Cloud-eligibility check, the starter's release path (its release scripts and the
 * publish workflow the CLI writes, which publishes with provenance), and package
 * metadata that names one repository. `n8n-node lint` itself runs in `npm run lint` (scripts/lint.mjs).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';

const root = join(__dirname, '..', '..');
const cli = join(root, 'node_modules', '@n8n', 'node-cli');
const sharedTemplate = join(cli, 'dist', 'template', 'templates', 'shared', 'default');
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
			readFileSync(join(sharedTemplate, 'eslint.config.mjs'), 'utf8'),
		);
		expect(read('.prettierrc.js')).toBe(
			readFileSync(join(sharedTemplate, '.prettierrc.js'), 'utf8'),
		);
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
});

describe("n8n's release path, as the starter the pinned CLI generates", () => {
	type Step = { uses?: string; run?: string; env?: Record<string, string> };
	type Workflow = {
		on: { push?: { tags?: string[] } };
		jobs: Record<string, { permissions?: Record<string, string>; steps: Step[] }>;
	};
	const starterPackageJson = JSON.parse(
		readFileSync(
			join(
				cli,
				'dist',
				'template',
				'templates',
				'programmatic',
				'example',
				'template',
				'package.json',
			),
			'utf8',
		),
	);

	it("has the starter's release scripts: `npm run release` is n8n-node release, and n8n-node prerelease guards npm publish", () => {
		expect(packageJson.scripts.release).toBe(starterPackageJson.scripts.release);
		expect(packageJson.scripts.prepublishOnly).toBe(starterPackageJson.scripts.prepublishOnly);
		expect([packageJson.scripts.release, packageJson.scripts.prepublishOnly]).toEqual([
			'n8n-node release',
			'n8n-node prerelease',
		]);
		// n8n-node release runs release-it outside CI, as the starter does.
		expect(packageJson.devDependencies['release-it']).toMatch(/^\d+\.\d+\.\d+$/);
	});

	it('has publish.yml exactly as `n8n-node release --init-workflow` of the pinned CLI writes it', () => {
		const handlebars = require(require.resolve('handlebars', { paths: [cli] })); // eslint-disable-line @typescript-eslint/no-require-imports
		const template = readFileSync(
			join(sharedTemplate, '.github', 'workflows', 'publish.yml'),
			'utf8',
		);
		const rendered = handlebars.compile(template, { noEscape: true })({
			packageManager: { name: 'npm', installCommand: 'ci' },
		});
		expect(read('.github', 'workflows', 'publish.yml')).toBe(rendered);
	});

	it('publish.yml, on a version tag, mints the OIDC token for provenance (id-token: write) and runs npm ci, then npm run release', () => {
		const publish: Workflow = parse(read('.github', 'workflows', 'publish.yml'));
		expect(Object.keys(publish.on)).toEqual(['push']);
		expect(publish.on.push?.tags).toEqual(['*.*.*']);
		const [job] = Object.values(publish.jobs);
		expect(job.permissions).toEqual({ 'id-token': 'write', contents: 'read' });
		const commands = job.steps.flatMap((step) => (step.run ? [step.run.trim()] : []));
		expect(commands[0]).toBe('npm ci');
		expect(commands[1].split('\n').map((line) => line.trim())).toEqual([
			'[ -n "$NPM_TOKEN" ] && npm config set //registry.npmjs.org/:_authToken "$NPM_TOKEN"',
			'npm run release',
		]);
	});

	describe('npm publish', () => {
		const publish = (env: Record<string, string> = {}) =>
			spawnSync('npm', ['publish', '--dry-run', '--ignore-scripts=false'], {
				cwd: root,
				encoding: 'utf8',
				env: {
					...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k))),
					...env,
				},
				timeout: 120_000,
			});

		it('run by hand is refused by n8n-node prerelease, which names npm run release', () => {
			const refused = publish();
			expect(refused.status).not.toBe(0);
			expect(`${refused.stdout}${refused.stderr}`).toContain(
				'Run `npm run release` to publish the package',
			);
		});

		it('goes on in RELEASE_MODE, which n8n-node release sets for its npm publish', () => {
			const allowed = publish({ RELEASE_MODE: 'true' });
			expect(`${allowed.stdout}${allowed.stderr}`).not.toContain('Run `npm run release`');
			expect(allowed.status).toBe(0);
		});
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

	it('in the README', () => {
		const linked = [...read('README.md').matchAll(/https:\/\/github\.com\/[\w.-]+\/[\w.-]+/g)].map(
			([link]) => link,
		);
		expect(linked.length).toBeGreaterThan(0);
		expect(new Set(linked)).toEqual(new Set([url]));
	});
});
