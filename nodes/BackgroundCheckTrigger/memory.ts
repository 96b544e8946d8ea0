/**
 * What the trigger remembers, per trigger node: the one state it keeps across requests. The model (events,
 * claims, subjects, covers, recorded: who writes each and when), the n8n behaviours it relies on and the
 * argument that each status change runs once are in docs/trigger-state.md.
 *
 * An event enters `events` only once its execution exists ({@link Claim.start}, or {@link TriggerMemory.record}
 * from the execution's first step), so no save, whichever request makes it, holds an event that never ran.
 *
 * Keys are kept as {@link HASH_LENGTH} base64url characters of their SHA-256 (60 bits): a new event is taken
 * for a duplicate by mistake with probability at most n / 2^60 (about 9e-14 with 100,000 remembered).
 */
import { createHash, randomBytes } from 'crypto';

export const MEMORY_KEY = 'memory';

/** How long an event is remembered: beyond the provider's last retry, 27 h 35 min after the first attempt. */
export const RETENTION_SECONDS = 28 * 60 * 60;

/** Granularity of the saved times. */
export const BUCKET_SECONDS = 60 * 60;

/**
 * How long a claim holds back copies of its event: n8n starts an execution within milliseconds, and a claim
 * whose outcome never came (n8n failed to start it without saying so) must not hold copies back for ever.
 */
export const CLAIM_SECONDS = 60;

/** The most events (and subjects) process memory holds. */
export const PROCESS_LIMIT = 100_000;

/** Duplicate Memory Size: how many of the newest events the saved string holds. */
export const DUPLICATE_MEMORY_SIZE = { default: 100, min: 100, max: 20_000 } as const;

export const HASH_LENGTH = 10;
export const hashKey = (key: string) =>
	createHash('sha256').update(key).digest('base64url').slice(0, HASH_LENGTH);

const FORMAT = 'm1';
/**
 * Recent saved strings recognised without parsing: under concurrent deliveries a request reads a copy saved
 * several saves ago (n8n loads static data when the request starts), and saves may land out of order. The
 * newest of them are kept, up to this many and this many characters in all (the newest one always).
 */
const KNOWN_STRINGS = { count: 64, characters: 4_000_000 } as const;

/** A status change, as a delivery carries it or the watchdog reads it. */
export interface Change {
	/** The same in every copy of the event (event.ts contentKey). */
	key: string;
	/** What modStamp orders: `case:<id>`, `casedata:<id>`. */
	subject?: string;
	/** The statuses the event sets, as one string. */
	status?: string;
	modStamp?: string;
}

export interface Claim {
	/** In the execution's item: its first step tells this memory's executions from others ({@link originOfDelivered}). */
	readonly token: string;
	/** The execution exists: remember the event. Returns what to call once n8n has answered (it saves first). */
	start(nowSeconds: number): () => void;
	/** No execution was started (filtered out, or n8n failed to start it): a copy may run. */
	release(): void;
}

/**
 * Held by the one request of this memory between handing n8n what to save and n8n's answer. n8n writes the
 * saved string when it saves, but concurrent requests' saves can reach the database in another order
 * (PostgreSQL gives each its own connection): an older string landing last would forget an event whose
 * delivery was answered. With one request saving at a time, each save lands before the next is written.
 */
export type Turn = { release: () => void } | { busy: Promise<void> };

export type Admission =
	| { outcome: 'duplicate' }
	| { outcome: 'outOfOrder' }
	| { outcome: 'busy'; settled: Promise<void> }
	| { outcome: 'admitted'; claim: Claim };

interface Subject {
	modStamp?: string;
	/** The status the watchdog compares with (set only while it has a record). */
	status?: string;
	/** Checked with Ignore Older Events: its modStamp is saved. */
	ordered: boolean;
}

const bucketOf = (seconds: number) => Math.floor(seconds / BUCKET_SECONDS) * BUCKET_SECONDS;
const timeOf = (modStamp: string | undefined) =>
	modStamp === undefined ? Number.NaN : Date.parse(modStamp);

