/**
 * The admin interface, for tests and demos. {@link SandboxAdmin} is the typed, in-process form;
 * {@link adminRoutes} exposes each of its methods over HTTP under `/__sandbox` (no bearer token; the
 * sandbox listens on 127.0.0.1 only).
 */
import type { RevocationSelector } from './auth';
import type { ClockView } from './clock';
import type { FaultRule, FaultRuleInput } from './faults';
import { DEMO_COMPANY, DEMO_CREDENTIALS, type DemoCredential } from './fixtures';
import { isPlainObject } from '../nodes/shared/values';
import { badRequest, notFound, ok, requireObjectBody, type ApiRequest, type Route } from './http';
import type { CaseScript } from './lifecycle';
import { ADMIN_PREFIX } from './server';
import type { CaseDataView, CaseView } from './state';
import type { DeliveryAttempt } from './webhooks/delivery';
import type { DeliveryFault, DeliveryFaultInput } from './webhooks/deliveryFaults';
import type {
	MigrationResult,
	Subscription,
	SubscriptionInput,
	SubscriptionPatch,
	WebhookSettings,
} from './webhooks/subscriptions';
import type { InboxEntry, RequestLogEntry, SandboxContext, SandboxRuntime } from './world';

export interface SandboxSummary {
	company: typeof DEMO_COMPANY;
	demoCredentials: readonly DemoCredential[];
	clock: ClockView;
	webhookSettings: WebhookSettings;
	counts: {
		cases: number;
		apiClients: number;
		subscriptions: number;
		deliveryAttempts: number;
		requests: number;
	};
}

/** A case as the admin sees it: any group, with its case data and script. */
export interface AdminCaseView extends CaseView {
	caseData: CaseDataView[];
	script: CaseScript;
}

export interface DeliveryLogFilter {
	messageId?: string;
	subscriptionId?: string;
	caseId?: string;
	event?: string;
}

const DELIVERY_LOG_FILTER_KEYS = ['messageId', 'subscriptionId', 'caseId', 'event'] as const;

const copy = <T>(value: T): T => structuredClone(value);

export class SandboxAdmin {
	constructor(private readonly runtime: SandboxRuntime) {}

	private get world() {
		return this.runtime.world;
	}

	summary(): SandboxSummary {
		const { store, subscriptions, webhooks, requestLog } = this.world;
		return {
			company: DEMO_COMPANY,
			demoCredentials: DEMO_CREDENTIALS,
			clock: this.runtime.clock.view(),
			webhookSettings: copy(subscriptions.settings),
			counts: {
				cases: store.cases.size,
				apiClients: store.clientsById.size,
				subscriptions: subscriptions.list().length,
				deliveryAttempts: webhooks.log.entries().length,
				requests: requestLog.entries().length,
			},
		};
	}

	/** Forgets clients, cases, subscriptions, logs, faults and scheduled work; the clock keeps its time. */
	reset(): void {
		this.runtime.reset();
	}

	clock(): ClockView {
		return this.runtime.clock.view();
	}

	/** Moves sandbox time forward, running every transition and delivery attempt that falls due. */
	async advanceClock(seconds: number): Promise<ClockView> {
		if (typeof seconds !== 'number' || !(seconds >= 0))
			throw badRequest('seconds must be a number >= 0');
		await this.runtime.clock.advance(seconds * 1000);
		return this.clock();
	}

	setTimeScale(timeScale: number): ClockView {
		if (typeof timeScale !== 'number' || !(timeScale >= 0))
			throw badRequest('timeScale must be a number >= 0');
		this.runtime.clock.setTimeScale(timeScale);
		return this.clock();
	}

	/** Resolves once everything due has run and every delivery in progress has its outcome. */
	idle(): Promise<void> {
		return this.runtime.clock.settle();
	}

	getCase(caseId: string): AdminCaseView {
		const { store, lifecycle } = this.world;
		const record = store.cases.get(caseId);
		if (!record) throw notFound(`No case ${caseId}`);
		return {
			...store.caseView(record),
			caseData: store.caseDataOf(record).map((data) => store.caseDataView(data)),
			script: copy(lifecycle.scriptOf(caseId)),
		};
	}

	/** How many cases each candidate email has, every group together (case-insensitive emails). */
	casesPerCandidate(): Map<string, number> {
		const counts = new Map<string, number>();
		for (const record of this.world.store.cases.values()) {
			const email = record.candidateEmail.toLowerCase();
			counts.set(email, (counts.get(email) ?? 0) + 1);
		}
		return counts;
	}

