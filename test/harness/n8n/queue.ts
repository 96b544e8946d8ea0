/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error, no-console -- repository tooling: runs in Node.js, never inside n8n */
/**
 * n8n in queue mode on this machine, for the queue-mode suite and benchmark: PostgreSQL, Redis, a load balancer
 * that routes by path (HAProxy, nginx or Caddy: test/harness/n8n/loadBalancers.ts, BGC_QUEUE_BALANCER) and the pinned
 * n8n (test/harness/n8n/runtime.ts) as 1 main + 2 `n8n webhook` + 2 `n8n worker` processes, each with its own user
 * folder holding the packed package installed the way n8n installs it. Everything listens on 127.0.0.1 ports of
 * its own, runs under a supervisor that stops it when the launching process is gone, and lives in one scratch
 * folder.
 *
 * The load balancer runs its file in docs/queue-mode/, the one docs/queue-mode.md shows users, with only its ports
 * filled in.
 *
 *   npx tsx test/harness/n8n/queue.ts [tools|start]      (start: until Ctrl-C; prints the addresses)
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

import {
	ROUND_ROBIN,
	loadBalancerProgram,
	selectedLoadBalancer,
	startLoadBalancer,
	type LoadBalancer,
	type LoadBalancerName,
} from './loadBalancers';
import { N8nApi } from './publicApi';
import {
	exitReason,
	getFreePort,
	installPackageIntoUserFolder,
	onPath,
	packRepo,
	runCli,
	spawnSupervised,
	startN8n,
	startN8nProcess,
	stopOnSignal,
	waitUntil,
	type Logger,
	type N8nInstance,
	type N8nProcess,
	type SupervisedProcess,
} from './runtime';

export const WORKER_CONCURRENCY = 10;
const POSTGRES_DATABASE = 'n8n';
const POSTGRES_USER = 'postgres';
/** Nothing of a stack outlives this, whatever happens to the process that started it. */
const MAX_LIFETIME_MS = 45 * 60_000;

const defaultLog: Logger = (line) => process.stderr.write(`[n8n-queue] ${line}\n`);

// ---------------------------------------------------------------------------------------------
// Tools: Redis, PostgreSQL, the load balancer
// ---------------------------------------------------------------------------------------------

export interface QueueTools {
	redisServer: string;
	initdb: string;
	postgres: string;
	psql: string;
	/** Each load balancer's program. */
	balancers: Partial<Record<LoadBalancerName, string>>;
}

/** initdb and postgres from PATH, else from Debian's /usr/lib/postgresql/<version>/bin (newest). */
function postgresBin(name: 'initdb' | 'postgres'): string | undefined {
	const found = onPath(name);
	if (found) return found;
	const root = '/usr/lib/postgresql';
	if (!fs.existsSync(root)) return undefined;
	const versions = fs
		.readdirSync(root)
		.filter((v) => /^\d+$/.test(v))
		.sort((a, b) => Number(b) - Number(a));
	for (const version of versions) {
		const candidate = path.join(root, version, 'bin', name);
		if (fs.existsSync(candidate)) return candidate;
	}
	return undefined;
}

/**
 * Redis, PostgreSQL (with psql) and the load balancers `balancers`, installed with apt-get when missing (Debian
 * packages redis-server, postgresql, and haproxy, nginx or caddy; needs root). Throws with what to install
 * otherwise.
 */
export function ensureQueueTools(
	balancers: LoadBalancerName[],
	log: Logger = defaultLog,
): QueueTools {
	const findTools = () => ({
		redisServer: onPath('redis-server'),
		initdb: postgresBin('initdb'),
		postgres: postgresBin('postgres'),
		psql: onPath('psql'),
		balancers: Object.fromEntries(
			balancers.map((name) => [name, onPath(loadBalancerProgram(name).program)]),
		),
	});
	let tools = findTools();
	const missing = (t: ReturnType<typeof findTools>) => [
		...new Set([
			...(t.redisServer ? [] : ['redis-server']),
			...(t.initdb && t.postgres && t.psql ? [] : ['postgresql']),
			...balancers
				.filter((name) => !t.balancers[name])
				.map((name) => loadBalancerProgram(name).debianPackage),
		]),
	];
	const packages = missing(tools);
	if (packages.length > 0) {
		if (process.getuid?.() !== 0) {
			throw new Error(
				`queue mode needs ${packages.join(', ')}; install them (apt-get install -y ${packages.join(' ')})`,
			);
		}
		log(`installing ${packages.join(', ')} (apt-get)`);
		const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
		for (const args of [['update'], ['install', '-y', '--no-install-recommends', ...packages]]) {
			const run = spawnSync('apt-get', args, { env, encoding: 'utf8' });
			if (run.status !== 0)
				throw new Error(
					`apt-get ${args.join(' ')} failed (exit ${run.status}):\n${run.stderr.slice(-2000)}`,
				);
		}
		tools = findTools();
		const still = missing(tools);
		if (still.length > 0) throw new Error(`still missing after apt-get: ${still.join(', ')}`);
	}
	return tools as QueueTools;
}