/** A modStamp saved: an ISO timestamp as `~` and its epoch milliseconds in base 36, anything else JSON. */
function packModStamp(modStamp: string): string {
	const ms = Date.parse(modStamp);
	if (Number.isFinite(ms) && ms >= 0 && new Date(ms).toISOString() === modStamp)
		return `~${ms.toString(36)}`;
	return JSON.stringify(modStamp);
}

function unpackModStamp(packed: string): string | undefined {
	if (packed.startsWith('~')) return new Date(parseInt(packed.slice(1), 36)).toISOString();
	try {
		const value: unknown = JSON.parse(packed);
		return typeof value === 'string' ? value : undefined;
	} catch {
		return undefined;
	}
}

/** What a change of a subject to a status is known by, whatever its modStamp. */
const coverOf = (change: Change) =>
	change.subject === undefined || change.status === undefined
		? undefined
		: hashKey(`cover|${change.subject}|${change.status}`);

/** A claim holds its change under both names: it may come with another modStamp (the watchdog's read of it). */
const claimNames = (change: Change) => {
	const cover = coverOf(change);
	return [hashKey(change.key), ...(cover === undefined ? [] : [cover])];
};

export class TriggerMemory {
	/** Event hash → hour it started, oldest first. */
	private readonly events = new Map<string, number>();

	/** Event hash → when its claim was opened, its settling, and whether the watchdog opened it (to emit). */
	private readonly claims = new Map<
		string,
		{ openedAt: number; settled: Promise<void>; found: boolean }
	>();

	/** Event hash → the answer of the delivery that started it, until n8n sends it ({@link answerOf}). */
	private readonly unanswered = new Map<string, Promise<void>>();

	/** Hashes of the events a delivery to this memory started, oldest first: process memory only. */
	private readonly startedHere = new Set<string>();

	/** Begins every claim token this memory hands out: another process or version has another. */
	private readonly tokenPrefix = `${randomBytes(6).toString('base64url')}.`;
	private claimCount = 0;

	/** Subject hash → what is known of it, least recently changed first. */
	private readonly subjects = new Map<string, Subject>();

	/** Hash of subject and status → the newest modStamp the watchdog ran it with, and when. */
	private readonly covers = new Map<string, { modStamp: string; hour: number }>();

	/** The request saving now ({@link takeTurn}), unless older than {@link CLAIM_SECONDS}. */
	private turn: { takenAt: number; free: Promise<void> } | undefined;

	private recordedByWatchdog = false;
	private readSaved = false;
	/** Saved strings read or written lately ({@link KNOWN_STRINGS}) and their length in all. */
	private readonly known = new Set<string>();
	private knownCharacters = 0;

	/** Duplicate Memory Size: how many of the newest events (and covers) the saved string holds. */
	duplicateMemorySize: number = DUPLICATE_MEMORY_SIZE.default;

	/** Grows with every change of what the saved string holds; {@link serialize} builds it once per value. */
	private version = 0;
	private serialized: { version: number; size: number; text: string } | undefined;

	/** Whether the watchdog has recorded the subjects' statuses (at activation, or a look after a failed one). */
	get recorded(): boolean {
		return this.recordedByWatchdog;
	}

	get size(): number {
		return this.events.size;
	}

	/** Nothing to save. */
	get empty(): boolean {
		return this.serialize() === `${FORMAT} 0`;
	}

	/**
	 * Whether this process has read the saved string itself (a delivery, a look, an activation), not only an
	 * execution's copy: only then does its save add to what other processes saved (docs/trigger-state.md).
	 */
	get readsSavedMemory(): boolean {
		return this.readSaved;
	}

