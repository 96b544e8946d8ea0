/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- repository tooling: runs in Node.js, never inside n8n */
/**
 * The load balancers in front of n8n's webhook processes (queue mode): HAProxy, nginx and Caddy routing by URL
 * path, and a round-robin one (HAProxy's `balance roundrobin`, standing for Traefik, a Kubernetes Service or a
 * cloud balancer), each run from the file users copy (docs/queue-mode/haproxy.cfg, nginx.conf, Caddyfile,
 * haproxy-round-robin.cfg) with only its {{...}} ports filled in, from its Debian package, on 127.0.0.1, under a
 * supervisor (it stops by itself when the process that started it is gone).
 *
 * Each tells which webhook process took how many requests, from what it reports itself: HAProxy's stats page,
 * nginx's access log (`$upstream_addr`), Caddy's proxy log ("upstream roundtrip"). HAProxy and Caddy are waited
 * on, after a webhook process stopped or started, until their health checks see it so (HAProxy's stats page,
 * Caddy's health checker in its log); open-source nginx has no health check and shows nothing (it learns of a
 * dead process from a refused connection, which it sends to the other process).
 *
 * BGC_QUEUE_BALANCER picks one (haproxy, nginx or caddy; default nginx; `npm test` runs haproxy).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { httpRequest } from './http';
import {
	exitReason,
	getFreePort,
	spawnSupervised,
	waitUntil,
	type SupervisedProcess,
} from './runtime';

/** The balancers that send every request for one path to one process. */
export const LOAD_BALANCERS = ['haproxy', 'nginx', 'caddy'] as const;
export type PathBalancerName = (typeof LOAD_BALANCERS)[number];
/** Requests take turns over the processes, whatever their path. */
export const ROUND_ROBIN = 'round-robin';
export type LoadBalancerName = PathBalancerName | typeof ROUND_ROBIN;
/** The one `npm test` runs: nginx is the most used of the three. */
export const DEFAULT_LOAD_BALANCER: PathBalancerName = 'nginx';
/** Names of the webhook processes, in order (HAProxy's configuration names its servers so). */
export const WEBHOOK_SERVERS = ['webhook1', 'webhook2'] as const;

const CONFIG_DIR = path.resolve(__dirname, '..', '..', '..', 'docs', 'queue-mode');

interface LoadBalancerKind {
	label: string;
	/** The file users copy, in docs/queue-mode/. */
	configFile: string;
	/** Debian package and the program it installs. */
	debianPackage: string;
	program: string;
	/** Ports of the file beyond LB_PORT and WEBHOOK_<n>_PORT. */
	extraPorts: string[];
	/** What it reports about the processes, as far as it does. */
	observe(o: {
		ports: Record<string, number>;
		logFile: string;
		webhookPorts: number[];
	}): Pick<LoadBalancer, 'served' | 'waitFor'>;
}

const HAPROXY = {
	debianPackage: 'haproxy',
	program: 'haproxy',
	extraPorts: ['STATS_PORT'],
	observe: haproxyStats,
} satisfies Partial<LoadBalancerKind>;

const KINDS: Record<LoadBalancerName, LoadBalancerKind> = {
	haproxy: {
		...HAPROXY,
		label: 'HAProxy',
		configFile: path.join(CONFIG_DIR, 'haproxy.cfg'),
	},
	nginx: {
		label: 'nginx',
		configFile: path.join(CONFIG_DIR, 'nginx.conf'),
		debianPackage: 'nginx',
		program: 'nginx',
		extraPorts: [],
		observe: ({ logFile, webhookPorts }) => {
			const log = new LogLines(logFile);
			const served = byServer(() => 0);
			return {
				served: async () => {
					// `upstream=<addr>`, or `upstream=<refused>, <addr>` after a retry: the last one answered.
					for (const line of await log.settled()) {
						const upstream = /upstream=(.*)$/.exec(line)?.[1].split(', ').pop();
						const index = webhookPorts.findIndex((port) => upstream === `127.0.0.1:${port}`);
						if (index >= 0) served[WEBHOOK_SERVERS[index]]++;
					}
					return { ...served };
				},
				// Nothing to wait for: nginx shows no view of the processes (see the top of this file).
				waitFor: async () => undefined,
			};
		},
	},
	// The same HAProxy with another file.
	'round-robin': {
		...HAPROXY,
		label: 'round robin (HAProxy)',
		configFile: path.join(CONFIG_DIR, 'haproxy-round-robin.cfg'),
	},
	caddy: {
		label: 'Caddy',
		configFile: path.join(CONFIG_DIR, 'Caddyfile'),
		debianPackage: 'caddy',
		program: 'caddy',
		extraPorts: ['ADMIN_PORT'],
		observe: ({ logFile, webhookPorts }) => {
			const log = new LogLines(logFile);
			const served = byServer(() => 0);
			/** Per process: whether Caddy's health checker last found it up or down (Caddy starts with every process up). */
			const health: Array<'UP' | 'DOWN'> = webhookPorts.map(() => 'UP');
			const readLog = async (settle = false) => {
				for (const line of settle ? await log.settled() : log.read()) {
					let entry: Record<string, unknown>;
					try {
						entry = JSON.parse(line);
					} catch {
						continue;
					}
					const host = String(entry.upstream ?? entry.host ?? '');
					const index = webhookPorts.findIndex((port) => host === `127.0.0.1:${port}`);
					if (index < 0) continue;
					// A round trip that got an answer (a refused connection is logged with an error instead).
					if (entry.msg === 'upstream roundtrip' && entry.status !== undefined)
						served[WEBHOOK_SERVERS[index]]++;
					if (entry.logger === 'http.handlers.reverse_proxy.health_checker.active')
						if (entry.msg === 'host is up') health[index] = 'UP';
						else if (
							['HTTP request failed', 'unexpected status code', 'host is down'].includes(
								String(entry.msg),
							)
						)
							health[index] = 'DOWN';
				}
			};
			return {
				served: async () => {
					await readLog(true);
					return { ...served };
				},
				waitFor: async (index, status, timeoutMs) =>
					await waitUntil(
						`Caddy's health check sees ${WEBHOOK_SERVERS[index]} ${status}`,
						timeoutMs,
						async () => {
							await readLog();
							return health[index] === status;
						},
					),
			};
		},
	},
};

