/** The node's pure helpers: input checks, body building, status names, list handling, per-item running. */
import type { INode } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { withoutEmptyValues } from '../../../../nodes/BackgroundCheck/helpers/body';
import { describeStatuses } from '../../../../nodes/BackgroundCheck/helpers/statusNames';
import { asRecord, runForEachItem } from '../../../../nodes/BackgroundCheck/helpers/execute';
import {
	applyLimit,
	collectPages,
	recordsOf,
} from '../../../../nodes/shared/transport/listResponses';
import { isoDate } from '../../../../nodes/BackgroundCheck/helpers/orderData';
import {
	checkBody,
	parseJsonObject,
	requireId,
	requireIdList,
} from '../../../../nodes/BackgroundCheck/helpers/inputChecks';
import {
	CASE_DATA_STATUSES,
	CASE_RESULTS,
	CASE_STATUSES,
	PENDING_STATUSES,
	SECONDARY_CASE_STATUSES,
} from '../../../../nodes/shared/catalog';
import { createExecuteContext, CredentialStore } from '../../../helpers/executeContext';

const node = { name: 'Background Check' } as INode;

function errorOf(run: () => unknown): NodeOperationError {
	try {
		run();
	} catch (error) {
		return error as NodeOperationError;
	}
	throw new Error('did not throw');
}

describe('requireId', () => {
	it('returns the trimmed ID', () => {
		expect(requireId(node, '  case-1 ', 'Case ID', 0)).toBe('case-1');
		expect(requireId(node, 42, 'Case ID', 0)).toBe('42');
	});

	it.each([[''], ['  '], [undefined], [null], [{ __rl: true, mode: 'list', value: '' }]])(
		'refuses %p as empty',
		(value) => {
			const error = errorOf(() => requireId(node, value, 'Case ID', 3));
			expect(error).toBeInstanceOf(NodeOperationError);
			expect(error.message).toBe('Case ID is empty [item 3]');
			expect(error.context.itemIndex).toBe(3);
		},
	);

	it.each([['a/b'], ['..'], ['.'], ['../etc'], ['a b'], ['a?b'], ['a#b'], ['a\\b'], ['a\nb']])(
		'refuses %p as malformed',
		(value) => {
			expect(errorOf(() => requireId(node, value, 'Package ID', 1)).message).toBe(
				`Package ID "${value.trim()}" is not a valid ID [item 1]`,
			);
		},
	);

	it('checks every entry of a comma- or newline-separated list and skips blanks', () => {
		expect(requireIdList(node, 'a, b,\nc,, ', 'IDs', 0)).toEqual(['a', 'b', 'c']);
		expect(requireIdList(node, ['x', ' y '], 'IDs', 0)).toEqual(['x', 'y']);
		expect(errorOf(() => requireIdList(node, 'a, b/c', 'Secure Document IDs', 2)).message).toBe(
			'Secure Document IDs "b/c" is not a valid ID [item 2]',
		);
	});
});

describe('parseJsonObject', () => {
	const parse = (value: unknown, itemIndex = 0) =>
		parseJsonObject(node, value, 'Additional Fields (JSON)', itemIndex);

	it('accepts JSON text, an object from an expression, and empty input', () => {
		expect(parse('{ "a": { "b": 1 } }')).toEqual({ a: { b: 1 } });
		expect(parse({ a: 1 })).toEqual({ a: 1 });
		expect(parse('')).toEqual({});
		expect(parse(undefined)).toEqual({});
	});

	it('refuses text that does not parse, naming the field and the item', () => {
		const error = errorOf(() => parse('{ "a": ', 4));
		expect(error.message).toBe('Additional Fields (JSON) is not valid JSON [item 4]');
		expect(error.description).toMatch(/JSON/);
	});

	it.each([['[1]'], ['"text"'], ['3'], ['null'], [[1, 2]]])(
		'refuses %p as not an object',
		(value) => {
			expect(errorOf(() => parse(value)).message).toBe(
				'Additional Fields (JSON) must be a JSON object [item 0]',
			);
		},
	);
});

