/** The wording of a failed API call, as pure functions of what came back (unit-tested shape by shape). */
import type { IHttpRequestMethods } from 'n8n-workflow';

import { isPlainObject } from '../values';
import { API_TEXT_READ_LIMIT, apiTextExcerpt } from './redaction';

export interface DescribedApiError {
	status?: number;
	message: string;
	description?: string;
}

function apiText(body: unknown): string | undefined {
	if (typeof body === 'string') return body.trim() || undefined;
	if (Buffer.isBuffer(body))
		return (
			body
				.subarray(0, API_TEXT_READ_LIMIT * 4)
				.toString('utf8')
				.trim() || undefined
		);
	if (isPlainObject(body)) {
		const { message, error } = body;
		if (Array.isArray(message)) return message.map(String).join('; ');
		if (typeof message === 'string' && message) return message;
		if (typeof error === 'string' && error) return error;
	}
	return undefined;
}

/** The API's own message of an error answer, as a bounded and redacted excerpt. */
function apiMessage(body: unknown, secrets: unknown[]): string | undefined {
	const text = apiText(body);
	return text === undefined ? undefined : apiTextExcerpt(text, secrets);
}

/** The existing cases a 409 of case creation names (`cases[].existingCaseId`). */
function conflictingCaseIds(body: unknown): string[] {
	const cases = (body as { cases?: unknown })?.cases;
	if (!Array.isArray(cases)) return [];
	return cases
		.map((entry) => (entry as { existingCaseId?: unknown })?.existingCaseId)
		.filter((id): id is string => typeof id === 'string');
}

/** Anything but a read may have changed something at the API, answered or not. */
export const isWrite = (method: IHttpRequestMethods) => method !== 'GET' && method !== 'HEAD';

const MAY_OR_MAY_NOT_EXIST =
	"The request may or may not have been carried out. Case creation has no idempotency key, so the node does not retry it: look the candidate up with Case > Get Many (or in the provider's portal) before running it again.";

/**
 * Turns an HTTP failure into the message a user needs; pure, so every shape is unit-tested. Text from the
 * API is shown as a bounded excerpt with `secrets` and token-like values redacted.
 */
export function describeApiError(
	method: IHttpRequestMethods,
	path: string,
	status: number | undefined,
	body: unknown,
	secrets: unknown[] = [],
): DescribedApiError {
	const fromApi = apiMessage(body, secrets);
	const endpoint = `${method} ${path}`;
	if (status === undefined) {
		return {
			message: `The request ${endpoint} got no answer`,
			description: isWrite(method)
				? MAY_OR_MAY_NOT_EXIST
				: 'Check that the API is reachable and try again.',
		};
	}
	if (status === 409 && (body as { cases?: unknown })?.cases !== undefined) {
		const ids = conflictingCaseIds(body);
		return {
			status,
			message: ids.length
				? `The candidate already has a case in this group: ${apiTextExcerpt(ids.join(', '), secrets)}`
				: 'The candidate already has a case in this group',
			description: ids.length
				? 'Use Case > Get or Add Services on the existing case instead of creating another one, or set Additional Fields > If a Case Exists to create another case or replace the existing one.'
				: 'Use Case > Get Many to find the existing case instead of creating another one.',
		};
	}
	if (status === 403) {
		return {
			status,
			message: path.includes('/case')
				? 'The API refused access to this case (403)'
				: `The API refused ${endpoint} (403)`,
			description: `${fromApi ? `The API said: ${fromApi}. ` : ''}${path.includes('/case') ? "The case ID may be wrong, or the case belongs to another company group: a credential's client access token sees only its own group's cases. " : ''}The credential's key pair was exchanged for a new token and the API still refused it; if this persists, check the credential with the service operator.`,
		};
	}
	if (status === 401) {
		return {
			status,
			message: 'The API refused the access token (401)',
			description: `${fromApi ? `The API said: ${fromApi}. ` : ''}The token may have been revoked; n8n exchanged the API key and client access token again and the API still refused. Check the credential with the service operator.`,
		};
	}
	if (status >= 500) {
		return {
			status,
			message: `The API failed on ${endpoint} (HTTP ${status})${fromApi ? `: ${fromApi}` : ''}`,
			description: isWrite(method)
				? MAY_OR_MAY_NOT_EXIST
				: 'This is an error on the API side; try again later.',
		};
	}
	return {
		status,
		message: fromApi ?? `The API answered HTTP ${status} on ${endpoint}`,
		description: fromApi ? `HTTP ${status} on ${endpoint}` : undefined,
	};
}
