/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- repository tooling: runs in Node.js, never inside n8n */
/**
 * Sends what n8n asks of https://registry.npmjs.org to a local registry, through an HTTP proxy on 127.0.0.1.
 *
 * Why a proxy: n8n's community-package installer always names its registry on npm's command line
 * (`npm pack <name>@<version> --registry=<registry>`), and a registry other than https://registry.npmjs.org
 * (N8N_COMMUNITY_PACKAGES_REGISTRY) is an Enterprise-licence feature: without the licence n8n refuses the
 * install (FeatureNotLicensedError). So an unlicensed n8n, as most users run it, is left unchanged and reaches
 * the local registry the way n8n behind a company proxy does: npm's `https-proxy` and `cafile` settings (given
 * as npm_config_* in n8n's environment, which n8n's npm calls inherit) and HTTPS_PROXY for n8n's own
 * registry look-ups. The proxy answers for registry.npmjs.org with a certificate of a throwaway authority made
 * for this run, and refuses every other host (each refusal is recorded).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import type * as net from 'node:net';
import * as path from 'node:path';

export const NPMJS_HOST = 'registry.npmjs.org';

export interface RegistryRoute {
	/** http://127.0.0.1:<port> */
	proxyUrl: string;
	/** The throwaway certificate authority npm is told to trust (PEM). */
	caFile: string;
	/** Environment for n8n (and the npm it runs) so that registry.npmjs.org is the local registry. */
	env: Record<string, string>;
	/** Requests that reached the local registry through the proxy: `METHOD path`. */
	forwarded: string[];
	/** Hosts other than registry.npmjs.org someone asked the proxy for (all refused). */
	refused: string[];
	stop(): Promise<void>;
}

function openssl(args: string[], cwd: string): void {
	const out = spawnSync('openssl', args, { cwd, encoding: 'utf8' });
	if (out.status !== 0) throw new Error(`openssl ${args.join(' ')} failed: ${out.stderr}`);
}

/** A certificate authority and a registry.npmjs.org certificate it signed, valid for two days, in `dir`. */
function makeCertificates(dir: string): { ca: string; key: string; cert: string } {
	const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
	openssl(
		[
			'req',
			'-x509',
			...ec,
			'-keyout',
			'ca.key',
			'-out',
			'ca.pem',
			'-days',
			'2',
			'-subj',
			'/CN=n8n-nodes-background-check test registry authority',
			'-addext',
			'basicConstraints=critical,CA:TRUE',
			'-addext',
			'keyUsage=critical,keyCertSign',
		],
		dir,
	);
	openssl(
		['req', ...ec, '-keyout', 'host.key', '-out', 'host.csr', '-subj', `/CN=${NPMJS_HOST}`],
		dir,
	);
	fs.writeFileSync(
		path.join(dir, 'host.ext'),
		`subjectAltName=DNS:${NPMJS_HOST}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`,
	);
	openssl(
		[
			'x509',
			'-req',
			'-in',
			'host.csr',
			'-CA',
			'ca.pem',
			'-CAkey',
			'ca.key',
			'-CAcreateserial',
			'-days',
			'2',
			'-extfile',
			'host.ext',
			'-out',
			'host.pem',
		],
		dir,
	);
	// Nothing else can be signed with it.
	fs.rmSync(path.join(dir, 'ca.key'));
	return {
		ca: path.join(dir, 'ca.pem'),
		key: fs.readFileSync(path.join(dir, 'host.key'), 'utf8'),
		cert: fs.readFileSync(path.join(dir, 'host.pem'), 'utf8'),
	};
}

/**
 * Starts the proxy on 127.0.0.1 (a free port); registry.npmjs.org goes to `registryUrl`. Certificates are
 * written into `dir`.
 */
export async function routeNpmjsTo(registryUrl: string, dir: string): Promise<RegistryRoute> {
	fs.mkdirSync(dir, { recursive: true });
	const { ca, key, cert } = makeCertificates(dir);
	// Node.js takes one file of extra authorities: the machine's (if any) and this one.
	const bundle = path.join(dir, 'node-extra-ca.pem');
	const machineExtra = process.env.NODE_EXTRA_CA_CERTS;
	fs.writeFileSync(
		bundle,
		`${machineExtra && fs.existsSync(machineExtra) ? fs.readFileSync(machineExtra, 'utf8') : ''}\n${fs.readFileSync(ca, 'utf8')}`,
	);
	const target = new URL(registryUrl);
	const forwarded: string[] = [];
	const refused: string[] = [];

	const forward = (req: http.IncomingMessage, res: http.ServerResponse, asked: string) => {
		// registry.npmjs.org answers `//<name>` as `/<name>` (the scanner asks so); Verdaccio does not.
		const pathAndQuery = asked.replace(/^\/{2,}/, '/');
		forwarded.push(`${req.method} ${pathAndQuery}`);
		const upstream = http.request(
			{
				host: target.hostname,
				port: target.port,
				method: req.method,
				path: pathAndQuery,
				// Verdaccio writes tarball URLs from these: they stay https://registry.npmjs.org/...
				headers: { ...req.headers, host: NPMJS_HOST, 'x-forwarded-proto': 'https' },
			},
			(answer) => {
				res.writeHead(answer.statusCode ?? 502, answer.headers);
				answer.pipe(res);
			},
		);
		upstream.on('error', (e) => {
			res.writeHead(502);
			res.end(String(e));
		});
		req.pipe(upstream);
	};

	// registry.npmjs.org inside the tunnel npm opens with CONNECT.
	const tls = https.createServer({ key, cert }, (req, res) => forward(req, res, req.url ?? '/'));

	const proxy = http.createServer((req, res) => {
		// A plain request with an absolute URL (how axios sends an https request through an http proxy).
		let url: URL;
		try {
			url = new URL(req.url ?? '');
		} catch {
			res.writeHead(400);
			res.end('absolute URL expected');
			return;
		}
		if (url.hostname !== NPMJS_HOST) {
			refused.push(url.hostname);
			res.writeHead(502);
			res.end(`${url.hostname} is not reachable from this test`);
			return;
		}
		forward(req, res, `${url.pathname}${url.search}`);
	});
	proxy.on('connect', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
		const host = (req.url ?? '').replace(/:\d+$/, '');
		if (host !== NPMJS_HOST) {
			refused.push(host);
			socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
			return;
		}
		socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
		if (head.length) socket.unshift(head);
		tls.emit('connection', socket);
	});
	const sockets = new Set<net.Socket>();
	proxy.on('connection', (socket: net.Socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
	const { port } = proxy.address() as net.AddressInfo;
	const proxyUrl = `http://127.0.0.1:${port}`;
	const local = '127.0.0.1,localhost,::1';

	return {
		proxyUrl,
		caFile: ca,
		env: {
			// npm, as n8n runs it (n8n's npm calls inherit its environment).
			npm_config_https_proxy: proxyUrl,
			npm_config_proxy: proxyUrl,
			npm_config_noproxy: local,
			npm_config_cafile: ca,
			// Its own cache: nothing of a previous run (or of the machine's npm) answers for the registry.
			npm_config_cache: path.join(dir, 'npm-cache'),
			// n8n's own look-ups (the version check before `npm pack`, the package-status check).
			NODE_EXTRA_CA_CERTS: bundle,
			HTTPS_PROXY: proxyUrl,
			HTTP_PROXY: proxyUrl,
			NO_PROXY: local,
		},
		forwarded,
		refused,
		stop: async () => {
			for (const socket of sockets) socket.destroy();
			await new Promise<void>((resolve) => proxy.close(() => resolve()));
		},
	};
}
