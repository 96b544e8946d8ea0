import type { IHookFunctions, ITriggerFunctions, IWebhookFunctions } from 'n8n-workflow';

import { assertValidConfiguration, readSavedLimit, type NodeContext } from './configuration';
import { contentKey, orderingSubject, type WebhookEvent } from './event';
import {
	SAVED_LIMIT,
	deduplicatorFor,
	forgetDeduplicator,
	type Claim,
	type DeliveryDeduplicator,
} from './deliveryDeduplicator';
import { SavedCopy, coordinators, type SavedPart } from './savedCopy';
import { watchdogs, type Watchdog } from './watchdog';

/** Keys of this node's workflow static data. */
export const ACTIVATED_AT = 'activatedAt';
export const DEDUP_STATE = 'deliveryDedup';
export const WATCHDOG_STATE = 'watchdog';

export function dedupScope(context: NodeContext): string {
	return `${context.getWorkflow().id ?? ''}:${context.getNode().id}`;
}

/** The duplicate memory of this trigger node in this n8n process. */
function deduplicatorOf(context: IWebhookFunctions | ITriggerFunctions): DeliveryDeduplicator {
	const savedLimit = readSavedLimit(context);
	if (typeof savedLimit !== 'number') {
		// Checked at activation; an expression can still change its value later. The memory stays on.
		context.logger.warn(
			`Background Check Trigger: ${savedLimit.problem}; using ${SAVED_LIMIT.default}`,
		);
	}
	return deduplicatorFor(
		dedupScope(context),
		typeof savedLimit === 'number' ? savedLimit : SAVED_LIMIT.default,
	);
}

export const watchdogOn = (context: NodeContext) =>
	context.getNodeParameter('reconcile', false) === true;

/** The process's state of this trigger node (duplicate memory, watchdog) and what a request read of it. */
export class NodeState {
	readonly deduplicator: DeliveryDeduplicator;

	readonly watchdog: Watchdog | undefined;

	readonly copy: SavedCopy;

	constructor(context: IWebhookFunctions | ITriggerFunctions, nowSeconds: number) {
		const scope = dedupScope(context);
		this.deduplicator = deduplicatorOf(context);
		this.watchdog = watchdogOn(context) ? watchdogs.get(scope) : undefined;
		const parts: SavedPart[] = [savedPart(DEDUP_STATE, this.deduplicator)];
		if (this.watchdog) parts.push(savedPart(WATCHDOG_STATE, this.watchdog));
		this.copy = new SavedCopy(
			context.getWorkflowStaticData('node'),
			parts,
			coordinators.get(scope),
		);
		this.deduplicator.absorb(this.copy.loadedValue(DEDUP_STATE), nowSeconds);
		this.watchdog?.absorb(this.copy.loadedValue(WATCHDOG_STATE));
	}
}

function savedPart(key: string, state: Omit<SavedPart, 'key'>): SavedPart {
	return {
		key,
		get changes() {
			return state.changes;
		},
		persistedView: state.persistedView,
		isBehind: (persisted) => state.isBehind(persisted),
		wrote: (persisted) => state.wrote(persisted),
	};
}

/**
 * Checks and claims the event in one synchronous step (no await in between, so two copies arriving together
 * cannot both pass).
 */
export function admitOnce(
	context: IWebhookFunctions | ITriggerFunctions,
	state: NodeState,
	event: WebhookEvent,
	nowSeconds: number,
): Claim | 'duplicate' | 'outOfOrder' {
	const admission = state.deduplicator.admit(
		{
			key: contentKey(event),
			...orderingSubject(event),
			dropOlder: context.getNodeParameter('options.dropOutOfOrder', false) === true,
		},
		nowSeconds,
	);
	return admission.outcome === 'admitted' ? admission.claim : admission.outcome;
}

/**
 * The API has no subscription endpoints, so there is nothing to register remotely. What these do is
 * local: check the configuration when the workflow is activated (and on every n8n start), keep the
 * duplicate memory across restarts, and forget it when the workflow is deactivated.
 */
export const activation = {
	async checkExists(this: IHookFunctions): Promise<boolean> {
		await assertValidConfiguration.call(this);
		return this.getWorkflowStaticData('node')[ACTIVATED_AT] !== undefined;
	},
	async create(this: IHookFunctions): Promise<boolean> {
		await assertValidConfiguration.call(this);
		this.getWorkflowStaticData('node')[ACTIVATED_AT] = new Date().toISOString();
		return true;
	},
	async delete(this: IHookFunctions): Promise<boolean> {
		const staticData = this.getWorkflowStaticData('node');
		delete staticData[ACTIVATED_AT];
		delete staticData[DEDUP_STATE];
		delete staticData[WATCHDOG_STATE];
		// n8n removes "listen for test event" webhooks through this method too, on an inactive copy of
		// the workflow; the production memory of an active workflow must survive that.
		if (this.getWorkflow().active) {
			forgetDeduplicator(dedupScope(this));
			watchdogs.forget(dedupScope(this));
			coordinators.forget(dedupScope(this));
		}
		this.logger.debug('Background Check Trigger: duplicate memory cleared', {
			node: this.getNode().name,
		});
		return true;
	},
};