	scriptCase(caseId: string, script: CaseScript): CaseScript {
		return copy(this.world.lifecycle.scriptCase(caseId, script));
	}

	/** Applies to cases created afterwards for this email (case-insensitive). */
	scriptCandidate(email: string, script: CaseScript): CaseScript {
		return copy(this.world.lifecycle.scriptCandidate(email, script));
	}

	/** Sets the real clock pre-signed download URLs expire by (SandboxStore.storageNow); undefined: the real one. */
	setStorageClock(now: (() => number) | undefined): void {
		this.world.store.storageNow = now ?? Date.now;
	}

	/** Performs the case's next transition now; `advanced` is false when it was complete already. */
	advanceCase(caseId: string): { advanced: boolean; case: AdminCaseView } {
		const advanced = this.world.lifecycle.advance(caseId);
		return { advanced, case: this.getCase(caseId) };
	}

	createSubscription(input: SubscriptionInput): Subscription {
		return copy(this.world.subscriptions.create(input));
	}

	listSubscriptions(): Subscription[] {
		return copy(this.world.subscriptions.list());
	}

	updateSubscription(id: string, patch: SubscriptionPatch): Subscription {
		return copy(this.world.subscriptions.update(id, patch));
	}

	deleteSubscription(id: string): void {
		this.world.subscriptions.delete(id);
	}

	/** New secret; a standard endpoint signs with old and new until the overlap ends. */
	rotateSubscriptionSecret(id: string): Subscription {
		return copy(this.world.subscriptions.rotate(id));
	}

	endSecretRotation(id: string): Subscription {
		return copy(this.world.subscriptions.endRotation(id));
	}

	webhookSettings(): WebhookSettings {
		return copy(this.world.subscriptions.settings);
	}

	updateWebhookSettings(patch: Partial<WebhookSettings>): WebhookSettings {
		return copy(this.world.subscriptions.updateSettings(patch));
	}

	migrateLegacySubscriptions(): MigrationResult {
		return copy(this.world.subscriptions.migrateLegacy());
	}

	deliveryLog(filter: DeliveryLogFilter = {}): DeliveryAttempt[] {
		return this.world.webhooks.log
			.entries()
			.filter((entry) =>
				DELIVERY_LOG_FILTER_KEYS.every(
					(key) => filter[key] === undefined || entry[key] === filter[key],
				),
			);
	}

	requestLog(): RequestLogEntry[] {
		return this.world.requestLog.entries();
	}

	injectFault(input: FaultRuleInput): FaultRule {
		return this.world.faults.add(input);
	}

	listFaults(): FaultRule[] {
		return this.world.faults.list();
	}

	removeFault(id: string): void {
		this.world.faults.remove(id);
	}

	clearFaults(): void {
		this.world.faults.clear();
	}

	/** Chosen messages are never delivered: every attempt fails without reaching the endpoint. */
	injectDeliveryFault(input: DeliveryFaultInput): DeliveryFault {
		return this.world.webhooks.faults.add(input);
	}

	listDeliveryFaults(): DeliveryFault[] {
		return this.world.webhooks.faults.list();
	}

	removeDeliveryFault(id: string): void {
		this.world.webhooks.faults.remove(id);
	}

	clearDeliveryFaults(): void {
		this.world.webhooks.faults.clear();
	}

	/** Records a request to the demo inbox (the example workflows' stand-in onboarding system and ATS). */
	receiveInInbox(inbox: string, received: unknown): InboxEntry {
		return this.world.inbox.append({ at: this.runtime.clock.view().now, inbox, body: received });
	}

	inbox(inbox?: string): InboxEntry[] {
		return this.world.inbox
			.entries()
			.filter((entry) => inbox === undefined || entry.inbox === inbox);
	}

	/** Revoked tokens get 403 (401 where an operation declares it); authenticating again with the same pair issues a new token. */
	revokeToken(selector: RevocationSelector): { revoked: number } {
		if (
			!isPlainObject(selector) ||
			!(selector.token || selector.clientId || selector.groupProfileId)
		) {
			throw badRequest('Give token, clientId or groupProfileId');
		}
		return { revoked: this.world.clients.revoke(selector) };
	}
}

type AdminRoute = Route<undefined, SandboxContext>;