describe('checkBody', () => {
	/** A name with a space (refused for case creation) and a staffing agency one character too long. */
	const body = () => ({
		givenName: 'Ann Marie',
		orderData: [
			{ caseOrderDataTypeId: 'codt-employment', metadata: { staffingAgency: 'A'.repeat(101) } },
		],
	});

	it('applies the name rule only when asked (case creation), the staffingAgency length always', () => {
		expect(errorOf(() => checkBody(node, body(), 0, { names: true })).message).toMatch(
			/^givenName/,
		);
		expect(errorOf(() => checkBody(node, body(), 0)).message).toMatch(
			/^orderData\[0\]\.metadata\.staffingAgency/,
		);
		expect(() => checkBody(node, { givenName: 'Ann Marie' }, 0)).not.toThrow();
	});

	it('passes names with the allowed characters and short staffing agencies', () => {
		const allowed = {
			givenName: "D'Arcy-Lee",
			familyName: 'Ñúñez,Jr.',
			orderData: [{ metadata: { givenName: 'Ann_1', familyName: 'Lee.' } }],
			staffingAgency: 'A'.repeat(100),
		};
		expect(() => checkBody(node, allowed, 0)).not.toThrow();
	});

	it('names the first violation and lists the others', () => {
		const error = errorOf(() => checkBody(node, body(), 2, { names: true }));
		expect(error.message).toMatch(
			/^givenName contains characters the API does not accept \(space\).*\[item 2\]$/,
		);
		expect(error.description).toMatch(
			/orderData\[0\]\.metadata\.staffingAgency is 101 characters long/,
		);
	});
});

describe('body building', () => {
	it('drops values left empty', () => {
		const values = { a: '', b: [], c: {}, d: { e: '' }, f: 0, g: false, h: 'x', i: undefined };
		expect(withoutEmptyValues(values)).toEqual({ f: 0, g: false, h: 'x' });
	});
});

describe('describeStatuses', () => {
	it('adds status and pending-status names next to their IDs, at any depth, keeping the API fields', () => {
		const clear = CASE_DATA_STATUSES.find((status) => status.status === 'clear')!;
		const pending = CASE_DATA_STATUSES.find((status) => status.status === 'pending')!;
		const scheduled = PENDING_STATUSES.find(
			(status) => status.pendingStatusId === 'pending-status-scheduled',
		)!;
		const record = { searchId: 's1', statusId: clear.statusId };
		const answer = {
			status: 'pending',
			statusId: pending.statusId,
			pendingStatus: 'Appointment Scheduled',
			pendingStatusId: scheduled.pendingStatusId,
			details: { records: [record] },
			caseStatusId: 'unknown-case-status',
		};
		// Built before the call, so that a change made to the answer in place cannot pass unnoticed.
		const expected = {
			...answer,
			statusName: 'pending',
			statusMeaning: 'In progress',
			pendingStatusName: 'Appointment Scheduled',
			pendingStatusAppliesTo: 'OHS',
			details: { records: [{ ...record, statusName: 'clear', statusMeaning: 'Done and good' }] },
		};
		expect(describeStatuses(answer)).toEqual(expected);
	});

	it('adds the names of a case’s status, secondary status and result IDs', () => {
		const summary = {
			id: 'c1',
			caseStatusId: CASE_STATUSES.find((status) => status.name === 'Complete')!.id,
			secondaryCaseStatusId: SECONDARY_CASE_STATUSES.find((status) => status.name === 'Consider')!
				.id,
			resultTypeId: CASE_RESULTS.find((result) => result.name === 'Placed')!.id,
		};
		expect(describeStatuses([summary])).toEqual([
			{
				...summary,
				caseStatusName: 'Complete',
				secondaryStatusName: 'Consider',
				resultName: 'Placed',
			},
		]);
		expect(describeStatuses({ constructor: 'x', caseStatusId: 'case-status-pending' })).toEqual({
			constructor: 'x',
			caseStatusId: 'case-status-pending',
		});
	});

	it('adds nothing for IDs the spec does not list, or null ones', () => {
		expect(describeStatuses({ statusId: 'unknown', pendingStatusId: null })).toEqual({
			statusId: 'unknown',
			pendingStatusId: null,
		});
	});
});

