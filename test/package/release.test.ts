/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- repository tooling: runs in Node.js, never inside n8n */
/**
 * A dry run of the release: what `.github/workflows/publish.yml` does on a version tag, up to and including
 * `npm publish`, against an npm registry on this machine (Verdaccio, test/harness/n8n/registry.ts) instead of
 * registry.npmjs.org. On a copy of the repository as a checkout has it (no dist/, no node_modules: the copy links
 * this repository's), the workflow's Release step runs with bash as GitHub runs it: its env evaluated with the
 * secret NPM_TOKEN set to the registry's token, the registry's address in place of registry.npmjs.org, and
 * `npm run release` as `n8n-node release` runs it in GitHub Actions (its steps read from the pinned CLI: lint,
 * build, `npm publish` in RELEASE_MODE).
 *
 * Left out, and why: `npm ci` (the copy links node_modules); the provenance statement (`n8n-node release` sets
 * NPM_CONFIG_PROVENANCE=true in GitHub Actions; npm then needs GitHub's OIDC token and sigstore, which exist only
 * inside a GitHub Actions run).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parse } from 'yaml';

import { startLocalRegistry, type LocalRegistry } from '../harness/n8n/registry';

const root = join(__dirname, '..', '..');
const read = (...path: string[]) => readFileSync(join(root, ...path), 'utf8');
const packageJson = JSON.parse(read('package.json'));
const NPMJS = '//registry.npmjs.org/';

type Step = { name?: string; run?: string; env?: Record<string, string> };
const publishWorkflow = parse(read('.github', 'workflows', 'publish.yml')) as {
	jobs: Record<string, { steps: Step[] }>;
};
const [publishJob] = Object.values(publishWorkflow.jobs);
const releaseStep = publishJob.steps.find((step) => step.run?.includes('npm run release'))!;

/** A step's env as GitHub evaluates it: `${{ secrets.NAME }}` is the secret; any other expression is refused. */
function evaluateEnv(env: Record<string, string>, secrets: Record<string, string>) {
	return Object.fromEntries(
		Object.entries(env).map(([name, value]) => [
			name,
			value.replace(/\$\{\{\s*([^}]*?)\s*\}\}/g, (_, expression: string) => {
				const secret = /^secrets\.(\w+)$/.exec(expression)?.[1];
				if (!secret) throw new Error(`${name}: no value for the expression ${expression} here`);
				return secrets[secret] ?? '';
			}),
		]),
	);
}

/**
 * What `n8n-node release` runs when GITHUB_ACTIONS is set, read from the pinned CLI's source: the package
 * manager's lint and build, then `npm publish` with RELEASE_MODE and NPM_CONFIG_PROVENANCE.
 */
function cliReleaseStepsInCi(): string[] {
	const source = readFileSync(
		join(root, 'node_modules', '@n8n', 'node-cli', 'dist', 'commands', 'release.js'),
		'utf8',
	);
	const ciBlock = /if \(isCI\) \{([\s\S]*?)return;\s*\}/.exec(source)?.[1] ?? '';
	const commands = [...ciBlock.matchAll(/runCommand\)\((pm|'npm'), \[([^\]]*)\]/g)].map(
		([, , args]) =>
			// `pm` is the detected package manager: npm here (package-lock.json).
			['npm', ...args.split(',').map((arg) => arg.trim().slice(1, -1))].join(' ').trim(),
	);
	expect(ciBlock).toContain("RELEASE_MODE: 'true'");
	expect(ciBlock).toContain("NPM_CONFIG_PROVENANCE: 'true'");
	return commands;
}

/**
 * The environment of a runner's step: without npm_config_* of an enclosing `npm run`, GitHub's variables, and
 * jest's (NODE_ENV=test makes n8n's lint rules take every file for a test fixture).
 */
function cleanEnv(): NodeJS.ProcessEnv {
	return Object.fromEntries(
		Object.entries(process.env).filter(
			([key]) => !/^(npm_|GITHUB_|JEST_)/i.test(key) && key !== 'NODE_ENV',
		),
	);
}