// ---------------------------------------------------------------------------------------------
// Services
// ---------------------------------------------------------------------------------------------

/** PostgreSQL refuses to run as root: run it (and initdb) as `nobody` then, through setpriv. */
function asPostgresUser(command: string, args: string[]): [string, string[]] {
	if (process.getuid?.() !== 0) return [command, args];
	return ['setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', command, ...args]];
}

function runChecked(command: string, args: string[], input?: string): void {
	const run = spawnSync(command, args, { encoding: 'utf8', input });
	if (run.status !== 0)
		throw new Error(
			`${command} ${args.join(' ')} failed (exit ${run.status}):\n${run.stdout}\n${run.stderr}`,
		);
}

/** Whether something accepts TCP connections on 127.0.0.1:`port`. */
function tcpAccepts(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const socket = net.connect({ host: '127.0.0.1', port }, () => {
			socket.destroy();
			resolve(true);
		});
		socket.setTimeout(1000, () => socket.destroy());
		socket.on('error', () => resolve(false));
		socket.on('close', () => resolve(false));
	});
}

/** Whether a TCP server answers `request` with something starting with `expected`. */
function tcpAnswers(port: number, request: string, expected: string): Promise<boolean> {
	return new Promise((resolve) => {
		const socket = net.connect({ host: '127.0.0.1', port }, () => socket.write(request));
		let got = '';
		socket.setTimeout(1000, () => socket.destroy());
		socket.on('data', (chunk) => {
			got += chunk.toString();
			if (got.length >= expected.length) {
				socket.destroy();
				resolve(got.startsWith(expected));
			}
		});
		socket.on('error', () => resolve(false));
		socket.on('close', () => resolve(false));
	});
}

async function startPostgres(
	tools: QueueTools,
	dir: string,
	log: Logger,
): Promise<{ port: number; process: SupervisedProcess }> {
	const data = path.join(dir, 'data');
	fs.mkdirSync(dir, { recursive: true });
	if (process.getuid?.() === 0) spawnSync('chown', ['nobody:nogroup', dir]);
	runChecked(
		...asPostgresUser(tools.initdb, [
			'-D',
			data,
			'-U',
			POSTGRES_USER,
			'--auth=trust',
			'-E',
			'UTF8',
			'--no-sync',
		]),
	);
	// The database n8n uses, made in single-user mode before the server starts (no client program needed).
	runChecked(
		...asPostgresUser(tools.postgres, ['--single', '-D', data, 'postgres']),
		`CREATE DATABASE ${POSTGRES_DATABASE};\n`,
	);
	const port = await getFreePort();
	const logFile = path.join(dir, 'postgres.log');
	// Scratch data: durability settings off, as for any throw-away test database.
	const [command, args] = asPostgresUser(tools.postgres, [
		'-D',
		data,
		'-p',
		String(port),
		'-c',
		'listen_addresses=127.0.0.1',
		'-k',
		dir,
		'-c',
		'fsync=off',
		'-c',
		'synchronous_commit=off',
		'-c',
		'full_page_writes=off',
		'-c',
		'max_connections=200',
	]);
	const proc = spawnSupervised(command, args, {
		cwd: dir,
		env: { ...process.env, BGC_SUPERVISOR_MAX_MS: String(MAX_LIFETIME_MS) },
		logFile,
	});
	// The startup packet of protocol 3.0 for user postgres: a running server answers with 'R' (authentication).
	const user = Buffer.from(`user\0${POSTGRES_USER}\0database\0${POSTGRES_DATABASE}\0\0`);
	const startup = Buffer.alloc(8 + user.length);
	startup.writeInt32BE(startup.length, 0);
	startup.writeInt32BE(196608, 4);
	user.copy(startup, 8);
	await waitUntil(
		'PostgreSQL',
		30_000,
		() => tcpAnswers(port, startup.toString('latin1'), 'R'),
		exitReason(proc, logFile),
	);
	log(`PostgreSQL on 127.0.0.1:${port} (database ${POSTGRES_DATABASE}, log ${logFile})`);
	return { port, process: proc };
}

