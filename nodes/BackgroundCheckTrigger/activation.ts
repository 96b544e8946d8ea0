import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	ITriggerFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';

import { assertValidConfiguration, readSettings } from './configuration';
import { DUPLICATE_MEMORY_SIZE, MEMORY_KEY, memoryOf, type TriggerMemory } from './memory';
import { rememberWebhookUrl, scopeOf } from './handoff';

type MemoryContext = IWebhookFunctions | ITriggerFunctions | IExecuteFunctions | IHookFunctions;

/** The trigger's memory in this process, with what this request read of the saved one. */
export interface NodeMemory {
	memory: TriggerMemory;
	/** Hands the memory to static data: n8n saves it at the end of this request (watchdog run, execution). */
	save(): void;
	/** Whether what this request read lacks something this process holds (a save would put it back). */
	behind(): boolean;
}

export function nodeMemory(
	context: MemoryContext,
	size = readSettings(context).duplicateMemorySize,
): NodeMemory {
	const memory = memoryOf(scopeOf(context));
	if (typeof size !== 'number') {
		// Checked at activation; an expression can still change its value later. The memory stays on.
		context.logger.warn(
			`Background Check Trigger: ${size.problem}; using ${DUPLICATE_MEMORY_SIZE.default}`,
		);
	}
	memory.duplicateMemorySize = typeof size === 'number' ? size : DUPLICATE_MEMORY_SIZE.default;
	const staticData = context.getWorkflowStaticData('node');
	// Not a string once this process saved into it (the watchdog keeps its static data): mergeSaved skips it.
	const loaded = staticData[MEMORY_KEY];
	memory.mergeSaved(loaded, Math.floor(Date.now() / 1000), {
		executionCopy: 'getInputData' in context,
	});
	const save = () => {
		// Serialized when n8n writes static data (JSON.stringify calls toJSON), not when handed over: n8n may
		// write an older request's or execution's static data after a newer one's, and what it writes then
		// must still hold everything this process has started.
		staticData[MEMORY_KEY] = { toJSON: () => memory.serialize() } as unknown as IDataObject;
	};
	return {
		memory,
		save,
		behind: () => loaded !== memory.serialize() && !(loaded === undefined && memory.empty),
	};
}

/**
 * The API has no subscription endpoints: nothing exists remotely, so checkExists answers true and n8n never
 * calls create. It checks the configuration when the workflow is activated and on every n8n start, and saves
 * what the process holds: what an execution n8n ran at start-up remembered (latestCase.ts) is saved before the
 * webhooks answer. Nothing is cleared when n8n removes the webhook: n8n does that to deactivate and also to
 * republish an active workflow, and the memory must outlive a republish (events expire after 28 hours).
 */
export const activation = {
	async checkExists(this: IHookFunctions): Promise<boolean> {
		await assertValidConfiguration.call(this);
		rememberWebhookUrl(this);
		const node = nodeMemory(this);
		if (node.behind()) node.save();
		return true;
	},
	create: async () => true,
	delete: async () => true,
};
