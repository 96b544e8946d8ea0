/* eslint-disable @n8n/community-nodes/no-restricted-globals -- repository tooling: runs in Node.js, never inside n8n */
/**
 * "Concurrent Requests" (Options of the read operations): runForEachItem with a concurrency above 1 keeps the
 * output in input order and paired with the input items, never has more items in flight than asked, runs the
 * first item alone, and keeps Continue On Fail's and a failure's behaviour; only the GET operations offer it.
 * No timing is asserted: items finish out of order by yielding to the event loop a different number of times.
 */
import {
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type INode,
	type INodeProperties,
	type INodePropertyCollection,
} from 'n8n-workflow';

import { BackgroundCheck } from '../../../../nodes/BackgroundCheck/BackgroundCheck.node';
import { operations } from '../../../../nodes/BackgroundCheck/actions/router';
import {
	DEFAULT_CONCURRENCY,
	MAX_CONCURRENCY,
	carriedOutNote,
	readConcurrency,
	runForEachItem,
	type RunForEachItemOptions,
} from '../../../../nodes/BackgroundCheck/helpers/execute';
import { createExecuteContext, CredentialStore } from '../../../helpers/executeContext';

const node = { name: 'Background Check' } as INode;
const yieldTimes = async (times: number) => {
	for (let i = 0; i < times; i++) await new Promise((resolve) => setImmediate(resolve));
};

function context(
	itemCount: number,
	opts: { continueOnFail?: boolean; parameters?: IDataObject } = {},
) {
	return createExecuteContext({
		parameters: { resource: 'case', operation: 'get', ...opts.parameters },
		items: Array.from({ length: itemCount }, (_, index) => ({ json: { index } })),
		credentials: new CredentialStore({}),
		continueOnFail: opts.continueOnFail ?? false,
	});
}

/**
 * runForEachItem over `itemCount` items with an operation whose later items finish first, recording what ran
 * when; `result` is an item's output, or throws (a failed item).
 */
function tracedRun(
	itemCount: number,
	options?: RunForEachItemOptions & { continueOnFail?: boolean },
	result: (itemIndex: number) => IDataObject | IDataObject[] = (i) => ({ item: i }),
) {
	const trace = { inFlight: 0, maxInFlight: 0, events: [] as string[], started: [] as number[] };
	const operation = async (itemIndex: number) => {
		trace.inFlight++;
		trace.maxInFlight = Math.max(trace.maxInFlight, trace.inFlight);
		trace.started.push(itemIndex);
		trace.events.push(`start ${itemIndex}`);
		try {
			await yieldTimes(itemCount - itemIndex);
			return result(itemIndex);
		} finally {
			trace.inFlight--;
			trace.events.push(`end ${itemIndex}`);
		}
	};
	const { continueOnFail, ...runOptions } = options ?? {};
	const items = context(itemCount, { continueOnFail });
	// Given no options, runForEachItem gets none either: its own default is under test too.
	return { trace, run: runForEachItem.call(items, operation, options && runOptions) };
}

/** The events of items 0 to count - 1 run one after the other. */
const oneAtATime = (count: number) =>
	Array.from({ length: count }, (_, i) => [`start ${i}`, `end ${i}`]).flat();