	/**
	 * Merges a saved string (a restart, another process's save) into this memory. `executionCopy`: the string
	 * came with an execution (n8n copies static data into it when creating it), older than the saved one.
	 */
	absorb(saved: unknown, nowSeconds: number, { executionCopy = false } = {}): void {
		if (!executionCopy) this.readSaved = true;
		if (typeof saved === 'string' && !this.known.has(saved)) {
			this.parse(saved);
			this.remember(saved);
		}
		this.evict(nowSeconds);
	}

	/**
	 * Decides, in one synchronous step, whether a change runs: not when it (or, for a delivery, the
	 * watchdog's run of it) is remembered, nor when it is older than what is known and `dropOlder` is set.
	 * A copy of a change whose claim is open is `busy` until that claim settles (at most {@link CLAIM_SECONDS}).
	 * `found`: the watchdog admits it, to emit it.
	 */
	admit(
		change: Change,
		dropOlder: boolean,
		nowSeconds: number,
		{ found = false }: { found?: boolean } = {},
	): Admission {
		const hash = hashKey(change.key);
		if (this.events.has(hash) || this.isCovered(change)) return { outcome: 'duplicate' };
		const names = claimNames(change);
		const open = this.openClaim(names, nowSeconds);
		if (open) return { outcome: 'busy', settled: open.settled };
		if (dropOlder && this.isOlder(change)) return { outcome: 'outOfOrder' };

		let settle!: () => void;
		const token = `${this.tokenPrefix}${++this.claimCount}`;
		const claim = {
			openedAt: nowSeconds,
			found,
			settled: new Promise<void>((resolve) => {
				settle = resolve;
			}),
		};
		for (const name of names) this.claims.set(name, claim);
		const close = () => {
			for (const name of names) if (this.claims.get(name) === claim) this.claims.delete(name);
			settle();
		};
		return {
			outcome: 'admitted',
			claim: {
				token,
				start: (nowSeconds) => {
					this.record(change, nowSeconds, { dropOlder });
					this.startedHere.add(hash);
					if (this.startedHere.size > PROCESS_LIMIT)
						this.startedHere.delete(this.startedHere.values().next().value as string);
					close();
					let answer!: () => void;
					const answered = new Promise<void>((resolve) => (answer = resolve));
					this.unanswered.set(hash, answered);
					return () => {
						if (this.unanswered.get(hash) === answered) this.unanswered.delete(hash);
						answer();
					};
				},
				release: close,
			},
		};
	}

	/**
	 * The turn to save ({@link Turn}): `release` to call once n8n has answered, or the promise of the current
	 * holder's release. A holder older than {@link CLAIM_SECONDS} (its answer never came) no longer counts.
	 */
	takeTurn(nowSeconds: number): Turn {
		const current = this.turn;
		if (current && current.takenAt + CLAIM_SECONDS > nowSeconds) return { busy: current.free };
		let free!: () => void;
		const turn = { takenAt: nowSeconds, free: new Promise<void>((resolve) => (free = resolve)) };
		this.turn = turn;
		return {
			release: () => {
				if (this.turn === turn) this.turn = undefined;
				free();
			},
		};
	}

	/**
	 * The answer of the delivery that started this change, until n8n sends it (n8n saves static data first).
	 * The execution's first step waits for it, so that no execution ends before its event is saved.
	 */
	answerOf(change: Change): Promise<void> | undefined {
		return this.unanswered.get(hashKey(change.key));
	}

	/**
	 * For the first step of an execution a watchdog emitted: `ours` when this memory's watchdog did (its claim
	 * is open until the execution ends); `known` when this memory knows it ran, or is starting a delivery of it,
	 * or, having read the saved memory, knows the subject at that status (its own look would find nothing).
	 * Another memory's watchdog: the version n8n ran before an Update, or queue mode's main process.
	 */
	originOfFound(change: Change): 'ours' | 'known' | 'new' {
		const names = claimNames(change);
		const open = names.map((name) => this.claims.get(name)).filter((claim) => claim !== undefined);
		if (open.some(({ found }) => found)) return 'ours';
		if (open.length > 0 || this.events.has(names[0]) || this.isCovered(change)) return 'known';
		const atStatus =
			change.subject !== undefined && this.statusOf(change.subject) === change.status;
		return atStatus && this.readSaved ? 'known' : 'new';
	}

