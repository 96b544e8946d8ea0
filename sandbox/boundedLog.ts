/** An append-only log that keeps the newest `limit` entries, numbered from 1 for easy reference. */
export class BoundedLog<Entry extends { id: number }> {
	private readonly kept: Entry[] = [];
	private nextId = 1;

	constructor(private readonly limit: number) {}

	append(entry: Omit<Entry, 'id'>): Entry {
		const numbered = { id: this.nextId++, ...entry } as Entry;
		this.kept.push(numbered);
		if (this.kept.length > this.limit) this.kept.shift();
		return numbered;
	}

	entries(): Entry[] {
		return structuredClone(this.kept);
	}
}