describe('runForEachItem with a concurrency', () => {
	it('keeps input order and pairing although later items finish first, several outputs per item included', async () => {
		const several = (i: number) => [1, 2].map((n) => ({ item: i, n }));
		const { trace, run } = tracedRun(12, { concurrency: 5 }, (i) =>
			i % 4 === 1 ? several(i) : { item: i },
		);
		const expected = Array.from({ length: 12 }, (_, i) =>
			(i % 4 === 1 ? several(i) : [{ item: i }]).map((json) => ({ json, pairedItem: { item: i } })),
		).flat();
		expect(await run).toEqual(expected);
		// Items really finished out of input order.
		const ends = trace.events
			.filter((event) => event.startsWith('end'))
			.map((event) => Number(event.split(' ')[1]));
		expect(ends).not.toEqual([...ends].sort((a, b) => a - b));
	});

	it.each([2, 5, MAX_CONCURRENCY])(
		'never has more than %i items in flight, and reaches that bound',
		async (concurrency) => {
			const { trace, run } = tracedRun(120, { concurrency });
			await run;
			expect(trace.maxInFlight).toBe(concurrency);
			expect(trace.started.sort((a, b) => a - b)).toEqual(Array.from({ length: 120 }, (_, i) => i));
		},
	);

	it('caps a larger value at the maximum and runs one at a time for 1, 0 or no value', async () => {
		const over = tracedRun(150, { concurrency: 500 });
		await over.run;
		expect(over.trace.maxInFlight).toBe(MAX_CONCURRENCY);
		for (const concurrency of [1, 0, undefined]) {
			const { trace, run } = tracedRun(5, concurrency === undefined ? undefined : { concurrency });
			await run;
			expect(trace.maxInFlight).toBe(1);
			expect(trace.events).toEqual(oneAtATime(5));
		}
	});

	it('runs the first item alone, so that a credential without a token is exchanged once', async () => {
		const { trace, run } = tracedRun(6, { concurrency: 4 });
		await run;
		expect(trace.events.slice(0, 2)).toEqual(['start 0', 'end 0']);
		expect(trace.events.slice(2, 6)).toEqual(['start 1', 'start 2', 'start 3', 'start 4']);
	});

	it('with Continue On Fail, puts each error on its own item, in place, and runs every other item', async () => {
		const failing = new Set([0, 3, 4, 9]);
		const { trace, run } = tracedRun(10, { concurrency: 3, continueOnFail: true }, (itemIndex) => {
			if (failing.has(itemIndex))
				throw new NodeApiError(
					node,
					{ message: 'Invalid case' },
					{ message: 'Invalid case', description: `HTTP 404 item ${itemIndex}`, itemIndex },
				);
			return { item: itemIndex };
		});
		expect(await run).toEqual(
			Array.from({ length: 10 }, (_, i) =>
				failing.has(i)
					? {
							json: { error: 'Invalid case', errorDescription: `HTTP 404 item ${i}` },
							pairedItem: { item: i },
						}
					: { json: { item: i }, pairedItem: { item: i } },
			),
		);
		expect(trace.started).toHaveLength(10);
		expect(trace.maxInFlight).toBe(3);
	});

	it('without Continue On Fail, starts no new item after a failure and throws the lowest failing item, as a one-at-a-time run would', async () => {
		// Item 6 fails after item 7 (later items finish first), and item 20 would fail too.
		const { trace, run } = tracedRun(30, { concurrency: 4 }, (i) => {
			if (i === 6 || i === 7 || i === 20) throw new TypeError(`bad shape ${i}`);
			return {};
		});
		await expect(run).rejects.toBeInstanceOf(NodeOperationError);
		await expect(run).rejects.toMatchObject({ context: { itemIndex: 6 } });
		expect(trace.inFlight).toBe(0);
		expect(Math.max(...trace.started)).toBeLessThan(6 + 4);
		expect(trace.started).not.toContain(20);
	});

	it.each([1, 4])(
		'for a write stopped by a failure, says which items the API carried out (Concurrent Requests %i)',
		async (concurrency) => {
			const { trace, run } = tracedRun(12, { concurrency, write: true }, (itemIndex) => {
				if (itemIndex === 6)
					throw new NodeApiError(
						node,
						{ message: 'boom' },
						{ message: 'The API failed', description: 'It may or may not exist.', itemIndex },
					);
				return { item: itemIndex };
			});
			const error = (await run.catch((caught: unknown) => caught)) as NodeApiError;
			expect(error.context.itemIndex).toBe(6);
			const done = error.description!.match(/carried out items ([\d, -]+) \((\d+) of 12\)/)!;
			// Every item that ran and succeeded: serially 0-5; concurrently also the later items that were in
			// flight or started before item 6 failed (later items finish first here).
			const succeeded = trace.started.filter((item) => item !== 6).sort((a, b) => a - b);
			expect(Number(done[2])).toBe(succeeded.length);
			if (concurrency === 1) expect(done[1]).toBe('0-5');
			else {
				expect(succeeded.length).toBeGreaterThan(6);
				expect(done[1]).toBe(`0-5, 7-${Math.max(...succeeded)}`);
			}
			expect(error.description).toMatch(/^It may or may not exist\. Before the node stopped/);
		},
	);

	it('a stopped read says nothing about carried-out items, nor a write stopped at its first item', async () => {
		const failAt = (failing: number, write: boolean) =>
			runForEachItem
				.call(
					context(5),
					async (itemIndex) => {
						if (itemIndex === failing) throw new TypeError('unexpected shape');
						return {};
					},
					{ concurrency: 2, write },
				)
				.catch((caught: NodeOperationError) => caught.description ?? '');
		expect(await failAt(3, false)).not.toMatch(/carried out/);
		expect(await failAt(0, true)).not.toMatch(/carried out/);
	});

	it('stops before any other item when the first item fails', async () => {
		const { trace, run } = tracedRun(5, { concurrency: 5 }, () => {
			throw new TypeError('unexpected shape');
		});
		await expect(run).rejects.toMatchObject({ context: { itemIndex: 0 } });
		expect(trace.started).toEqual([0]);
	});
});

describe('carriedOutNote', () => {
	it('gives the items as ranges with their count, and nothing for none', () => {
		expect(carriedOutNote([0, 1, 2, 4, 7, 8], 10)).toBe(
			'Before the node stopped, the API carried out items 0-2, 4, 7-8 (6 of 10); running the workflow again sends them again.',
		);
		expect(carriedOutNote([3], 4)).toMatch(/carried out item 3 \(1 of 4\)/);
		expect(carriedOutNote([], 4)).toBeUndefined();
	});
});