/** Requests per process and which are up, from HAProxy's stats page (both HAProxy files name them so). */
function haproxyStats({
	ports,
}: {
	ports: Record<string, number>;
}): Pick<LoadBalancer, 'served' | 'waitFor'> {
	const servers = async () => {
		const answer = await httpRequest(`http://127.0.0.1:${ports.STATS_PORT}/stats;csv`, {
			timeoutMs: 5_000,
		});
		if (answer.status !== 200) throw new Error(`HAProxy stats answered ${answer.status}`);
		const [head, ...rows] = answer.text
			.replace(/^# /, '')
			.trim()
			.split('\n')
			.map((line) => line.split(','));
		const column = (name: string) => head.indexOf(name);
		const found: Record<string, { status: string; requests: number }> = {};
		for (const row of rows)
			if (
				row[column('pxname')] === 'n8n_webhook_processes' &&
				(WEBHOOK_SERVERS as readonly string[]).includes(row[column('svname')])
			)
				found[row[column('svname')]] = {
					status: row[column('status')],
					requests: Number(row[column('stot')]),
				};
		return found;
	};
	return {
		served: async () => {
			const found = await servers();
			return byServer((name) => found[name]?.requests ?? 0);
		},
		waitFor: async (index, status, timeoutMs) =>
			await waitUntil(
				`HAProxy sees ${WEBHOOK_SERVERS[index]} ${status}`,
				timeoutMs,
				async () => (await servers())[WEBHOOK_SERVERS[index]]?.status === status,
			),
	};
}

function byServer(count: (name: string) => number): Record<string, number> {
	return Object.fromEntries(WEBHOOK_SERVERS.map((name) => [name, count(name)]));
}

/** The lines appended to a log file since the last read (a partial last line waits for the next read). */
class LogLines {
	private offset = 0;
	private partial = '';

	constructor(private readonly file: string) {}

	/**
	 * Every line written so far: reads until nothing new came for 250 ms (a balancer writes a request's line just
	 * after its answer, so a line can still be on its way when the sender has its answer).
	 */
	async settled(): Promise<string[]> {
		const lines = this.read();
		for (;;) {
			await new Promise((resolve) => setTimeout(resolve, 250));
			const more = this.read();
			if (more.length === 0) return lines;
			lines.push(...more);
		}
	}

	read(): string[] {
		if (!fs.existsSync(this.file)) return [];
		const size = fs.statSync(this.file).size;
		if (size <= this.offset) return [];
		const fd = fs.openSync(this.file, 'r');
		try {
			const buffer = Buffer.alloc(size - this.offset);
			fs.readSync(fd, buffer, 0, buffer.length, this.offset);
			this.offset = size;
			const lines = (this.partial + buffer.toString('utf8')).split('\n');
			this.partial = lines.pop() ?? '';
			return lines;
		} finally {
			fs.closeSync(fd);
		}
	}
}

export function loadBalancerLabel(name: LoadBalancerName): string {
	return KINDS[name].label;
}

/** The configuration file users copy for `name`. */
export function loadBalancerConfigFile(name: LoadBalancerName): string {
	return KINDS[name].configFile;
}

/** The Debian package and program of `name`. */
export function loadBalancerProgram(name: LoadBalancerName): {
	debianPackage: string;
	program: string;
} {
	return { debianPackage: KINDS[name].debianPackage, program: KINDS[name].program };
}

/** Every {{NAME}} placeholder of a configuration file, in order of first appearance. */
export function placeholders(text: string): string[] {
	return [...new Set([...text.matchAll(/\{\{(\w+)\}\}/g)].map((match) => match[1]))];
}

/** `text` with its {{NAME}} placeholders replaced; throws on one left unfilled. */
export function renderConfig(text: string, values: Record<string, number>, file: string): string {
	return text.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => {
		const value = values[name];
		if (value === undefined) throw new Error(`${file}: no value for ${whole}`);
		return String(value);
	});
}

