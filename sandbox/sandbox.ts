/* eslint-disable @n8n/community-nodes/no-restricted-imports -- repository tooling: runs in Node.js, never inside n8n */
/** Starting and stopping a sandbox, in-process (tests, the n8n start script) or from the CLI. */
import { randomBytes } from 'crypto';
import type { AddressInfo } from 'net';

import { SandboxAdmin, adminRoutes } from './admin';
import { SandboxClock } from './clock';
import { DEMO_CREDENTIALS, type DemoCredential } from './fixtures';
import { DEFAULT_STEP_SECONDS } from './lifecycle';
import { ADMIN_PREFIX, createSandboxServer } from './server';
import { DEFAULT_DELIVERY_DEADLINE_MS } from './webhooks/delivery';
import { DEFAULT_LEGACY_HEADER_NAME } from './webhooks/subscriptions';
import { SandboxRuntime } from './world';

export const DEFAULT_PORT = 7450;
export const DEFAULT_TIME_SCALE = 60;
export const DEFAULT_REPORT_PDF_BYTES = 256 * 1024;
const HOST = '127.0.0.1';

export interface SandboxOptions {
	/** Port on 127.0.0.1; default 7450; 0 picks a free one. */
	port?: number;
	/** Sandbox seconds per real second; default 60; 0 freezes the clock (tests advance it explicitly). */
	timeScale?: number;
	/** Sandbox seconds between case transitions; default 300. */
	stepSeconds?: number;
	/** Real milliseconds a webhook receiver has to answer; default 15000 (spec 8). */
	webhookDeadlineMs?: number;
	/** Header name of the legacy signature; default `sandbox-signature`. */
	legacyHeaderName?: string;
	/** HS256 key of the bearer JWTs; random per start by default. */
	jwtSigningKey?: string;
	/**
	 * Whether `POST /case/create` answers 409 when the group already has a case for the candidate's email;
	 * default true. The spec does not describe this check: false makes every order create a case, as an API
	 * without it would, so that a client sending an order twice shows as two cases.
	 */
	refuseSameCandidate?: boolean;
	/**
	 * The size in bytes of a case report PDF (the report download URLs, the pre-adverse action report); default
	 * 256 KiB, enough for a bench to measure a download's throughput.
	 */
	reportPdfBytes?: number;
}

export interface Sandbox {
	/** Base URL of the API, e.g. `http://127.0.0.1:7450`. */
	readonly url: string;
	/** Base URL of the admin interface: `${url}/__sandbox`. */
	readonly adminUrl: string;
	readonly port: number;
	readonly demoCredentials: readonly DemoCredential[];
	/** The admin interface in typed, in-process form. */
	readonly admin: SandboxAdmin;
	stop(): Promise<void>;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
	const clock = new SandboxClock(options.timeScale ?? DEFAULT_TIME_SCALE);
	const runtime = new SandboxRuntime(clock, {
		jwtSigningKey: options.jwtSigningKey ?? randomBytes(32).toString('hex'),
		stepSeconds: options.stepSeconds ?? DEFAULT_STEP_SECONDS,
		webhookDeadlineMs: options.webhookDeadlineMs ?? DEFAULT_DELIVERY_DEADLINE_MS,
		legacyHeaderName: options.legacyHeaderName ?? DEFAULT_LEGACY_HEADER_NAME,
		refuseSameCandidate: options.refuseSameCandidate ?? true,
		reportPdfBytes: options.reportPdfBytes ?? DEFAULT_REPORT_PDF_BYTES,
	});
	const admin = new SandboxAdmin(runtime);
	const server = createSandboxServer(runtime, adminRoutes(admin));

	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(options.port ?? DEFAULT_PORT, HOST, () => {
			server.off('error', reject);
			resolve();
		});
	});
	const { port } = server.address() as AddressInfo;
	const url = `http://${HOST}:${port}`;

	return {
		url,
		adminUrl: `${url}${ADMIN_PREFIX}`,
		port,
		demoCredentials: DEMO_CREDENTIALS,
		admin,
		stop: async () => {
			clock.stop();
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

/** The lines the CLI prints on start: where it listens and the demo credential pairs it accepts. */
export function describeSandbox(sandbox: Sandbox): string {
	const clock = sandbox.admin.clock();
	return [
		`Background-check API sandbox listening on ${sandbox.url}`,
		`Admin interface: ${sandbox.adminUrl} (see sandbox/README.md)`,
		`Clock: ${clock.timeScale === 0 ? 'frozen (advance it through the admin interface)' : `${clock.timeScale}x real time`}`,
		'Demo credentials (POST /auth/api with apiKey + clientAccessToken):',
		...sandbox.demoCredentials.map(
			(credential) =>
				`  ${credential.groupName} (groupProfileId ${credential.groupProfileId}): apiKey=${credential.apiKey} clientAccessToken=${credential.clientAccessToken}`,
		),
	].join('\n');
}