async function startRedis(
	tools: QueueTools,
	dir: string,
	log: Logger,
): Promise<{ port: number; process: SupervisedProcess }> {
	fs.mkdirSync(dir, { recursive: true });
	const port = await getFreePort();
	const logFile = path.join(dir, 'redis.log');
	const proc = spawnSupervised(
		tools.redisServer,
		[
			'--port',
			String(port),
			'--bind',
			'127.0.0.1',
			'--save',
			'',
			'--appendonly',
			'no',
			'--dir',
			dir,
		],
		{ cwd: dir, env: { ...process.env, BGC_SUPERVISOR_MAX_MS: String(MAX_LIFETIME_MS) }, logFile },
	);
	await waitUntil(
		'Redis',
		20_000,
		() => tcpAnswers(port, 'PING\r\n', '+PONG'),
		exitReason(proc, logFile),
	);
	log(`Redis on 127.0.0.1:${port}`);
	return { port, process: proc };
}

// ---------------------------------------------------------------------------------------------
// The stack
// ---------------------------------------------------------------------------------------------

export interface QueueStack {
	/** Scratch folder: services' data and logs, one user folder per n8n process. */
	dir: string;
	main: N8nInstance;
	/** Public API of the main process (executions are counted here). */
	api: N8nApi;
	webhooks: N8nProcess[];
	workers: N8nProcess[];
	/** The load balancer in front of the webhook processes. */
	balancer: LoadBalancer;
	/** Its base URL of production webhooks (`<lbUrl>/webhook/<path>`). */
	lbUrl: string;
	/** With `roundRobin`: a second balancer in front of the same processes, sending requests in turn. */
	roundRobin?: LoadBalancer;
	/** Runs SQL in the stack's database (n8n's own; psql) and returns what it prints, rows as `a|b` lines. */
	sql(statement: string): string;
	postgresPort: number;
	redisPort: number;
	/**
	 * Stops webhook process `index` (SIGTERM, or SIGKILL with `crash`) and waits until the load balancer sees it
	 * down, as far as it shows its view (loadBalancers.ts).
	 */
	stopWebhook(index: number, opts?: { crash?: boolean }): Promise<void>;
	/** Starts webhook process `index` again on its port and user folder, and waits until the load balancer sees it up (as above). */
	startWebhook(index: number): Promise<void>;
	/** Stops every n8n process (SIGTERM), the main process included, as when the whole deployment goes down. */
	stopN8n(): Promise<void>;
	/**
	 * Starts them again on their ports and user folders (the main process first) and waits until the load
	 * balancer sees the webhook processes up; `main`, `api`, `webhooks` and `workers` are then the new ones.
	 */
	startN8n(): Promise<void>;
	/** Stops everything (n8n first, then the load balancer, Redis, PostgreSQL) and removes the scratch folder (kept with BGC_E2E_KEEP=1). */
	stop(): Promise<void>;
}

export interface StartQueueStackOptions {
	/** Scratch folder; a new one under the OS temp folder when omitted. */
	dir?: string;
	/** The packed package; packs this repo when omitted. */
	tarball?: string;
	log?: Logger;
	/** Extra environment for every n8n process. */
	env?: Record<string, string>;
	/** Default: BGC_QUEUE_BALANCER (loadBalancers.ts). */
	balancer?: LoadBalancerName;
	/** Also start the round-robin balancer (docs/queue-mode/haproxy-round-robin.cfg). */
	roundRobin?: boolean;
}

/** Environment every n8n process of the stack shares (docs/queue-mode.md, Set-up, lists the same). */
export function queueModeEnv(o: {
	postgresPort: number;
	redisPort: number;
	lbUrl: string;
}): Record<string, string> {
	return {
		EXECUTIONS_MODE: 'queue',
		QUEUE_BULL_REDIS_HOST: '127.0.0.1',
		QUEUE_BULL_REDIS_PORT: String(o.redisPort),
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: '127.0.0.1',
		DB_POSTGRESDB_PORT: String(o.postgresPort),
		DB_POSTGRESDB_DATABASE: POSTGRES_DATABASE,
		DB_POSTGRESDB_USER: POSTGRES_USER,
		DB_POSTGRESDB_PASSWORD: '',
		// The URL n8n shows for production webhooks: the load balancer's.
		WEBHOOK_URL: `${o.lbUrl}/`,
		N8N_WEBHOOK_URL: `${o.lbUrl}/`,
		// n8n 2.x warns that manual executions will run on workers only; say so now.
		OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
	};
}

