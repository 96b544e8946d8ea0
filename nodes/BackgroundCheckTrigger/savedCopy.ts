/**
 * What the trigger keeps in workflow static data (the duplicate memory and, with the watchdog on, what it
 * knows of each case), and when it hands that to n8n for saving.
 *
 * n8n writes a workflow's static data whole, before it answers a webhook request that changed it (the
 * request's "static data changed" flag). Every event must be in what is saved before its delivery is
 * answered, but one write per delivery is what made n8n slower than with its plain Webhook node under
 * concurrent deliveries (each write is a database transaction on the workflow's row; docs/benchmarks.md,
 * section 3). So writes are shared: the node keeps views of its state in static data, which serialize to
 * what the process holds at the moment n8n saves, and a request whose change a save already under way will
 * include (one that n8n has not serialized yet) waits for that save to finish instead of making its own.
 * A save has finished when the request that made it has been answered (n8n saves, then answers). Deliveries
 * arriving together thus cost one write per batch; a delivery arriving alone costs one write.
 */
import type { IDataObject } from 'n8n-workflow';

/** The part of a node's response object (n8n hands the node the HTTP response) this needs. */
export interface AnsweredResponse {
	once(event: 'finish' | 'close', listener: () => void): unknown;
}

/** Something whose state the saved copy holds: a view to put in static data, and a change counter. */
export interface SavedPart {
	readonly key: string;
	/** Grows with every change of what is saved. */
	readonly changes: number;
	/** Serializes to the saved form of the current state when n8n saves static data (JSON.stringify). */
	readonly persistedView: { toJSON(): string };
	/** Whether what a request read from static data lacks something this process holds. */
	isBehind(persisted: unknown): boolean;
	/** Whether what a request read is a saved form this process wrote (else another writer replaced it). */
	wrote(persisted: unknown): boolean;
}

/** One save n8n makes for one request. */
class Turn {
	/** The change count when n8n serialized it; undefined until then. */
	serializedAt: number | undefined;

	private settle!: () => void;

	/** Resolves when the request that makes this save has been answered (or has failed). */
	readonly over = new Promise<void>((resolve) => {
		this.settle = resolve;
	});

	end(): void {
		this.settle();
	}
}

/** Shares n8n's saves of one trigger node's static data between the requests of this process. */
export class SaveCoordinator {
	/** A save handed to n8n and not yet serialized: it will hold every change made until it is. */
	private open: Turn | undefined;

	/** The change count of the newest finished save. */
	private saved = -1;

	/**
	 * Resolves once what `parts` hold now is in a finished save, or with a turn: then this request must
	 * hand its own save to n8n (see {@link SavedCopy.handOver}) and n8n finishes it before answering. With
	 * `wait` false (nothing of this request's own needs saving), it never waits: it returns a turn only when
	 * no save is under way.
	 */
	async cover(
		parts: SavedPart[],
		response: AnsweredResponse,
		wait: boolean,
		replaced: boolean,
	): Promise<Turn | undefined> {
		// Another writer replaced what this process saved: its earlier saves no longer count.
		if (replaced) this.saved = -1;
		const needed = changesOf(parts);
		for (;;) {
			if (this.saved >= needed) return undefined;
			const open = this.open;
			if (open === undefined) break;
			if (!wait) return undefined;
			await open.over;
		}
		const turn = new Turn();
		this.open = turn;
		let ended = false;
		const end = () => {
			if (ended) return;
			ended = true;
			if (turn.serializedAt !== undefined) this.saved = Math.max(this.saved, turn.serializedAt);
			if (this.open === turn) this.open = undefined;
			turn.end();
		};
		response.once('finish', end);
		response.once('close', end);
		return turn;
	}

	/** A view of `part` for `turn`: serializing it (n8n's save) records what the save holds. */
	viewFor(part: SavedPart, parts: SavedPart[], turn: Turn): { toJSON(): string } {
		return {
			toJSON: () => {
				turn.serializedAt = Math.max(turn.serializedAt ?? -1, changesOf(parts));
				if (this.open === turn) this.open = undefined;
				return part.persistedView.toJSON();
			},
		};
	}
}

const changesOf = (parts: SavedPart[]) => parts.reduce((sum, part) => sum + part.changes, 0);

/** What one request (or one look of the watchdog) read from static data, and its hand-over to n8n. */
export class SavedCopy {
	private readonly loaded: unknown[];

	private turn: Turn | undefined;

	constructor(
		private readonly staticData: IDataObject,
		readonly parts: SavedPart[],
		private readonly coordinator: SaveCoordinator,
	) {
		this.loaded = parts.map((part) => staticData[part.key]);
	}

	/** What static data held for `key` when this was created. */
	loadedValue(key: string): unknown {
		return this.loaded[this.parts.findIndex((part) => part.key === key)];
	}

	/**
	 * Makes sure what this process holds is saved before the request is answered: waits for a save under
	 * way that will include it, or hands this request's own save to n8n. `ownChange`: this request changed
	 * what is saved (an admitted event); otherwise it only saves when static data lacks something and no
	 * save is under way.
	 */
	async secure(response: AnsweredResponse, ownChange: boolean): Promise<void> {
		if (!this.parts.some((part, index) => part.isBehind(this.loaded[index]))) return;
		const replaced = this.parts.some((part, index) => !part.wrote(this.loaded[index]));
		this.turn = await this.coordinator.cover(this.parts, response, ownChange, replaced);
		this.handOver();
	}

	/**
	 * Assigns this request's views to static data, which marks it changed: n8n saves it before answering.
	 * Called again when n8n asks for the answer, because n8n 2.3x and later reset the changed flag while
	 * starting the execution (WorkflowRunner.establishContextForPersistence wraps the same static data in a
	 * second Workflow); the save that follows then sees it.
	 */
	handOver(): void {
		const turn = this.turn;
		if (!turn) return;
		for (const part of this.parts)
			this.staticData[part.key] = this.coordinator.viewFor(
				part,
				this.parts,
				turn,
			) as unknown as IDataObject;
	}

	/** For the watchdog's looks, which n8n saves when they emit: the plain views, outside any turn. */
	handOverUncoordinated(): void {
		for (const part of this.parts)
			this.staticData[part.key] = part.persistedView as unknown as IDataObject;
	}
}

/**
 * One instance per trigger node in one workflow (`scope`), shared by every request and look of this n8n
 * process, until the workflow is deactivated.
 */
export class PerNode<T> {
	private readonly instances = new Map<string, T>();

	constructor(private readonly create: () => T) {}

	get(scope: string): T {
		let instance = this.instances.get(scope);
		if (instance === undefined) {
			instance = this.create();
			this.instances.set(scope, instance);
		}
		return instance;
	}

	forget(scope: string): void {
		this.instances.delete(scope);
	}
}

export const coordinators = new PerNode(() => new SaveCoordinator());