	/**
	 * For the first step of an execution a delivery started, named by its claim's token: `ours` when this
	 * memory admitted it; otherwise another process created it (a row n8n runs at its start, a queue-mode
	 * worker's) or the version before an Update did. `known` when this memory, having read the saved memory, is
	 * starting or has started the change itself (a delivery, or the watchdog): that execution runs it. `new`
	 * otherwise. What was saved is not asked: it may be the save of this very execution's delivery.
	 */
	originOfDelivered(change: Change, token: unknown, nowSeconds: number): 'ours' | 'known' | 'new' {
		if (typeof token === 'string' && token.startsWith(this.tokenPrefix)) return 'ours';
		if (!this.readSaved) return 'new';
		const started = this.startedHere.has(hashKey(change.key)) || this.isCovered(change);
		return started || this.openClaim(claimNames(change), nowSeconds) ? 'known' : 'new';
	}

	/** The claim holding a change back under one of its names, unless older than {@link CLAIM_SECONDS}. */
	private openClaim(names: string[], nowSeconds: number) {
		for (const name of names) {
			const open = this.claims.get(name);
			if (open && open.openedAt + CLAIM_SECONDS > nowSeconds) return open;
		}
		return undefined;
	}

	/** Remembers a change whose execution exists (`found`: the watchdog ran it); true when it was new. */
	record(
		change: Change,
		nowSeconds: number,
		{ found = false, dropOlder = false }: { found?: boolean; dropOlder?: boolean } = {},
	): boolean {
		const hash = hashKey(change.key);
		const news = !this.events.has(hash);
		if (news) {
			this.version++;
			this.events.set(hash, bucketOf(nowSeconds));
			this.evict(nowSeconds);
		}
		if (change.subject !== undefined) {
			this.learn(change.subject, change.status, change.modStamp, dropOlder);
			const cover = coverOf(change);
			if (found && cover !== undefined && change.modStamp !== undefined) {
				const current = this.covers.get(cover);
				if (!(timeOf(current?.modStamp) >= timeOf(change.modStamp))) {
					this.version++;
					this.covers.delete(cover);
					this.covers.set(cover, { modStamp: change.modStamp, hour: bucketOf(nowSeconds) });
				}
			}
		}
		return news;
	}

	/**
	 * What is known of a subject moves forward only (an older modStamp changes nothing; a status without one,
	 * as listed, is taken). `ordered`: checked with Ignore Older Events, so its modStamp is saved.
	 */
	learn(subject: string, status?: string, modStamp?: string, ordered = false): void {
		this.learnHash(hashKey(subject), status, modStamp, ordered);
	}

	private learnHash(hash: string, status?: string, modStamp?: string, ordered = false): void {
		const current = this.subjects.get(hash);
		if (current && modStamp !== undefined && timeOf(current.modStamp) > timeOf(modStamp)) {
			if (ordered && !current.ordered) {
				current.ordered = true;
				this.version++;
			}
			return;
		}
		if (
			current?.modStamp === (modStamp ?? current?.modStamp) &&
			current?.status === (status ?? current?.status) &&
			current?.ordered === (ordered || current?.ordered)
		)
			return;
		this.version++;
		this.subjects.delete(hash);
		this.subjects.set(hash, {
			modStamp: modStamp ?? current?.modStamp,
			status: status ?? current?.status,
			ordered: ordered || current?.ordered === true,
		});
		if (this.subjects.size > PROCESS_LIMIT)
			this.subjects.delete(this.subjects.keys().next().value as string);
	}

	statusOf(subject: string): string | undefined {
		return this.subjects.get(hashKey(subject))?.status;
	}

	modStampOf(subject: string): string | undefined {
		return this.subjects.get(hashKey(subject))?.modStamp;
	}