/**
 * Starts the whole stack: PostgreSQL and Redis, the main process (it migrates the database and holds the
 * owner account and API key), then the two webhook processes and two workers together, then the load balancer;
 * resolves once it sees both webhook processes up (as far as it shows its view).
 */
export async function startQueueStack(opts: StartQueueStackOptions = {}): Promise<QueueStack> {
	const log = opts.log ?? defaultLog;
	const t0 = Date.now();
	const balancerName = opts.balancer ?? selectedLoadBalancer();
	const tools = ensureQueueTools(
		opts.roundRobin ? [balancerName, ROUND_ROBIN] : [balancerName],
		log,
	);
	const dir = opts.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'bgc-queue-'));
	fs.mkdirSync(dir, { recursive: true });
	// PostgreSQL runs as nobody, who must reach its folder.
	fs.chmodSync(dir, 0o755);
	const tarball = opts.tarball ?? (await packRepo({ log }));
	// n8n processes stop together first, then the load balancer, Redis and PostgreSQL.
	const n8nProcesses: N8nProcess[] = [];
	const cleanups: Array<() => Promise<void>> = [];
	const stopAll = async () => {
		await Promise.all(n8nProcesses.splice(0).map((p) => p.stop().catch(() => undefined)));
		for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
	};
	try {
		const [postgres, redis] = await Promise.all([
			startPostgres(tools, path.join(dir, 'postgres'), log),
			startRedis(tools, path.join(dir, 'redis'), log),
		]);
		// Fast shutdown (SIGINT): the data is scratch.
		cleanups.push(
			() => postgres.process.stop(5_000, 'SIGINT'),
			() => redis.process.stop(5_000),
		);
		const [lbPort, webhook1Port, webhook2Port, roundRobinPort, mainPort] =
			await distinctFreePorts(5);
		const lbUrl = `http://127.0.0.1:${lbPort}`;
		const env = {
			...queueModeEnv({ postgresPort: postgres.port, redisPort: redis.port, lbUrl }),
			...opts.env,
		};

		const folders = ['main', 'webhook-1', 'webhook-2', 'worker-1', 'worker-2'].map((name) =>
			path.join(dir, name),
		);
		for (const folder of folders) await installPackageIntoUserFolder(folder, { tarball, log });

		const webhookPorts = [webhook1Port, webhook2Port];
		const startWebhookProcess = (index: number) =>
			startN8nProcess({
				command: 'webhook',
				userFolder: folders[1 + index],
				port: webhookPorts[index],
				log,
				env,
			});
		/** The main process first (it runs the database migrations the others need), then the rest together. */
		const startProcesses = async () => {
			const main = await startN8n({
				userFolder: folders[0],
				port: mainPort,
				log,
				env: { ...env, N8N_DISABLE_PRODUCTION_MAIN_PROCESS: 'true' },
			});
			n8nProcesses.push(main);
			const started = await Promise.allSettled([
				startWebhookProcess(0),
				startWebhookProcess(1),
				...[3, 4].map((index) =>
					startN8nProcess({
						command: 'worker',
						args: [`--concurrency=${WORKER_CONCURRENCY}`],
						userFolder: folders[index],
						log,
						env,
					}),
				),
			]);
			for (const result of started)
				if (result.status === 'fulfilled') n8nProcesses.push(result.value);
			const failed = started.find(
				(result): result is PromiseRejectedResult => result.status === 'rejected',
			);
			if (failed) throw failed.reason;
			const [webhook1, webhook2, worker1, worker2] = started.map(
				(result) => (result as PromiseFulfilledResult<N8nProcess>).value,
			);
			return { main, webhooks: [webhook1, webhook2], workers: [worker1, worker2] };
		};
		const { main, webhooks, workers } = await startProcesses();

		const startBalancer = async (name: LoadBalancerName, port: number) => {
			const started = await startLoadBalancer({
				name,
				program: tools.balancers[name] as string,
				dir: path.join(dir, name),
				port,
				webhookPorts,
				maxLifetimeMs: MAX_LIFETIME_MS,
			});
			cleanups.push(() => started.stop());
			return started;
		};
		const balancer = await startBalancer(balancerName, lbPort);
		const roundRobin = opts.roundRobin
			? await startBalancer(ROUND_ROBIN, roundRobinPort)
			: undefined;
		const balancers = [balancer, ...(roundRobin ? [roundRobin] : [])];
		const waitForServer = async (index: number, status: 'UP' | 'DOWN') => {
			for (const each of balancers) await each.waitFor(index, status, 30_000);
		};
		const waitForWebhookProcesses = async (status: 'UP' | 'DOWN') => {
			for (const index of webhookPorts.keys()) await waitForServer(index, status);
		};
		await waitForWebhookProcesses('UP');

		const stack: QueueStack = {
			dir,
			main,
			api: new N8nApi(main.baseUrl, main.apiKey),
			webhooks,
			workers,
			balancer,
			lbUrl,
			roundRobin,
			sql: (statement) => {
				const run = spawnSync(
					tools.psql,
					[
						'-h',
						'127.0.0.1',
						'-p',
						String(postgres.port),
						'-U',
						POSTGRES_USER,
						'-d',
						POSTGRES_DATABASE,
						'-v',
						'ON_ERROR_STOP=1',
						'-At',
						'-c',
						statement,
					],
					{ encoding: 'utf8' },
				);
				if (run.status !== 0) throw new Error(`psql: ${run.stderr.trim() || `exit ${run.status}`}`);
				return run.stdout;
			},
			postgresPort: postgres.port,
			redisPort: redis.port,
			stopWebhook: async (index, stopOpts = {}) => {
				const proc = stack.webhooks[index];
				if (stopOpts.crash) await proc.kill();
				else await proc.stop();
				// Gone once its port refuses connections: a dying process's socket still accepts a moment longer,
				// and resets what it accepted (a balancer answers those 502, as for any request inside a crash).
				await waitUntil(
					`webhook process ${index + 1} gone from port ${proc.port}`,
					10_000,
					async () => !(await tcpAccepts(proc.port)),
				);
				await waitForServer(index, 'DOWN');
			},
			startWebhook: async (index) => {
				const proc = await startWebhookProcess(index);
				stack.webhooks[index] = proc;
				n8nProcesses.push(proc);
				await waitForServer(index, 'UP');
			},
			stopN8n: async () => {
				await Promise.all(n8nProcesses.splice(0).map((proc) => proc.stop()));
				await waitForWebhookProcesses('DOWN');
			},
			startN8n: async () => {
				const started = await startProcesses();
				Object.assign(stack, started, {
					api: new N8nApi(started.main.baseUrl, started.main.apiKey),
				});
				await waitForWebhookProcesses('UP');
			},
			stop: async () => {
				await stopAll();
				if (process.env.BGC_E2E_KEEP !== '1') fs.rmSync(dir, { recursive: true, force: true });
			},
		};
		log(
			`queue-mode stack ready in ${((Date.now() - t0) / 1000).toFixed(1)} s: ${balancer.label} ${lbUrl} (${balancer.configFile}), main ${main.baseUrl}`,
		);
		return stack;
	} catch (error) {
		await stopAll();
		throw error;
	}
}

async function distinctFreePorts(count: number): Promise<number[]> {
	const ports = new Set<number>();
	while (ports.size < count) ports.add(await getFreePort());
	return [...ports];
}

if (require.main === module) {
	const cmd = process.argv[2] ?? 'start';
	runCli(async () => {
		if (cmd === 'tools') {
			console.log(JSON.stringify(ensureQueueTools([selectedLoadBalancer(), ROUND_ROBIN]), null, 2));
		} else if (cmd === 'start') {
			const stack = await startQueueStack({ dir: process.argv[3] });
			console.log(
				JSON.stringify(
					{
						loadBalancer: `${stack.balancer.label} ${stack.lbUrl}`,
						loadBalancerConfig: stack.balancer.configFile,
						main: stack.main.baseUrl,
						apiKey: stack.main.apiKey,
						owner: stack.main.owner,
						dir: stack.dir,
					},
					null,
					2,
				),
			);
			stopOnSignal(() => stack.stop());
		} else {
			throw new Error(`unknown command ${cmd}`);
		}
	});
}
