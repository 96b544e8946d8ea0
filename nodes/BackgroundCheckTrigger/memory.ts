/**
 * The trigger's state in this process (core.ts decides, savedState.ts saves), per trigger node, with what
 * waits on it: copies of an event being started, the turn to save, a delivery's answer (waits.ts).
 */
import { randomBytes } from 'crypto';

import * as core from './core';
import { type Change } from './core';
import { DUPLICATE_MEMORY_SIZE, SAVED_KEY, merge, read, write } from './savedState';
import { Signals } from './waits';

export {
	BUCKET_SECONDS,
	CLAIM_SECONDS,
	HASH_LENGTH,
	PROCESS_LIMIT,
	RETENTION_SECONDS,
	shortHash,
	type Change,
} from './core';
export { DUPLICATE_MEMORY_SIZE };
export const MEMORY_KEY = SAVED_KEY;

/**
 * What the n8n code around the core waits for, at most: each a `signals.until(name, ...)` on this memory.
 * - `claim` (deliveryPolicy.ts): a copy of the delivery's event being started settles its claim; else 503.
 * - `turn` (deliveryPolicy.ts): the turn to save, held by a delivery until n8n has answered it; else 503.
 *   The provider waits 15 s for an answer: past these two, it delivers again.
 * - `answer` (latestCase.ts): n8n answered the delivery that started the execution (it saves first); else
 *   the first step saves itself.
 *
 * When it saves (activation.ts `save`: the state goes to static data, which n8n writes after the request):
 * - a delivery, holding the turn: once n8n read its answer (the execution exists); a duplicate or a filtered
 *   status, only when the turn is free (a duplicate only when what the request read lacks something);
 * - the first step: in a process that read the saved form, when it remembered something new, the execution
 *   is not this process's, or its delivery's answer was not seen (core.ts `firstStep`);
 * - the watchdog: each run that does not hand off, before emitting; its record of the cases (when handing
 *   off, only at a user's activation); an activation with it off that drops the record (core.ts `activate`);
 * - `checkExists` (activation, n8n's start): when what it read lacks something this process holds.
 */
export const WAITS_MS = { claim: 5_000, turn: 10_000, answer: 30_000 } as const;

/**
 * Recent saved forms recognised without reading them: under concurrent deliveries a request reads a copy
 * saved several saves ago (n8n loads static data when the request starts), and saves may land out of order.
 */
const KNOWN_FORMS = { count: 64, characters: 4_000_000 } as const;

const EMPTY_FORM = write(core.newState(), 0);

export interface Claim {
	/** In the execution's item: its first step tells this memory's executions from others. */
	readonly token: string;
	/** The execution exists: remember the event. Returns what to call once n8n has answered (it saves first). */
	start(nowSeconds: number): () => void;
	/** No execution was started (filtered out, or n8n failed to start it): a copy may run. */
	release(): void;
}

/** The turn to save, or the promise of its holder's release ({@link TriggerMemory.takeTurn}). */
export type Turn = { release: () => void } | { busy: Promise<void> };

export type Admission =
	| { outcome: 'duplicate' | 'outOfOrder' }
	| { outcome: 'busy'; settled: Promise<void> }
	| { outcome: 'admitted'; claim: Claim };

export class TriggerMemory {
	readonly state = core.newState();
	readonly signals = new Signals();
	/** Begins every claim token this memory hands out: another process or version has another. */
	private readonly tokenPrefix = `${randomBytes(6).toString('base64url')}.`;
	private readonly known = new Set<string>();
	private knownCharacters = 0;
	private written: { version: number; size: number; text: string } | undefined;

	/** Duplicate Memory Size: how many of the newest events (and covers) the saved form holds. */
	duplicateMemorySize: number = DUPLICATE_MEMORY_SIZE.default;

	get recorded(): boolean {
		return this.state.recorded;
	}

	get size(): number {
		return this.state.events.size;
	}

	/** Nothing to save. */
	get empty(): boolean {
		return this.serialize() === EMPTY_FORM;
	}

	get readsSavedMemory(): boolean {
		return this.state.readSaved;
	}