/** BGC_QUEUE_BALANCER, default nginx. */
export function selectedLoadBalancer(): PathBalancerName {
	const name = process.env.BGC_QUEUE_BALANCER || DEFAULT_LOAD_BALANCER;
	if (!(LOAD_BALANCERS as readonly string[]).includes(name))
		throw new Error(
			`BGC_QUEUE_BALANCER is ${JSON.stringify(name)}; the load balancers are: ${LOAD_BALANCERS.join(', ')}`,
		);
	return name as PathBalancerName;
}

export interface LoadBalancer {
	name: LoadBalancerName;
	label: string;
	/** The file it runs (copied from docs/queue-mode/, ports filled in). */
	configFile: string;
	/** Where the provider's deliveries go: `<url>/webhook/<path>`. */
	url: string;
	/** Requests each webhook process answered through it so far, by server name (webhook1, webhook2). */
	served(): Promise<Record<string, number>>;
	/** Waits until its health checks see webhook process `index` as `status` (HAProxy, Caddy); at once for nginx. */
	waitFor(index: number, status: 'UP' | 'DOWN', timeoutMs: number): Promise<void>;
	stop(): Promise<void>;
}

/**
 * Starts `name` on 127.0.0.1:`port` in front of the webhook processes on `webhookPorts`, from its file in
 * docs/queue-mode/ with the ports filled in, in `dir` (its configuration and log).
 */
export async function startLoadBalancer(o: {
	name: LoadBalancerName;
	program: string;
	dir: string;
	port: number;
	webhookPorts: number[];
	maxLifetimeMs: number;
}): Promise<LoadBalancer> {
	const kind = KINDS[o.name];
	fs.mkdirSync(o.dir, { recursive: true });
	const ports: Record<string, number> = { LB_PORT: o.port };
	o.webhookPorts.forEach((port, index) => (ports[`WEBHOOK_${index + 1}_PORT`] = port));
	for (const name of kind.extraPorts) {
		let port = await getFreePort();
		while (Object.values(ports).includes(port)) port = await getFreePort();
		ports[name] = port;
	}
	const configFile = path.join(o.dir, path.basename(kind.configFile));
	fs.writeFileSync(
		configFile,
		renderConfig(fs.readFileSync(kind.configFile, 'utf8'), ports, kind.configFile),
	);
	const logFile = path.join(o.dir, `${o.name}.log`);
	// By program: the round-robin file runs under the same HAProxy.
	const args: Record<string, string[]> = {
		haproxy: ['-db', '-f', configFile],
		// The file's paths stay as users have them; only the pid file and start-up errors go to the scratch folder.
		nginx: [
			'-p',
			o.dir,
			'-c',
			configFile,
			'-e',
			'stderr',
			'-g',
			`daemon off; pid ${o.dir}/nginx.pid;`,
		],
		caddy: ['run', '--adapter', 'caddyfile', '--config', configFile],
	};
	const env: NodeJS.ProcessEnv = {
		...process.env,
		BGC_SUPERVISOR_MAX_MS: String(o.maxLifetimeMs),
		// Caddy keeps its state (autosaved configuration, certificates) here instead of the home folder.
		XDG_CONFIG_HOME: path.join(o.dir, 'config'),
		XDG_DATA_HOME: path.join(o.dir, 'data'),
	};
	const proc: SupervisedProcess = spawnSupervised(o.program, args[kind.program], {
		cwd: o.dir,
		env,
		logFile,
	});
	const url = `http://127.0.0.1:${o.port}`;
	const observed = kind.observe({ ports, logFile, webhookPorts: o.webhookPorts });
	const balancer: LoadBalancer = {
		name: o.name,
		label: kind.label,
		configFile,
		url,
		served: observed.served,
		waitFor: async (index, status, timeoutMs) => {
			const failed = exitReason(proc, logFile)();
			if (failed) throw new Error(`${kind.label}: ${failed}`);
			await observed.waitFor(index, status, timeoutMs);
		},
		stop: () => proc.stop(5_000),
	};
	// Listening: any HTTP answer on its port (the webhook processes may not be up yet).
	await waitUntil(
		`${kind.label} on ${url}`,
		20_000,
		async () => (await httpRequest(`${url}/healthz`, { timeoutMs: 2_000 })).status > 0,
		exitReason(proc, logFile),
	).catch(async (error) => {
		await proc.stop(5_000);
		throw error;
	});
	return balancer;
}