	/** The watchdog's record of activation: every subject's status now, nothing run. */
	recordActivation(statuses: Array<[subject: string, status: string, modStamp?: string]>): void {
		this.recordedByWatchdog = true;
		this.version++;
		for (const [subject, status, modStamp] of statuses) this.learn(subject, status, modStamp);
	}

	/** The watchdog starts again from a new record (a user activated the workflow). */
	dropRecord(): void {
		this.recordedByWatchdog = false;
		this.version++;
		for (const subject of this.subjects.values()) subject.status = undefined;
	}

	/**
	 * The saved string: a header, then the newest {@link duplicateMemorySize} events by hour (`e`), covers (`c`) and
	 * subjects' modStamps kept for Ignore Older Events (`o`), and the watchdog's statuses: a dictionary (`d`),
	 * each subject's hash with its status's index (`w`), and the modStamp each status was known at (`t`), so
	 * that after a restart an older delivery cannot move a status back.
	 */
	serialize(): string {
		const { version, duplicateMemorySize: size } = this;
		if (this.serialized?.version === version && this.serialized.size === size)
			return this.serialized.text;
		const lines = [`${FORMAT} ${this.recordedByWatchdog ? 1 : 0}`];
		// Events are oldest first: one line per run of one hour.
		let skip = this.events.size - this.duplicateMemorySize;
		let lastHour: number | undefined;
		for (const [hash, hour] of this.events) {
			if (skip-- > 0) continue;
			if (hour !== lastHour) lines.push(`e\t${hour}\t`);
			lines[lines.length - 1] += hash;
			lastHour = hour;
		}
		skip = this.covers.size - this.duplicateMemorySize;
		for (const [hash, { modStamp, hour }] of this.covers)
			if (skip-- <= 0) lines.push(`c\t${hash}\t${hour}\t${packModStamp(modStamp)}`);
		// Two passes without copying the subjects: process memory holds up to PROCESS_LIMIT of them.
		const isOrdered = ({ ordered, modStamp }: Subject) => ordered && Boolean(modStamp);
		let ordered = 0;
		for (const subject of this.subjects.values()) if (isOrdered(subject)) ordered++;
		skip = ordered - this.duplicateMemorySize;
		for (const [hash, subject] of this.subjects)
			if (isOrdered(subject) && skip-- <= 0)
				lines.push(`o\t${hash}\t${packModStamp(subject.modStamp!)}`);
		if (this.recordedByWatchdog) {
			const dictionary = new Map<string, number>();
			for (const { status } of this.subjects.values())
				if (status !== undefined && !dictionary.has(status))
					dictionary.set(status, dictionary.size);
			const width = Math.max(1, Math.ceil(Math.log(dictionary.size + 1) / Math.log(36)));
			let records = '';
			for (const [hash, { status }] of this.subjects)
				if (status !== undefined)
					records += hash + dictionary.get(status)!.toString(36).padStart(width, '0');
			lines.push(['d', ...dictionary.keys()].join('\t'));
			lines.push(`w\t${width}\t${records}`);
			for (const [hash, { status, modStamp }] of this.subjects)
				if (status !== undefined && modStamp !== undefined)
					lines.push(`t\t${hash}\t${packModStamp(modStamp)}`);
		}
		const text = lines.join('\n');
		this.serialized = { version, size, text };
		this.remember(text);
		return text;
	}

	private isCovered(change: Change): boolean {
		const name = coverOf(change);
		const cover = name === undefined ? undefined : this.covers.get(name);
		return cover !== undefined && timeOf(change.modStamp) <= timeOf(cover.modStamp);
	}

	private isOlder(change: Change): boolean {
		if (change.subject === undefined) return false;
		return timeOf(change.modStamp) < timeOf(this.modStampOf(change.subject));
	}

