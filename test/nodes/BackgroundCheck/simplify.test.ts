/**
 * Output (n8n's UX guidelines: reads whose records have more than 10 fields offer Simplified, Raw and Selected
 * Fields, as n8n's own Microsoft Entra ID and Outlook nodes do): Simplified by default from node version 1.1,
 * absent in version 1 (saved workflows keep their output). Each of the seven reads runs through the recording
 * fake with the contract's answers: Simplified, only the fields of SIMPLIFIED_FIELDS in their order; Raw, and
 * version 1, the whole record as before; Selected Fields, the fields picked plus the record's ID, an unknown
 * field refused before any request.
 */
import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { BackgroundCheck } from '../../../nodes/BackgroundCheck/BackgroundCheck.node';
import {
	RECORD_FIELDS,
	RECORD_ID_FIELDS,
	SIMPLIFIED_FIELDS,
	type SimplifiedRecord,
} from '../../../nodes/BackgroundCheck/helpers/simplify';
import contractJson from '../../../api/contract.json';
import { byId, createRecordingContext, runRecorded } from '../../helpers/executeContext';
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

/** The reads, by the `resource:operation` their parameters show, and the record each outputs. */
const KIND_OF: Record<string, SimplifiedRecord> = {
	'case:get': 'case',
	'case:getMany': 'case',
	'case:getData': 'caseData',
	'case:getServices': 'caseService',
	'case:getCandidateInfo': 'candidate',
	'invitation:get': 'invitation',
	'package:getServices': 'packageService',
};

const shownFor = (property: INodeProperties) =>
	(property.displayOptions!.show!.resource as string[]).flatMap((resource) =>
		(property.displayOptions!.show!.operation as string[]).map(
			(operation) => `${resource}:${operation}`,
		),
	);

describe('the Output parameter', () => {
	const outputs = description.properties.filter((property) => property.name === 'output');
	const fieldLists = description.properties.filter((property) => property.name === 'fields');

	it('is n8n’s Output (Simplified, Raw, Selected Fields), Simplified by default, from version 1.1 on', () => {
		expect(outputs.length).toBe(7);
		for (const property of outputs) {
			expect(property).toMatchObject({
				displayName: 'Output',
				type: 'options',
				default: 'simple',
				displayOptions: { show: { '@version': [{ _cnd: { gte: 1.1 } }] } },
			});
			expect(
				property.options!.map((option) => [option.name, (option as { value: string }).value]),
			).toEqual([
				['Simplified', 'simple'],
				['Raw', 'raw'],
				['Selected Fields', 'fields'],
			]);
		}
		expect(description.properties.some((property) => property.name === 'simple')).toBe(false);
	});

	it('is offered by exactly the reads whose records have more than 10 fields', () => {
		expect(outputs.flatMap(shownFor).sort()).toEqual(Object.keys(KIND_OF).sort());
		expect(fieldLists.flatMap(shownFor).sort()).toEqual(Object.keys(KIND_OF).sort());
	});

	it('lists the fields of the read’s records under Selected Fields, from version 1.1 on', () => {
		for (const property of fieldLists) {
			const kind = KIND_OF[shownFor(property)[0]];
			expect(property).toMatchObject({
				displayName: 'Fields',
				type: 'multiOptions',
				default: [],
				description: 'The fields to add to the output',
				displayOptions: {
					show: { '@version': [{ _cnd: { gte: 1.1 } }], output: ['fields'] },
				},
			});
			const values = property.options!.map((option) => (option as { value: string }).value);
			expect([...values].sort()).toEqual([...RECORD_FIELDS[kind]].sort());
			expect(values).toEqual([...values].sort((a, b) => a.localeCompare(b)));
		}
	});
});

/** The properties of a schema of api/contract.json, through `$ref` and `allOf`. */
const schemas = contractJson.components.schemas as Record<string, unknown>;
function propertiesOf(schema: unknown): Record<string, unknown> {
	const resolved = (
		(schema as { $ref?: string }).$ref
			? schemas[(schema as { $ref: string }).$ref.split('/').pop()!]
			: schema
	) as { properties?: Record<string, unknown>; allOf?: unknown[]; items?: unknown };
	const merged: Record<string, unknown> = {};
	for (const part of resolved.allOf ?? []) Object.assign(merged, propertiesOf(part));
	return { ...merged, ...(resolved.properties ?? {}) };
}
const itemsOf = (schema: unknown) =>
	((schema as { items?: unknown }).items ?? schema) as Record<string, unknown>;
const answerOf = (path: string) =>
	(
		contractJson.paths as unknown as Record<
			string,
			{ get: { responses: { 200: { content: { 'application/json': { schema: unknown } } } } } }
		>
	)[path].get.responses[200].content['application/json'].schema;
const fieldsOf = (schema: unknown) => Object.keys(propertiesOf(schema));

/** Each kind's record in the contract, with what the node adds and leaves out. */
const CONTRACT_RECORDS: Record<
	SimplifiedRecord,
	{ fields: string[]; added: string[]; left: string[] }