describe('lists', () => {
	it('finds the records of a bare or wrapped list', () => {
		expect(recordsOf([{ id: 1 }])).toEqual([{ id: 1 }]);
		expect(
			recordsOf({ cplcDefinitionsList: [{ id: 1 }], other: [] }, 'cplcDefinitionsList'),
		).toEqual([{ id: 1 }]);
		expect(recordsOf({ cases: [{ id: 2 }] }, 'cases')).toEqual([{ id: 2 }]);
		expect(recordsOf({ packageId: 'p', serviceGroupServices: [{ id: 2 }] })).toEqual([{ id: 2 }]);
		expect(recordsOf({ id: 'single' })).toEqual([{ id: 'single' }]);
		expect(recordsOf('')).toEqual([]);
	});

	it('cuts to the limit unless Return All', () => {
		expect(applyLimit([1, 2, 3], 2)).toEqual([1, 2]);
		expect(applyLimit([1, 2, 3], undefined)).toEqual([1, 2, 3]);
	});

	const pages = [[1, 2], [3, 4], [5]].map((page, index) => ({
		items: page.map((id) => ({ id })),
		listMetadata: { page: index, totalPages: 3 },
	}));

	/** collectPages over the pages `at` answers, with the page numbers it asked for. */
	async function collect(at: (page: number) => unknown, limit?: number) {
		const asked: number[] = [];
		const fetchPage = async (page: number) => (asked.push(page), at(page));
		const records = await collectPages(fetchPage, 'items', limit);
		return { records, ids: records.map((record) => record.id), asked };
	}

	it('walks the pages until the last one with Return All', async () => {
		const { ids, asked } = await collect((page) => pages[page]);
		expect(ids).toEqual([1, 2, 3, 4, 5]);
		expect(asked).toEqual([0, 1, 2]);
	});

	it('stops as soon as the limit is reached', async () => {
		const { ids, asked } = await collect((page) => pages[page], 3);
		expect(ids).toEqual([1, 2, 3]);
		expect(asked).toEqual([0, 1]);
	});

	it('reads one page from an endpoint that reports no pages', async () => {
		const { records, asked } = await collect(() => ({ items: [{ id: 1 }] }));
		expect(records).toEqual([{ id: 1 }]);
		expect(asked).toEqual([0]);
	});
});

describe('isoDate', () => {
	it('reads a date, or the date of an ISO date-time, and refuses what is not a day of the calendar', () => {
		expect(isoDate('1980-02-22')).toBe('1980-02-22');
		expect(isoDate(' 2000-02-29T00:00:00.000Z ')).toBe('2000-02-29');
		for (const value of ['1999-02-29', '1980-13-01', '22/02/1980', '1980-2-22', '', 'x'])
			expect(isoDate(value)).toBeUndefined();
	});
});

describe('runForEachItem', () => {
	const context = (continueOnFail: boolean) =>
		createExecuteContext({
			parameters: { resource: 'case', operation: 'get' },
			items: [{ json: {} }, { json: {} }, { json: {} }],
			credentials: new CredentialStore({}),
			continueOnFail,
		});

	it('links every output item, several per input item included, to its input item', async () => {
		const output = await runForEachItem.call(context(false), async (itemIndex) =>
			itemIndex === 1 ? [{ n: 1 }, { n: 2 }] : { n: itemIndex },
		);
		expect(output).toEqual([
			{ json: { n: 0 }, pairedItem: { item: 0 } },
			{ json: { n: 1 }, pairedItem: { item: 1 } },
			{ json: { n: 2 }, pairedItem: { item: 1 } },
			{ json: { n: 2 }, pairedItem: { item: 2 } },
		]);
	});

	it('stops at the first failure, as a node error carrying the item index', async () => {
		const run = runForEachItem.call(context(false), async (itemIndex) => {
			if (itemIndex === 1) throw new TypeError('unexpected shape');
			return {};
		});
		await expect(run).rejects.toBeInstanceOf(NodeOperationError);
		await expect(run).rejects.toMatchObject({ context: { itemIndex: 1 } });
	});

	it('with Continue On Fail, puts the error on the item and runs the next ones', async () => {
		const output = await runForEachItem.call(context(true), async (itemIndex) => {
			if (itemIndex === 1)
				throw new NodeApiError(
					node,
					{ message: 'Invalid case' },
					{ message: 'Invalid case', description: 'HTTP 404', itemIndex },
				);
			return { ok: itemIndex };
		});
		expect(output).toEqual([
			{ json: { ok: 0 }, pairedItem: { item: 0 } },
			{ json: { error: 'Invalid case', errorDescription: 'HTTP 404' }, pairedItem: { item: 1 } },
			{ json: { ok: 2 }, pairedItem: { item: 2 } },
		]);
	});
});

describe('asRecord', () => {
	it('keeps a record the API answered, and says what was done when it answered nothing', () => {
		expect(asRecord({ id: 'c1' }, { success: true })).toEqual({ id: 'c1' });
		expect(asRecord('', { caseDataId: 'd1', success: true })).toEqual({
			caseDataId: 'd1',
			success: true,
		});
		expect(asRecord(undefined, { success: true })).toEqual({ success: true });
		expect(asRecord('Canceled', { success: true })).toEqual({
			success: true,
			response: 'Canceled',
		});
	});
});