describe('runForEachItem on real timers', () => {
	const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

	it('starts the next items as soon as slots are free, however long the first item took, and none after a failure', async () => {
		const started: number[] = [];
		// Item 0 takes 40 ms; then items 1, 2 and 3 start at once (concurrency 3). Item 1 fails at once, so no
		// worker starts item 4 or later; items 2 and 3, already running, finish.
		const run = runForEachItem.call(
			context(6),
			async (itemIndex) => {
				started.push(itemIndex);
				if (itemIndex === 0) await wait(40);
				if (itemIndex === 1) throw new TypeError('unexpected shape');
				return {};
			},
			{ concurrency: 3 },
		);
		await expect(run).rejects.toMatchObject({ context: { itemIndex: 1 } });
		expect(started).toEqual([0, 1, 2, 3]);
	});

	it('keeps input order and pairing when items take real time', async () => {
		const output = await runForEachItem.call(
			context(12),
			async (itemIndex) => {
				await wait(itemIndex === 0 ? 20 : 12 - itemIndex);
				return { item: itemIndex };
			},
			{ concurrency: 4 },
		);
		expect(output).toEqual(
			Array.from({ length: 12 }, (_, i) => ({ json: { item: i }, pairedItem: { item: i } })),
		);
	});
});

describe('readConcurrency', () => {
	const read = (options?: IDataObject) =>
		readConcurrency.call(context(1, { parameters: options === undefined ? {} : { options } }));

	it('reads the option from the Options collection it is given', () => {
		const testimony = context(1, { parameters: { testimonyOptions: { concurrency: 3 } } });
		expect(readConcurrency.call(testimony, 'testimonyOptions')).toBe(3);
		expect(readConcurrency.call(testimony)).toBe(DEFAULT_CONCURRENCY);
	});

	it('is concurrent (the default, 50) when the option is not set, else the value', () => {
		expect(DEFAULT_CONCURRENCY).toBe(50);
		expect(read()).toBe(DEFAULT_CONCURRENCY);
		expect(read({})).toBe(DEFAULT_CONCURRENCY);
		expect(read({ concurrency: 1 })).toBe(1);
		expect(read({ concurrency: 7 })).toBe(7);
		expect(read({ concurrency: MAX_CONCURRENCY })).toBe(MAX_CONCURRENCY);
		expect(read({ concurrency: '12' })).toBe(12);
	});

	it.each([0, -1, MAX_CONCURRENCY + 1, 2.5, 'many', null])(
		'refuses %p with a message giving the range',
		(value) => {
			expect(() => read({ concurrency: value as never })).toThrow(
				new RegExp(`Concurrent Requests must be a whole number from 1 to ${MAX_CONCURRENCY}`),
			);
		},
	);
});

describe('where Concurrent Requests is offered', () => {
	const { properties } = new BackgroundCheck().description;
	/** Resource/operation pairs whose shown parameters include a collection with `concurrency`. */
	const offeredFor = Object.entries(operations).flatMap(([resource, ops]) =>
		Object.keys(ops)
			.filter((operation) =>
				properties.some((property: INodeProperties) => {
					const show = property.displayOptions?.show;
					const shown = show?.resource?.includes(resource) && show?.operation?.includes(operation);
					return (
						shown &&
						property.type === 'collection' &&
						(property.options as INodePropertyCollection[]).some(
							(option) => option.name === 'concurrency',
						)
					);
				}),
			)
			.map((operation) => `${resource}.${operation}`),
	);

	it('is offered for every read (GET) operation and for the bulk writes', () => {
		expect(offeredFor.sort()).toEqual(
			[
				'case.get',
				'case.getMany',
				'case.getData',
				'case.getServices',
				'case.getOrderConfiguration',
				'case.getCandidateInfo',
				'invitation.get',
				'report.downloadCaseReport',
				'report.downloadLegalDocument',
				'report.downloadPreAdverseDocument',
				'secureDocument.download',
				'secureDocument.getMany',
				'package.getServices',
				'cplc.getDefinitions',
				'shipmentMask.getMany',
				'companyUser.getMany',
				'case.create',
				'case.addServices',
				'testimony.create',
				'testimony.update',
				'secureDocument.create',
			].sort(),
		);
	});

	it('is not added by default (the default concurrency then applies), shows that default when added, bounded 1 to the maximum, whole numbers', () => {
		const collection = properties.find(
			(property) =>
				property.name === 'options' && property.displayOptions?.show?.operation?.includes('get'),
		)!;
		expect(collection.default).toEqual({});
		const option = (collection.options as INodeProperties[]).find(
			(candidate) => candidate.name === 'concurrency',
		)!;
		expect(option.default).toBe(DEFAULT_CONCURRENCY);
		expect(option.typeOptions).toEqual({
			minValue: 1,
			maxValue: MAX_CONCURRENCY,
			numberPrecision: 0,
		});
	});
});
