/**
 * Fault injection for the API routes: a status code, added latency, a dropped connection, or a rate limit
 * (N requests per second per bearer token, the rest answered 429 with Retry-After). A status or a drop
 * happens before the route runs (nothing was done), or with `afterHandling` after it (the case was created,
 * and the answer is lost: what a client cannot tell apart from the first kind).
 */
import { randomUUID } from 'crypto';

import { isPlainObject } from '../nodes/shared/values';
import { badRequest, notFound } from './http';

export type FaultKind = 'status' | 'latency' | 'drop' | 'rateLimit';

export interface FaultRuleInput {
	kind: FaultKind;
	/** Only requests with this method; any when omitted. */
	method?: string;
	/** Only requests whose path starts with this; any when omitted. */
	pathPrefix?: string;
	/** `status` only: the status to answer with; default 503. */
	status?: number;
	/** `status` only: a Retry-After header (whole seconds) on the answer. Not with `afterHandling`. */
	retryAfterSeconds?: number;
	/** `status` and `drop` only: run the route first (its effect happens), then answer with the fault. */
	afterHandling?: boolean;
	/** `latency` only: real milliseconds to wait before handling the request normally. */
	latencyMs?: number;
	/** `rateLimit` only: requests accepted per second (a fixed one-second window) for each bearer token. */
	perSecond?: number;
	/** How many requests the rule hits before it is used up; unlimited when omitted. Not for `rateLimit`. */
	times?: number;
}

export interface FaultRule {
	id: string;
	kind: FaultKind;
	method: string | null;
	pathPrefix: string | null;
	status: number | null;
	retryAfterSeconds: number | null;
	afterHandling: boolean;
	latencyMs: number | null;
	perSecond: number | null;
	/** Hits left; null for unlimited. */
	remaining: number | null;
}

/** A request over a rate limit: the rule, and the whole seconds until the token's window starts again. */
export interface RateLimited {
	rule: FaultRule;
	retryAfterSeconds: number;
}

export class FaultInjector {
	private rules: FaultRule[] = [];

	/** Per rateLimit rule, per token: the current one-second window and the requests it accepted. */
	private windows = new Map<string, Map<string, { startMs: number; count: number }>>();

	add(input: FaultRuleInput): FaultRule {
		if (!isPlainObject(input)) throw badRequest('A fault needs a JSON object body');
		const problems: string[] = [];
		if (!['status', 'latency', 'drop', 'rateLimit'].includes(input.kind))
			problems.push('kind must be "status", "latency", "drop" or "rateLimit"');
		if (
			input.kind === 'rateLimit' &&
			!(Number.isInteger(input.perSecond) && (input.perSecond as number) > 0)
		) {
			problems.push('perSecond must be a positive integer');
		}
		if (input.kind === 'rateLimit' && input.times !== undefined)
			problems.push('times does not apply to a rate limit');
		if (
			input.status !== undefined &&
			!(Number.isInteger(input.status) && input.status >= 400 && input.status <= 599)
		) {
			problems.push('status must be an HTTP error status (400-599)');
		}
		if (
			input.kind === 'latency' &&
			!(typeof input.latencyMs === 'number' && input.latencyMs >= 0)
		) {
			problems.push('latencyMs must be a number of milliseconds');
		}
		if (
			input.retryAfterSeconds !== undefined &&
			!(
				input.kind === 'status' &&
				Number.isInteger(input.retryAfterSeconds) &&
				input.retryAfterSeconds >= 0
			)
		) {
			problems.push('retryAfterSeconds must be a whole number of seconds, on a status fault');
		}
		if (input.afterHandling !== undefined) {
			if (typeof input.afterHandling !== 'boolean' || !['status', 'drop'].includes(input.kind))
				problems.push('afterHandling must be true or false, on a status or drop fault');
			else if (input.afterHandling && input.retryAfterSeconds !== undefined)
				problems.push('retryAfterSeconds says the request was not handled: not with afterHandling');
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
			retryAfterSeconds: input.retryAfterSeconds ?? null,
			afterHandling: input.afterHandling ?? false,
			latencyMs: input.kind === 'latency' ? (input.latencyMs ?? 0) : null,
			perSecond: input.kind === 'rateLimit' ? (input.perSecond as number) : null,
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
		this.windows.delete(id);
	}

	clear(): void {
		this.rules = [];
		this.windows.clear();
	}

	/**
	 * The first rate limit matching the request that the request's token has used up in its current
	 * one-second window, or undefined (the request then counts against every matching limit's window).
	 */
	rateLimited(method: string, path: string, token: string, nowMs: number): RateLimited | undefined {
		const limits = this.rules.filter(
			(rule) => rule.kind === 'rateLimit' && matches(rule, method, path),
		);
		for (const rule of limits) {
			const window = this.windowOf(rule, token, nowMs);
			if (window.count >= rule.perSecond!) {
				return {
					rule: { ...rule },
					retryAfterSeconds: Math.max(1, Math.ceil((window.startMs + 1000 - nowMs) / 1000)),
				};
			}
		}
		for (const rule of limits) this.windowOf(rule, token, nowMs).count++;
		return undefined;
	}

	private windowOf(
		rule: FaultRule,
		token: string,
		nowMs: number,
	): { startMs: number; count: number } {
		let byToken = this.windows.get(rule.id);
		if (byToken === undefined) this.windows.set(rule.id, (byToken = new Map()));
		let window = byToken.get(token);
		if (window === undefined || nowMs - window.startMs >= 1000)
			byToken.set(token, (window = { startMs: nowMs, count: 0 }));
		return window;
	}

	/** The first rule matching the request, counting the hit; used-up rules drop out. */
	take(method: string, path: string): FaultRule | undefined {
		const rule = this.rules.find(
			(candidate) => candidate.kind !== 'rateLimit' && matches(candidate, method, path),
		);
		if (!rule) return undefined;
		if (rule.remaining !== null && --rule.remaining === 0)
			this.rules = this.rules.filter((other) => other !== rule);
		return { ...rule };
	}
}

const matches = (rule: FaultRule, method: string, path: string) =>
	(rule.method === null || rule.method === method) &&
	(rule.pathPrefix === null || path.startsWith(rule.pathPrefix));
