/**
 * Deliveries that never arrive (spec 6.5: "missed events are possible"): a rule picks messages, and every
 * attempt of a picked message fails without reaching the endpoint, retries included, so after the eighth
 * attempt the event is gone. For exercising consumers that reconcile with the API. Separate from the API
 * faults of ../faults.ts, which hit requests to the API.
 */
import { createHash, randomUUID } from 'crypto';

import { isPlainObject } from '../../nodes/shared/values';
import { badRequest, notFound } from '../http';

export interface DeliveryFaultInput {
	/** The share of messages (0 to 1) never delivered, picked by a hash of the message ID and `seed`. */
	dropRate?: number;
	/** Messages never delivered, by ID. */
	messageIds?: string[];
	/** Only deliveries to this subscription; every subscription when omitted. */
	subscriptionId?: string;
	/** Changes which messages a drop rate picks; default: the rule's ID. */
	seed?: string;
}

export interface DeliveryFault {
	id: string;
	dropRate: number;
	messageIds: string[];
	subscriptionId: string | null;
	seed: string;
}

/** Where a picked message lands on [0, 1): the same for every attempt of the message. */
function pick(seed: string, messageId: string): number {
	return createHash('sha256').update(`${seed}\n${messageId}`).digest().readUInt32BE(0) / 2 ** 32;
}

export class DeliveryFaults {
	private rules: DeliveryFault[] = [];

	add(input: DeliveryFaultInput): DeliveryFault {
		if (!isPlainObject(input)) throw badRequest('A delivery fault needs a JSON object body');
		const problems: string[] = [];
		if (
			input.dropRate !== undefined &&
			!(typeof input.dropRate === 'number' && input.dropRate >= 0 && input.dropRate <= 1)
		) {
			problems.push('dropRate must be a number from 0 to 1');
		}
		if (
			input.messageIds !== undefined &&
			!(Array.isArray(input.messageIds) && input.messageIds.every((id) => typeof id === 'string'))
		) {
			problems.push('messageIds must be an array of message IDs');
		}
		if (input.dropRate === undefined && input.messageIds === undefined)
			problems.push('Give dropRate or messageIds');
		if (input.subscriptionId !== undefined && typeof input.subscriptionId !== 'string')
			problems.push('subscriptionId must be a string');
		if (input.seed !== undefined && typeof input.seed !== 'string')
			problems.push('seed must be a string');
		if (problems.length > 0) throw badRequest(problems);
		const checked = input as DeliveryFaultInput;
		const id = `delivery_fault_${randomUUID().slice(0, 8)}`;
		const rule: DeliveryFault = {
			id,
			dropRate: checked.dropRate ?? 0,
			messageIds: checked.messageIds ?? [],
			subscriptionId: checked.subscriptionId ?? null,
			seed: checked.seed ?? id,
		};
		this.rules.push(rule);
		return { ...rule, messageIds: [...rule.messageIds] };
	}

	list(): DeliveryFault[] {
		return structuredClone(this.rules);
	}

	remove(id: string): void {
		if (!this.rules.some((rule) => rule.id === id)) throw notFound(`No delivery fault ${id}`);
		this.rules = this.rules.filter((rule) => rule.id !== id);
	}

	clear(): void {
		this.rules = [];
	}

	/** The rule that keeps this message from this subscription, if any. */
	dropping(subscriptionId: string, messageId: string): DeliveryFault | undefined {
		return this.rules.find(
			(rule) =>
				(rule.subscriptionId === null || rule.subscriptionId === subscriptionId) &&
				(rule.messageIds.includes(messageId) || pick(rule.seed, messageId) < rule.dropRate),
		);
	}
}