describe('the release, dry run against a local registry', () => {
	let registry: LocalRegistry;
	let work: string;
	let checkout: string;

	/** Runs `script` as a GitHub `run:` step (bash -eo pipefail) in the checkout, with npm pointed at the registry. */
	function runStep(script: string, env: Record<string, string>) {
		return spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
			cwd: checkout,
			encoding: 'utf8',
			env: {
				...cleanEnv(),
				...env,
				CI: 'true',
				npm_config_registry: registry.url,
				npm_config_userconfig: join(work, 'runner.npmrc'),
				npm_config_cache: join(work, 'npm-cache'),
			},
			timeout: 540_000,
		});
	}
	/** The step's line that writes the token, and the same line for the local registry's host. */
	const tokenLine = () => {
		const line = releaseStep.run!.split('\n').find((text) => text.includes('_authToken'))!;
		expect(line).toContain(NPMJS);
		return { line, local: line.replace(NPMJS, `//127.0.0.1:${registry.port}/`) };
	};

	beforeAll(async () => {
		registry = await startLocalRegistry({ log: () => undefined });
		work = mkdtempSync(join(tmpdir(), 'bgc-release-'));
		checkout = join(work, 'checkout');
		// What a checkout has: the repository without what .gitignore keeps out of it.
		const ignored = new Set([
			'node_modules',
			'dist',
			'.dev',
			'.git',
			'coverage',
			'test-artifacts',
			'bench/results',
		]);
		cpSync(root, checkout, {
			recursive: true,
			filter: (source) => {
				const path = relative(root, source);
				return !ignored.has(path) && !path.endsWith('.tgz') && !path.endsWith('database.sqlite');
			},
		});
		symlinkSync(join(root, 'node_modules'), join(checkout, 'node_modules'));
	}, 180_000);

	afterAll(async () => {
		await registry?.stop();
		if (work) rmSync(work, { recursive: true, force: true });
	});

	it("authenticates with the workflow's NPM_TOKEN, and would not with the value the CLI's template renders", () => {
		const secrets = { NPM_TOKEN: registry.token };
		const ours = evaluateEnv(releaseStep.env!, secrets);
		expect(ours.NPM_TOKEN).toBe(registry.token);
		const accepted = runStep(`${tokenLine().local}\nnpm whoami`, ours);
		expect(`${accepted.stdout}${accepted.stderr}`).toContain('bgc-publisher');
		expect(accepted.status).toBe(0);

		const rendered = evaluateEnv({ NPM_TOKEN: '$' }, secrets);
		const refused = runStep(`${tokenLine().local}\nnpm whoami`, rendered);
		expect(refused.status).not.toBe(0);
	}, 60_000);

	it('lints, builds and publishes the package, as n8n-node release does in GitHub Actions', async () => {
		const steps = cliReleaseStepsInCi();
		expect(steps).toEqual(['npm run lint', 'npm run build', 'npm publish']);
		const release = steps
			.map((step) => (step === 'npm publish' ? 'RELEASE_MODE=true npm publish' : step))
			.join('\n');
		const { line, local } = tokenLine();
		expect(releaseStep.run).toContain('npm run release');
		const ran = runStep(
			releaseStep.run!.replace(line, local).replace('npm run release', release),
			evaluateEnv(releaseStep.env!, { NPM_TOKEN: registry.token }),
		);
		// On a failure, the end of what the step printed shows why.
		const end = `${ran.stdout}\n${ran.stderr}`.slice(-4000);
		expect(ran.status === 0 ? 'exit 0' : `exit ${ran.status}:\n${end}`).toBe('exit 0');
		expect(ran.stdout).toContain(`+ ${packageJson.name}@${packageJson.version}`);

		const packument = await registry.packument(packageJson.name);
		expect(packument['dist-tags'].latest).toBe(packageJson.version);
		const tarball = join(work, 'published.tgz');
		writeFileSync(tarball, await registry.tarballBytes(packageJson.name, packageJson.version));
		const listed = spawnSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).stdout.split('\n');
		for (const file of [...packageJson.n8n.nodes, ...packageJson.n8n.credentials, 'package.json'])
			expect(listed).toContain(`package/${file}`);
	}, 600_000);
});
