/** The node's pure helpers: input checks, body building, status names, list handling, per-item running. */
import type { INode } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { mergeBody, withoutEmptyValues } from '../../../../nodes/BackgroundCheck/helpers/body';
import { describeStatuses } from '../../../../nodes/BackgroundCheck/helpers/statusNames';
import { asRecord, runForEachItem } from '../../../../nodes/BackgroundCheck/helpers/execute';
import {
	applyLimit,
	collectPages,
	recordsOf,
} from '../../../../nodes/shared/transport/listResponses';
import { SERVICE_OPTIONS } from '../../../../nodes/BackgroundCheck/helpers/services';
import {
	checkBody,
	parseJsonObject,
	requireId,
	requireIdList,
} from '../../../../nodes/BackgroundCheck/helpers/inputChecks';
import { CASE_DATA_STATUSES, PENDING_STATUSES } from '../../../../nodes/shared/catalog';
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
	it('accepts JSON text, an object from an expression, and empty input', () => {
		expect(parseJsonObject(node, '{ "a": { "b": 1 } }', 'Additional Fields (JSON)', 0)).toEqual({
			a: { b: 1 },
		});
		expect(parseJsonObject(node, { a: 1 }, 'Additional Fields (JSON)', 0)).toEqual({ a: 1 });
		expect(parseJsonObject(node, '', 'Additional Fields (JSON)', 0)).toEqual({});
		expect(parseJsonObject(node, undefined, 'Additional Fields (JSON)', 0)).toEqual({});
	});

	it('refuses text that does not parse, naming the field and the item', () => {
		const error = errorOf(() => parseJsonObject(node, '{ "a": ', 'Additional Fields (JSON)', 4));
		expect(error.message).toBe('Additional Fields (JSON) is not valid JSON [item 4]');
		expect(error.description).toMatch(/JSON/);
	});

	it.each([['[1]'], ['"text"'], ['3'], ['null'], [[1, 2]]])(
		'refuses %p as not an object',
		(value) => {
			expect(
				errorOf(() => parseJsonObject(node, value, 'Additional Fields (JSON)', 0)).message,
			).toBe('Additional Fields (JSON) must be a JSON object [item 0]');
		},
	);
});

describe('checkBody', () => {
	it('applies the name rule only when asked (case creation), the staffingAgency length always', () => {
		const body = {
			candidate: { firstName: 'Ann Marie' },
			orderData: [{ staffingAgency: 'A'.repeat(101) }],
		};
		expect(errorOf(() => checkBody(node, body, 0, { names: true })).message).toMatch(
			/^candidate\.firstName/,
		);
		expect(errorOf(() => checkBody(node, body, 0)).message).toMatch(
			/^orderData\[0\]\.staffingAgency/,
		);
		expect(() => checkBody(node, { candidate: { firstName: 'Ann Marie' } }, 0)).not.toThrow();
	});

	it('passes names with the allowed characters and short staffing agencies', () => {
		expect(() =>
			checkBody(
				node,
				{
					candidate: { firstName: "D'Arcy-Lee", lastName: 'Ñúñez,Jr.' },
					staffingAgency: 'A'.repeat(100),
				},
				0,
			),
		).not.toThrow();
	});

	it('names the first violation and lists the others', () => {
		const error = errorOf(() =>
			checkBody(
				node,
				{ candidate: { firstName: 'Ann Marie' }, orderData: [{ staffingAgency: 'A'.repeat(101) }] },
				2,
				{ names: true },
			),
		);
		expect(error.message).toMatch(
			/^candidate\.firstName contains characters the API does not accept \(space\).*\[item 2\]$/,
		);
		expect(error.description).toMatch(/orderData\[0\]\.staffingAgency is 101 characters long/);
	});
});

describe('body building', () => {
	it('drops values left empty', () => {
		expect(
			withoutEmptyValues({
				a: '',
				b: [],
				c: {},
				d: { e: '' },
				f: 0,
				g: false,
				h: 'x',
				i: undefined,
			}),
		).toEqual({
			f: 0,
			g: false,
			h: 'x',
		});
	});

	it('merges the JSON field last: objects key by key, other values replace', () => {
		expect(
			mergeBody(
				{ candidate: { firstName: 'Ann', email: 'a@x' }, services: [{ id: 'a' }], packageId: 'p' },
				{ candidate: { phone: '1', email: 'b@x' }, services: [{ id: 'b' }] },
			),
		).toEqual({
			candidate: { firstName: 'Ann', email: 'b@x', phone: '1' },
			services: [{ id: 'b' }],
			packageId: 'p',
		});
	});
});

describe('describeStatuses', () => {
	it('adds status and pending-status names next to their IDs, at any depth, keeping the API fields', () => {
		const clear = CASE_DATA_STATUSES.find((status) => status.status === 'clear')!;
		const pending = CASE_DATA_STATUSES.find((status) => status.status === 'pending')!;
		const scheduled = PENDING_STATUSES.find(
			(status) => status.pendingStatusId === 'pending-status-scheduled',
		)!;
		const described = describeStatuses({
			status: 'pending',
			statusId: pending.statusId,
			pendingStatus: 'Appointment Scheduled',
			pendingStatusId: scheduled.pendingStatusId,
			details: { records: [{ searchId: 's1', statusId: clear.statusId }] },
			caseStatusId: 'case-status-pending',
		});
		expect(described).toEqual({
			status: 'pending',
			statusId: pending.statusId,
			statusName: 'pending',
			statusMeaning: 'In progress',
			pendingStatus: 'Appointment Scheduled',
			pendingStatusId: scheduled.pendingStatusId,
			pendingStatusName: 'Appointment Scheduled',
			pendingStatusAppliesTo: 'OHS',
			details: {
				records: [
					{
						searchId: 's1',
						statusId: clear.statusId,
						statusName: 'clear',
						statusMeaning: 'Done and good',
					},
				],
			},
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
		expect(recordsOf({ packageId: 'p', servicesList: [{ id: 2 }] })).toEqual([{ id: 2 }]);
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

	it('walks the pages until the last one with Return All', async () => {
		const asked: number[] = [];
		const records = await collectPages(
			async (page) => (asked.push(page), pages[page]),
			'items',
			undefined,
		);
		expect(records.map((record) => record.id)).toEqual([1, 2, 3, 4, 5]);
		expect(asked).toEqual([0, 1, 2]);
	});

	it('stops as soon as the limit is reached', async () => {
		const asked: number[] = [];
		const records = await collectPages(async (page) => (asked.push(page), pages[page]), 'items', 3);
		expect(records.map((record) => record.id)).toEqual([1, 2, 3]);
		expect(asked).toEqual([0, 1]);
	});

	it('reads one page from an endpoint that reports no pages', async () => {
		const asked: number[] = [];
		const records = await collectPages(
			async (page) => (asked.push(page), { items: [{ id: 1 }] }),
			'items',
			undefined,
		);
		expect(records).toEqual([{ id: 1 }]);
		expect(asked).toEqual([0]);
	});
});

describe('service options', () => {
	it('are sorted by name and show group and ID', () => {
		const names = SERVICE_OPTIONS.map((option) => option.name);
		expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)));
		expect(
			SERVICE_OPTIONS.find((option) => option.value === 'fa226cb7-1214-4cdf-9296-6120a7376926'),
		).toEqual({
			name: 'County Criminal Search',
			value: 'fa226cb7-1214-4cdf-9296-6120a7376926',
			description: 'Criminal Check · ID: fa226cb7-1214-4cdf-9296-6120a7376926',
		});
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