	private parse(text: string): void {
		const [header, ...lines] = text.split('\n');
		const [format, recorded] = header.split(' ');
		if (format !== FORMAT) return;
		let added = false;
		if (recorded === '1' && !this.recordedByWatchdog) {
			this.recordedByWatchdog = true;
			added = true;
		}
		let dictionary: string[] = [];
		const statuses = new Map<string, string>();
		const modStamps = new Map<string, string>();
		for (const line of lines) {
			const fields = line.split('\t');
			if (fields[0] === 'e') {
				const hour = Number(fields[1]);
				const run = fields[2] ?? '';
				if (!Number.isFinite(hour)) continue;
				for (let start = 0; start + HASH_LENGTH <= run.length; start += HASH_LENGTH) {
					const hash = run.slice(start, start + HASH_LENGTH);
					if (!this.events.has(hash)) {
						this.events.set(hash, hour);
						added = true;
					}
				}
			} else if (fields[0] === 'c') {
				const modStamp = unpackModStamp(fields[3] ?? '');
				const hour = Number(fields[2]);
				if (modStamp !== undefined && Number.isFinite(hour) && !this.covers.has(fields[1])) {
					this.covers.set(fields[1], { modStamp, hour });
					added = true;
				}
			} else if (fields[0] === 'o' && fields[1]) {
				const modStamp = unpackModStamp(fields[2] ?? '');
				if (modStamp !== undefined) this.learnHash(fields[1], undefined, modStamp, true);
			} else if (fields[0] === 'd') {
				dictionary = fields.slice(1);
			} else if (fields[0] === 'w') {
				const width = Number(fields[1]);
				const records = fields[2] ?? '';
				const step = HASH_LENGTH + width;
				if (!(width > 0)) continue;
				for (let start = 0; start + step <= records.length; start += step) {
					const hash = records.slice(start, start + HASH_LENGTH);
					const status = dictionary[parseInt(records.slice(start + HASH_LENGTH, start + step), 36)];
					if (status !== undefined) statuses.set(hash, status);
				}
			} else if (fields[0] === 't' && fields[1]) {
				const modStamp = unpackModStamp(fields[2] ?? '');
				if (modStamp !== undefined) modStamps.set(fields[1], modStamp);
			}
		}
		// A status and the modStamp it was known at go together: the newer pair wins.
		for (const [hash, status] of statuses) {
			const modStamp = modStamps.get(hash) ?? this.subjects.get(hash)?.modStamp;
			if (modStamps.has(hash) || this.subjects.get(hash)?.status === undefined)
				this.learnHash(hash, status, modStamp);
		}
		// A string that brings nothing new (this process's own, read back late) costs its length, not a sort of
		// every event the process holds; learnHash counts its own changes.
		if (added) {
			this.sortEvents();
			this.version++;
		}
	}

	/** Events oldest first again after a saved string brought older hours in. */
	private sortEvents(): void {
		const sorted = [...this.events].sort(([, a], [, b]) => a - b);
		this.events.clear();
		for (const [hash, hour] of sorted) this.events.set(hash, hour);
	}

	/** Forgets what is past the retention, then the oldest beyond {@link PROCESS_LIMIT}. */
	private evict(nowSeconds: number): void {
		const expiredBefore = nowSeconds - RETENTION_SECONDS;
		for (const [hash, hour] of this.events) {
			if (hour + BUCKET_SECONDS > expiredBefore && this.events.size <= PROCESS_LIMIT) break;
			this.events.delete(hash);
			this.version++;
		}
		for (const [hash, { hour }] of this.covers) {
			if (hour + BUCKET_SECONDS > expiredBefore && this.covers.size <= PROCESS_LIMIT) break;
			this.covers.delete(hash);
			this.version++;
		}
	}

	private remember(text: string): void {
		if (this.known.delete(text)) this.knownCharacters -= text.length;
		this.known.add(text);
		this.knownCharacters += text.length;
		while (
			this.known.size > 1 &&
			(this.known.size > KNOWN_STRINGS.count || this.knownCharacters > KNOWN_STRINGS.characters)
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
