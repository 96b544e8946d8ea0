/**
 * Deliveries as the provider (and the sandbox) sends them, signed with the sandbox's own signing code
 * (nodes/shared/webhookSignature), for the suites that post to the trigger themselves.
 */
import { CASE_DATA_STATUSES, CASE_STATUSES, SERVICE_TYPES } from '../../nodes/shared/catalog';
import {
	signLegacyWebhook,
	signStandardWebhook,
	type StandardWebhookInput,
} from '../../nodes/shared/webhookSignature';

export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Standard Webhooks headers for `body`, signed now (or at `timestamp`, in seconds). */
export function signedHeaders(
	secret: string,
	webhookId: string,
	body: string,
	timestamp = nowSeconds(),
): Record<string, string> {
	return {
		'content-type': 'application/json',
		'webhook-id': webhookId,
		'webhook-timestamp': String(timestamp),
		'webhook-signature': signStandardWebhook(secret, webhookId, timestamp, body),
	};
}

/** The legacy delivery system's headers for `body`: one `<brand>-signature` header (the sandbox's name by default). */
export function legacySignedHeaders(
	secret: string,
	body: string,
	headerName = 'sandbox-signature',
): Record<string, string> {
	return {
		'content-type': 'application/json',
		[headerName]: signLegacyWebhook(secret, Date.now(), body),
	};
}

const GROUP_PROFILE_ID = '4e0c2a8e-5b1f-4d3c-9a7e-2f6b1c8d3e01';
const statusIdOf = (name: string) => CASE_STATUSES.find((status) => status.name === name)!.id;
const CLEAR = CASE_DATA_STATUSES.find(({ status }) => status === 'clear')!;

/** A case.statuschange eventObject: the fields the webhook reference names, statuses as the reference's IDs. */
const caseEventObject = (id: string, caseStatus: 'Pending' | 'Complete', modStamp: string) => ({
	id,
	caseStatus,
	caseStatusId: statusIdOf(caseStatus),
	secondaryStatus: null,
	secondaryCaseStatusId: null,
	resultType: 'Open',
	candidateId: `candidate-of-${id}`,
	packageId: 'pkg-basic-criminal',
	groupProfileId: GROUP_PROFILE_ID,
	modStamp,
});

/** A case.statuschange or casedata.statuschange body whose eventObject.id is `marker`, with modStamp now. */
export function eventBody(messageId: string, marker: string, kind: 'case' | 'caseData'): string {
	const modStamp = new Date().toISOString();
	const eventObject =
		kind === 'case'
			? caseEventObject(marker, 'Pending', modStamp)
			: {
					id: marker,
					caseId: `case-of-${marker}`,
					serviceId: 'service-idv-id',
					serviceName: 'Identity Verification',
					serviceTypeId: SERVICE_TYPES.find(({ name }) => name === 'Identity')!.id,
					status: CLEAR.status,
					statusId: CLEAR.statusId,
					pendingStatus: null,
					pendingStatusId: null,
					modStamp,
				};
	return JSON.stringify({
		messageId,
		event: kind === 'case' ? 'case.statuschange' : 'casedata.statuschange',
		apiTrackingCode: 'LOAD',
		apiTrackingUser: null,
		eventObject,
	});
}

/** A case.statuschange to Complete for `caseId`, as the provider sends it. */
export function caseCompletedBody(
	messageId: string,
	caseId: string,
	modStamp = new Date().toISOString(),
): string {
	return JSON.stringify({
		messageId,
		event: 'case.statuschange',
		apiTrackingCode: null,
		apiTrackingUser: null,
		eventObject: caseEventObject(caseId, 'Complete', modStamp),
	});
}

/** A Standard Webhooks delivery as verifyStandardWebhook takes it (the verifier's own tests). */
export type SignedDelivery = StandardWebhookInput & {
	webhookId: string;
	webhookTimestamp: string;
	webhookSignature: string;
};

/** `rawBody` signed with `secret` at `timestampSeconds`, received at `nowSeconds` (by default that instant). */
export function signedDelivery(
	secret: string,
	webhookId: string,
	timestampSeconds: number,
	rawBody: Buffer | string,
	nowSeconds = timestampSeconds,
): SignedDelivery {
	return {
		rawBody,
		webhookId,
		webhookTimestamp: String(timestampSeconds),
		webhookSignature: signStandardWebhook(secret, webhookId, timestampSeconds, rawBody),
		secrets: [secret],
		nowSeconds,
	};
}

/** The `webhook-id`, `webhook-timestamp` and `webhook-signature` headers of a delivery. */
export const headersOf = (delivery: SignedDelivery): Record<string, string> => ({
	'webhook-id': delivery.webhookId,
	'webhook-timestamp': delivery.webhookTimestamp,
	'webhook-signature': delivery.webhookSignature,
});