> = {
	case: {
		fields: fieldsOf(schemas.CaseSummary),
		added: ['caseStatusName', 'secondaryStatusName', 'resultName'],
		left: [],
	},
	caseData: {
		fields: fieldsOf(schemas.CaseData),
		added: ['statusName', 'statusMeaning', 'pendingStatusName', 'pendingStatusAppliesTo'],
		left: [],
	},
	caseService: {
		fields: [
			...fieldsOf(itemsOf(propertiesOf(schemas.ServiceGroupServicesAll).serviceGroupServices)),
			...fieldsOf(
				itemsOf(
					(
						(
							schemas.ServiceGroupServicesCase as { allOf: Array<{ properties?: object }> }
						).allOf.find((part) => part.properties)!.properties as Record<string, unknown>
					).serviceGroupServices,
				),
			),
		],
		added: [],
		left: [],
	},
	packageService: {
		fields: fieldsOf(itemsOf(propertiesOf(schemas.ServiceGroupServices).serviceGroupServices)),
		added: [],
		left: [],
	},
	candidate: {
		fields: fieldsOf(propertiesOf(answerOf('/candidate/info/case/id/{caseId}')).candidate),
		added: [],
		left: ['password'],
	},
	invitation: {
		fields: fieldsOf(propertiesOf(answerOf('/invitation/case/{caseId}')).invitation),
		added: ['caseId'],
		left: ['invitationToken'],
	},
};

describe('the field lists (helpers/simplify.ts)', () => {
	it.each(Object.keys(CONTRACT_RECORDS) as SimplifiedRecord[])(
		'%s: every field the record has in api/contract.json, with the node’s additions, more than 10',
		(kind) => {
			const { fields, added, left } = CONTRACT_RECORDS[kind];
			const expected = new Set([...fields, ...added].filter((field) => !left.includes(field)));
			expect(new Set(RECORD_FIELDS[kind])).toEqual(expected);
			expect(RECORD_FIELDS[kind].length).toBe(expected.size);
			expect(expected.size).toBeGreaterThan(10);
		},
	);

	it('Simplified keeps at most 10 of them; the ID fields are among them', () => {
		for (const kind of Object.keys(RECORD_FIELDS) as SimplifiedRecord[]) {
			const all: readonly string[] = RECORD_FIELDS[kind];
			const simplified: readonly string[] = SIMPLIFIED_FIELDS[kind];
			expect(simplified.length).toBeLessThanOrEqual(10);
			expect(new Set(simplified).size).toBe(simplified.length);
			expect(simplified.filter((field) => !all.includes(field))).toEqual([]);
			expect(RECORD_ID_FIELDS[kind].filter((field) => !simplified.includes(field))).toEqual([]);
		}
	});
});

describe.each(CASES)('$label', ({ parameters, kind, expected }) => {
	it('version 1.1, Output Simplified by default: only the listed fields, in their order, with the node’s additions', async () => {
		const whole = await outputOf(parameters, 1);
		const simplified = await outputOf(parameters, 1.1);
		expect(whole.length).toBeGreaterThan(0);
		expect(Object.keys(whole[0]).length).toBeGreaterThan(10);
		expect(simplified).toEqual(whole.map((record) => pick(record, SIMPLIFIED_FIELDS[kind])));
		expect(await outputOf({ ...parameters, output: 'simple' }, 1.1)).toEqual(simplified);
		for (const record of simplified) {
			expect(Object.keys(record)).toEqual(
				SIMPLIFIED_FIELDS[kind].filter((field) => field in record),
			);
			expect(record).toMatchObject(expected);
		}
	});

	it('version 1.1, Output Raw: the whole record', async () => {
		expect(await outputOf({ ...parameters, output: 'raw' }, 1.1)).toEqual(
			await outputOf(parameters, 1),
		);
	});

	it('version 1.1, Output Selected Fields: the fields picked and the record’s ID, in the record’s order', async () => {
		const whole = await outputOf(parameters, 1);
		const notSimplified = RECORD_FIELDS[kind].filter(
			(field) =>
				!(SIMPLIFIED_FIELDS[kind] as readonly string[]).includes(field) && field in whole[0],
		);
		const picked = notSimplified.slice(0, 2).reverse();
		expect(picked.length).toBeGreaterThan(0);
		const kept = [...RECORD_ID_FIELDS[kind], ...picked];
		const byOrder = (record: IDataObject) =>
			Object.fromEntries(Object.entries(record).filter(([field]) => kept.includes(field)));
		expect(await outputOf({ ...parameters, output: 'fields', fields: picked }, 1.1)).toEqual(
			whole.map(byOrder),
		);
		expect(
			await outputOf({ ...parameters, output: 'fields', fields: ` ${picked.join(' , ')} ` }, 1.1),
		).toEqual(whole.map(byOrder));
		expect(await outputOf({ ...parameters, output: 'fields', fields: [] }, 1.1)).toEqual(
			whole.map((record) => pick(record, RECORD_ID_FIELDS[kind])),
		);
		for (const field of RECORD_ID_FIELDS[kind]) expect(whole[0]).toHaveProperty(field);
	});

	it('version 1.1, Output Selected Fields: an unknown field is refused, named, before any request', async () => {
		const { context, requests } = createRecordingContext({
			parameters: {
				...parameters,
				output: 'fields',
				fields: [RECORD_ID_FIELDS[kind][0], 'notAField'],
			},
			typeVersion: 1.1,
			answer: contractAnswer,
		});
		await expect(new BackgroundCheck().execute!.call(context)).rejects.toThrow(
			'The field "notAField" in \'Fields\' is not one this operation outputs [item 0]',
		);
		expect(requests).toEqual([]);
	});

	it('version 1 (saved workflows): the whole record, Output not offered', async () => {
		const whole = await outputOf(parameters, 1);
		expect(await outputOf({ ...parameters, output: 'simple' }, 1)).toEqual(whole);
		expect(await outputOf({ ...parameters, output: 'fields', fields: ['nope'] }, 1)).toEqual(whole);
		expect(whole[0]).toMatchObject(
			Object.fromEntries(
				Object.entries(expected).filter(([, value]) => typeof value !== 'object'),
			) as IDataObject,
		);
	});
});
