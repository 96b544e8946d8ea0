/**
 * Simplify (n8n's UX guidelines: reads whose records have more than 10 fields offer it, at most 10 fields
 * kept): on by default from node version 1.1, off and absent in version 1 (saved workflows keep their output).
 * Each simplified operation runs through the recording fake with the contract's answers: on, only the fields
 * of SIMPLIFIED_FIELDS in their order; off, and in version 1, the whole record as before.
 */
import type { IDataObject } from 'n8n-workflow';

import { BackgroundCheck } from '../../../nodes/BackgroundCheck/BackgroundCheck.node';
import {
	SIMPLIFIED_FIELDS,
	type SimplifiedRecord,
} from '../../../nodes/BackgroundCheck/helpers/simplify';
import { contract } from '../../../api/contract';
import { byId, runRecorded } from '../../helpers/executeContext';
import { CASE_ID, contractAnswer, PACKAGE_ID, SCREENING_TYPE } from './contractAnswers';

const { description } = new BackgroundCheck();

interface Case {
	label: string;
	parameters: IDataObject;
	kind: SimplifiedRecord;
	/** Fields of the simplified output that must be there with the contract's answer (the node's additions). */
	expected: IDataObject;
}

const CASES: Case[] = [
	{
		label: 'Case > Get',
		parameters: { resource: 'case', operation: 'get', caseId: byId(CASE_ID) },
		kind: 'case',
		expected: { id: CASE_ID, caseStatusName: expect.any(String), packageName: 'Basic Check' },
	},
	{
		label: 'Case > Get Many',
		parameters: { resource: 'case', operation: 'getMany', returnAll: true },
		kind: 'case',
		expected: { id: CASE_ID, candidateEmail: 'matt.williams@example.com' },
	},
	{
		label: 'Case > Get Data',
		parameters: {
			resource: 'case',
			operation: 'getData',
			caseId: byId(CASE_ID),
			serviceTypeId: byId(SCREENING_TYPE),
		},
		kind: 'caseData',
		expected: {
			caseId: CASE_ID,
			statusName: expect.any(String),
			statusMeaning: expect.any(String),
		},
	},
	{
		label: 'Case > Get Services',
		parameters: { resource: 'case', operation: 'getServices', caseId: byId(CASE_ID) },
		kind: 'caseService',
		expected: { caseId: CASE_ID, serviceName: 'Employment Verification' },
	},
	{
		label: 'Case > Get Candidate Info',
		parameters: { resource: 'case', operation: 'getCandidateInfo', caseId: byId(CASE_ID) },
		kind: 'candidate',
		expected: { email: 'dani@example.com', govtId: 'XXX-XX-3333', piiLocked: 1 },
	},
	{
		label: 'Invitation > Get',
		parameters: { resource: 'invitation', operation: 'get', caseId: byId(CASE_ID) },
		kind: 'invitation',
		expected: { caseId: CASE_ID, email: 'jackwilliams@example.com' },
	},
	{
		label: 'Package > Get Services',
		parameters: {
			resource: 'package',
			operation: 'getServices',
			packageId: byId(PACKAGE_ID),
			returnAll: true,
		},
		kind: 'packageService',
		expected: { serviceName: 'Employment Verification', serviceTypeName: 'Screening' },
	},
];

async function outputOf(parameters: IDataObject, typeVersion?: number): Promise<IDataObject[]> {
	const { output } = await runRecorded({ parameters, typeVersion, answer: contractAnswer });
	return output.map((item) => item.json);
}

const pick = (record: IDataObject, fields: readonly string[]) =>
	Object.fromEntries(
		fields.filter((field) => field in record).map((field) => [field, record[field]]),
	);

describe('the node version', () => {
	it('is 1.1 for new nodes, and 1 still runs (saved workflows)', () => {
		expect(description.version).toEqual([1, 1.1]);
		expect(description.defaultVersion).toBe(1.1);
	});
});

describe('the Simplify parameter', () => {
	const simplify = description.properties.filter((property) => property.name === 'simple');

	it('is n8n’s Simplify, on by default, shown from version 1.1 on', () => {
		expect(simplify.length).toBeGreaterThan(0);
		for (const property of simplify)
			expect(property).toMatchObject({
				displayName: 'Simplify',
				type: 'boolean',
				default: true,
				description:
					'Whether to return a simplified version of the response instead of the raw data',
				displayOptions: { show: { '@version': [{ _cnd: { gte: 1.1 } }] } },
			});
	});

	it('is offered by exactly the reads whose records have more than 10 fields', () => {
		const offeredBy = simplify
			.flatMap((property) =>
				(property.displayOptions!.show!.resource as string[]).flatMap((resource) =>
					(property.displayOptions!.show!.operation as string[]).map(
						(operation) => `${resource}:${operation}`,
					),
				),
			)
			.sort();
		expect(offeredBy).toEqual(
			[
				'case:get',
				'case:getMany',
				'case:getData',
				'case:getServices',
				'case:getCandidateInfo',
				'invitation:get',
				'package:getServices',
			].sort(),
		);
	});

	it('keeps at most 10 fields of records that have more than 10 (api/contract.json)', () => {
		const schemas = contract.components.schemas as Record<string, { properties?: object }>;
		const fieldCount = {
			case: Object.keys(schemas.CaseSummary.properties!).length,
			caseData: Object.keys(schemas.CaseData.properties!).length,
		};
		expect(fieldCount.case).toBeGreaterThan(10);
		expect(fieldCount.caseData).toBeGreaterThan(10);
		for (const fields of Object.values(SIMPLIFIED_FIELDS)) {
			expect(fields.length).toBeLessThanOrEqual(10);
			expect(new Set(fields).size).toBe(fields.length);
		}
	});
});

describe.each(CASES)('$label', ({ parameters, kind, expected }) => {
	it('version 1.1, Simplify on by default: only the listed fields, in their order, with the node’s additions', async () => {
		const whole = await outputOf(parameters, 1);
		const simplified = await outputOf(parameters, 1.1);
		expect(whole.length).toBeGreaterThan(0);
		expect(Object.keys(whole[0]).length).toBeGreaterThan(10);
		expect(simplified).toEqual(whole.map((record) => pick(record, SIMPLIFIED_FIELDS[kind])));
		for (const record of simplified) {
			expect(Object.keys(record)).toEqual(
				SIMPLIFIED_FIELDS[kind].filter((field) => field in record),
			);
			expect(record).toMatchObject(expected);
		}
	});

	it('version 1.1, Simplify off: the whole record', async () => {
		expect(await outputOf({ ...parameters, simple: false }, 1.1)).toEqual(
			await outputOf(parameters, 1),
		);
	});

	it('version 1 (saved workflows): the whole record, Simplify not offered', async () => {
		const whole = await outputOf(parameters, 1);
		expect(await outputOf({ ...parameters, simple: true }, 1)).toEqual(whole);
		expect(whole[0]).toMatchObject(
			Object.fromEntries(
				Object.entries(expected).filter(([, value]) => typeof value !== 'object'),
			) as IDataObject,
		);
	});
});