function adminRoute(
	method: AdminRoute['method'],
	path: string,
	handle: (request: ApiRequest<undefined>) => unknown,
): AdminRoute {
	return {
		method,
		path: `${ADMIN_PREFIX}${path}`,
		requiresBearer: false,
		handle: async (request) => {
			const result = await handle(request);
			return result === undefined ? { status: 204, body: undefined } : ok(result);
		},
	};
}

const body = (request: ApiRequest<undefined>) => requireObjectBody(request.body ?? {});

/** The HTTP form of every {@link SandboxAdmin} method; documented in sandbox/README.md. */
export function adminRoutes(admin: SandboxAdmin): AdminRoute[] {
	return [
		adminRoute('GET', '', () => admin.summary()),
		adminRoute('POST', '/reset', () => admin.reset()),
		adminRoute('GET', '/clock', () => admin.clock()),
		adminRoute('PUT', '/clock', (request) => admin.setTimeScale(body(request).timeScale as number)),
		adminRoute('POST', '/clock/advance', (request) =>
			admin.advanceClock(body(request).seconds as number),
		),
		adminRoute('POST', '/idle', () => admin.idle().then(() => admin.clock())),
		adminRoute('GET', '/cases-per-candidate', () => Object.fromEntries(admin.casesPerCandidate())),
		adminRoute('GET', '/cases/{caseId}', (request) => admin.getCase(request.params.caseId)),
		adminRoute('POST', '/cases/{caseId}/script', (request) =>
			admin.scriptCase(request.params.caseId, body(request)),
		),
		adminRoute('POST', '/cases/{caseId}/advance', (request) =>
			admin.advanceCase(request.params.caseId),
		),
		adminRoute('POST', '/candidates/script', (request) => {
			const { email, script } = body(request);
			return admin.scriptCandidate(email as string, script as CaseScript);
		}),
		adminRoute('GET', '/webhooks/subscriptions', () => admin.listSubscriptions()),
		adminRoute('POST', '/webhooks/subscriptions', (request) =>
			admin.createSubscription(body(request) as unknown as SubscriptionInput),
		),
		adminRoute('PATCH', '/webhooks/subscriptions/{id}', (request) =>
			admin.updateSubscription(request.params.id, body(request)),
		),
		adminRoute('DELETE', '/webhooks/subscriptions/{id}', (request) =>
			admin.deleteSubscription(request.params.id),
		),
		adminRoute('POST', '/webhooks/subscriptions/{id}/rotate', (request) =>
			admin.rotateSubscriptionSecret(request.params.id),
		),
		adminRoute('POST', '/webhooks/subscriptions/{id}/end-rotation', (request) =>
			admin.endSecretRotation(request.params.id),
		),
		adminRoute('GET', '/webhooks/settings', () => admin.webhookSettings()),
		adminRoute('PUT', '/webhooks/settings', (request) =>
			admin.updateWebhookSettings(body(request)),
		),
		adminRoute('POST', '/webhooks/migrate-legacy', () => admin.migrateLegacySubscriptions()),
		adminRoute('GET', '/webhooks/deliveries', (request) =>
			admin.deliveryLog(Object.fromEntries(request.query)),
		),
		adminRoute('GET', '/webhooks/faults', () => admin.listDeliveryFaults()),
		adminRoute('POST', '/webhooks/faults', (request) =>
			admin.injectDeliveryFault(body(request) as DeliveryFaultInput),
		),
		adminRoute('DELETE', '/webhooks/faults', () => admin.clearDeliveryFaults()),
		adminRoute('DELETE', '/webhooks/faults/{id}', (request) =>
			admin.removeDeliveryFault(request.params.id),
		),
		adminRoute('GET', '/requests', () => admin.requestLog()),
		adminRoute('GET', '/faults', () => admin.listFaults()),
		adminRoute('POST', '/faults', (request) =>
			admin.injectFault(body(request) as unknown as FaultRuleInput),
		),
		adminRoute('DELETE', '/faults', () => admin.clearFaults()),
		adminRoute('DELETE', '/faults/{id}', (request) => admin.removeFault(request.params.id)),
		adminRoute('POST', '/tokens/revoke', (request) => admin.revokeToken(body(request))),
		adminRoute('POST', '/inbox/{inbox}', (request) =>
			admin.receiveInInbox(request.params.inbox, request.body),
		),
		adminRoute('GET', '/inbox/{inbox}', (request) => admin.inbox(request.params.inbox)),
		adminRoute('GET', '/inbox', () => admin.inbox()),
	];
}