	/**
	 * Merges a saved form (a restart, another process's save) into this memory. `executionCopy`: it came with
	 * an execution (n8n copies static data into it when creating it), older than the saved one.
	 */
	mergeSaved(saved: unknown, nowSeconds: number, { executionCopy = false } = {}): void {
		if (!executionCopy) this.state.readSaved = true;
		if (typeof saved === 'string' && !this.known.has(saved)) {
			const form = read(saved);
			if (form) merge(this.state, form);
			this.recognise(saved);
		}
		core.evict(this.state, nowSeconds);
	}

	admit(
		change: Change,
		dropOlder: boolean,
		nowSeconds: number,
		{ fromWatchdog = false } = {},
	): Admission {
		const admission = core.admit(this.state, change, dropOlder, nowSeconds, fromWatchdog);
		if (admission.outcome === 'busy')
			return { outcome: 'busy', settled: this.signals.next('claim') };
		if (admission.outcome !== 'admitted') return admission;
		const { claim } = admission;
		const release = () => {
			core.settle(this.state, claim);
			this.signals.signal('claim');
		};
		return {
			outcome: 'admitted',
			claim: {
				token: `${this.tokenPrefix}${claim.id}`,
				start: (nowSeconds) => {
					core.started(this.state, claim, change, nowSeconds, dropOlder);
					this.signals.signal('claim');
					return () => {
						core.answered(this.state, change, claim);
						this.signals.signal('answer');
					};
				},
				release,
			},
		};
	}

	takeTurn(nowSeconds: number): Turn {
		const release = this.tryTurn(nowSeconds);
		return release ? { release } : { busy: this.signals.next('turn') };
	}

	/** The turn to save: its release, or undefined while another request holds it. */
	tryTurn(nowSeconds: number): (() => void) | undefined {
		const id = core.takeTurn(this.state, nowSeconds);
		if (id === undefined) return undefined;
		return () => {
			core.releaseTurn(this.state, id);
			this.signals.signal('turn');
		};
	}

	/** The answer of the delivery that started this change, until n8n sends it (n8n saves static data first). */
	answerOf(change: Change): Promise<void> | undefined {
		return core.awaitsAnswer(this.state, change) ? this.signals.next('answer') : undefined;
	}

	originOfWatchdogRun(change: Change): core.Origin {
		return core.originOfWatchdogRun(this.state, change);
	}

	originOfDelivered(change: Change, token: unknown, nowSeconds: number): core.Origin {
		const ours = typeof token === 'string' && token.startsWith(this.tokenPrefix);
		return core.originOfDelivered(this.state, change, ours, nowSeconds);
	}

	remember(
		change: Change,
		nowSeconds: number,
		options: { fromWatchdog?: boolean; dropOlder?: boolean } = {},
	) {
		return core.remember(this.state, change, nowSeconds, options);
	}

	rememberStatus(subject: string, status?: string, modStamp?: string, ordered = false): void {
		core.rememberStatus(this.state, core.shortHash(subject), status, modStamp, ordered);
	}

	statusOf(subject: string): string | undefined {
		return core.statusOf(this.state, subject);
	}

	modStampOf(subject: string): string | undefined {
		return core.modStampOf(this.state, subject);
	}

	recordStatuses(statuses: Array<[subject: string, status: string, modStamp?: string]>): void {
		core.recordStatuses(this.state, statuses);
	}

	dropRecord(): void {
		core.activate(this.state, true, true);
	}

	serialize(): string {
		const { version } = this.state;
		const size = this.duplicateMemorySize;
		if (this.written?.version === version && this.written.size === size) return this.written.text;
		const text = write(this.state, size);
		this.written = { version, size, text };
		this.recognise(text);
		return text;
	}

	/** Recognises `text` as a form this process read or wrote, without reading it again. */
	private recognise(text: string): void {
		if (this.known.delete(text)) this.knownCharacters -= text.length;
		this.known.add(text);
		this.knownCharacters += text.length;
		while (
			this.known.size > 1 &&
			(this.known.size > KNOWN_FORMS.count || this.knownCharacters > KNOWN_FORMS.characters)
		) {
			const oldest = this.known.values().next().value as string;
			this.known.delete(oldest);
			this.knownCharacters -= oldest.length;
		}
	}
}

/** One memory per trigger node of a workflow (`scope`) in this n8n process. */
const memories = new Map<string, TriggerMemory>();

export const memoryOf = (scope: string): TriggerMemory =>
	memories.get(scope) ?? memories.set(scope, new TriggerMemory()).get(scope)!;
