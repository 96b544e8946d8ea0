/** Fault injection for the API routes: a status code, added latency, or a dropped connection. */
import { randomUUID } from 'crypto';

import { badRequest, isPlainObject, notFound } from './http';

export type FaultKind = 'status' | 'latency' | 'drop';

export interface FaultRuleInput {
	kind: FaultKind;
	/** Only requests with this method; any when omitted. */
	method?: string;
	/** Only requests whose path starts with this; any when omitted. */
	pathPrefix?: string;
	/** `status` only: the status to answer with; default 503. */
	status?: number;
	/** `latency` only: real milliseconds to wait before handling the request normally. */
	latencyMs?: number;
	/** How many requests the rule hits before it is used up; unlimited when omitted. */
	times?: number;
}

export interface FaultRule {
	id: string;
	kind: FaultKind;
	method: string | null;
	pathPrefix: string | null;
	status: number | null;
	latencyMs: number | null;
	/** Hits left; null for unlimited. */
	remaining: number | null;
}

export class FaultInjector {
	private rules: FaultRule[] = [];

	add(input: FaultRuleInput): FaultRule {
		if (!isPlainObject(input)) throw badRequest('A fault needs a JSON object body');
		const problems: string[] = [];
		if (!['status', 'latency', 'drop'].includes(input.kind)) problems.push('kind must be "status", "latency" or "drop"');
		if (input.status !== undefined && !(Number.isInteger(input.status) && input.status >= 400 && input.status <= 599)) {
			problems.push('status must be an HTTP error status (400-599)');
		}
		if (input.kind === 'latency' && !(typeof input.latencyMs === 'number' && input.latencyMs >= 0)) {
			problems.push('latencyMs must be a number of milliseconds');
		}
		if (input.times !== undefined && !(Number.isInteger(input.times) && input.times > 0)) {
			problems.push('times must be a positive integer');
		}
		if (problems.length > 0) throw badRequest(problems);
		const rule: FaultRule = {
			id: `fault_${randomUUID().slice(0, 8)}`,
			kind: input.kind,
			method: input.method?.toUpperCase() ?? null,
			pathPrefix: input.pathPrefix ?? null,
			status: input.kind === 'status' ? (input.status ?? 503) : null,
			latencyMs: input.kind === 'latency' ? (input.latencyMs ?? 0) : null,
			remaining: input.times ?? null,
		};
		this.rules.push(rule);
		return rule;
	}

	list(): FaultRule[] {
		return structuredClone(this.rules);
	}

	remove(id: string): void {
		if (!this.rules.some((rule) => rule.id === id)) throw notFound(`No fault ${id}`);
		this.rules = this.rules.filter((rule) => rule.id !== id);
	}

	clear(): void {
		this.rules = [];
	}

	/** The first rule matching the request, counting the hit; used-up rules drop out. */
	take(method: string, path: string): FaultRule | undefined {
		const rule = this.rules.find(
			(candidate) =>
				(candidate.method === null || candidate.method === method) &&
				(candidate.pathPrefix === null || path.startsWith(candidate.pathPrefix)),
		);
		if (!rule) return undefined;
		if (rule.remaining !== null && --rule.remaining === 0) this.rules = this.rules.filter((other) => other !== rule);
		return { ...rule };
	}
}
