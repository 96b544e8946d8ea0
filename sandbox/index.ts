/** Public face of the sandbox for tests and scripts. */
export {
	startSandbox,
	describeSandbox,
	DEFAULT_PORT,
	DEFAULT_REPORT_PDF_BYTES,
	DEFAULT_TIME_SCALE,
} from './sandbox';
export type { Sandbox, SandboxOptions } from './sandbox';
export { SandboxAdmin } from './admin';
export type { AdminCaseView, DeliveryLogFilter, SandboxSummary } from './admin';
export { ADMIN_PREFIX } from './server';
export {
	DEMO_API_KEY,
	DEMO_COMPANY,
	DEMO_CREDENTIALS,
	DEMO_GROUPS,
	PACKAGES,
	CPLC_DEFINITIONS,
} from './fixtures';
export type { DemoCredential } from './fixtures';
export type { CaseScript, ServiceScript } from './lifecycle';
export type { ClockView } from './clock';
export type { FaultRule, FaultRuleInput } from './faults';
export type { DeliveryAttempt } from './webhooks/delivery';
export type { DeliveryFault, DeliveryFaultInput } from './webhooks/deliveryFaults';
export type { RequestLogEntry } from './world';
export type { CaseView, CaseDataView } from './state';
export type {
	Subscription,
	SubscriptionInput,
	SubscriptionPatch,
	WebhookSettings,
	MigrationResult,
} from './webhooks/subscriptions';
export type { RevocationSelector } from './auth';
