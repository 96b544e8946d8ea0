/**
 * Everything a reset throws away, built in one place: the store, API clients, case lifecycle, webhook
 * subscriptions and deliveries, the request log, the fault rules and the demo inbox. The clock outlives resets.
 */
import { ApiClients } from './auth';
import { BoundedLog } from './boundedLog';
import type { SandboxClock } from './clock';
import { FaultInjector } from './faults';
import { CaseLifecycle } from './lifecycle';
import { SandboxStore } from './state';
import { WebhookDispatcher } from './webhooks/delivery';
import { SubscriptionRegistry } from './webhooks/subscriptions';

export interface RequestLogEntry {
	id: number;
	/** Sandbox time the request arrived. */
	at: string;
	method: string;
	path: string;
	query: Record<string, string>;
	/** Null when the connection was dropped by a fault. */
	status: number | null;
	/** The group of the bearer token, when it was valid. */
	groupProfileId: string | null;
	durationMs: number;
	/** Authorization redacted. */
	headers: Record<string, string>;
	/** apiKey, clientAccessToken and other secrets redacted. */
	body: unknown;
	/** The fault rule that hit the request, if any. */
	faultId: string | null;
	/** With an `afterHandling` fault: what the route answered before the fault replaced the answer. */
	handledStatus: number | null;
}

/** A request received by the demo inbox: a stand-in for the onboarding system or ATS of the examples. */
export interface InboxEntry {
	id: number;
	at: string;
	inbox: string;
	body: unknown;
}

export interface WorldSettings {
	jwtSigningKey: string;
	stepSeconds: number;
	webhookDeadlineMs: number;
	legacyHeaderName: string;
	/** Whether a second case for a candidate email already in the group is refused with 409. */
	refuseSameCandidate: boolean;
	/** The size of a case report PDF in bytes (routes/reports.ts). */
	reportPdfBytes: number;
}

export interface SandboxWorld {
	store: SandboxStore;
	clients: ApiClients;
	lifecycle: CaseLifecycle;
	subscriptions: SubscriptionRegistry;
	webhooks: WebhookDispatcher;
	requestLog: BoundedLog<RequestLogEntry>;
	faults: FaultInjector;
	inbox: BoundedLog<InboxEntry>;
	refuseSameCandidate: boolean;
	reportPdfBytes: number;
}

/** What every route handler gets: the sandbox clock and the current world. */
export interface SandboxContext {
	readonly clock: SandboxClock;
	readonly world: SandboxWorld;
}

function createWorld(clock: SandboxClock, settings: WorldSettings): SandboxWorld {
	const store = new SandboxStore(() => clock.now());
	const subscriptions = new SubscriptionRegistry(clock, settings.legacyHeaderName);
	const webhooks = new WebhookDispatcher(clock, subscriptions, settings.webhookDeadlineMs);
	return {
		store,
		clients: new ApiClients(store, settings.jwtSigningKey, () => clock.now() / 1000),
		lifecycle: new CaseLifecycle(clock, store, webhooks, settings.stepSeconds),
		subscriptions,
		webhooks,
		requestLog: new BoundedLog<RequestLogEntry>(2000),
		faults: new FaultInjector(),
		inbox: new BoundedLog<InboxEntry>(2000),
		refuseSameCandidate: settings.refuseSameCandidate,
		reportPdfBytes: settings.reportPdfBytes,
	};
}

export class SandboxRuntime implements SandboxContext {
	private current: SandboxWorld;

	constructor(
		readonly clock: SandboxClock,
		private readonly settings: WorldSettings,
	) {
		this.current = createWorld(clock, settings);
	}

	get world(): SandboxWorld {
		return this.current;
	}

	/** Back to the state at start: no clients, cases, subscriptions, logs or faults; scheduled work dropped. */
	reset(): void {
		this.clock.clear();
		this.current = createWorld(this.clock, this.settings);
	}
}
