/**
 * Bad input for every operation of the Background Check node, in breadth (the node's execute against the
 * sandbox over real HTTP, test/helpers/nodeSandbox.ts; no n8n, so it runs once, with the unit and
 * integration tests; a sample runs through real n8n in test/reliability/apiFaults.reliability.ts):
 * - names with characters the API refuses, over-long staffingAgency, IDs that are empty, blank, dot
 *   segments, slashes, encoded dots and slashes, `%`, `?`, `#`, control characters, and malformed, non-object,
 *   deeply nested and huge JSON: each is refused before any request (not even the token exchange) with an
 *   error that names the field and the item;
 * - IDs that are odd but allowed (unicode look-alikes of `/`, `;`, `...`, 5,000 characters, ...) go out as
 *   exactly one path segment of the operation's endpoint: the sandbox's request log holds only paths of the
 *   spec's endpoints, with the template's segment count, and the ID arrives as it was entered.
 */

import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { RequestLogEntry } from '../../../sandbox';
import { byId, itemWithFile } from '../../helpers/executeContext';
import { startNodeSandbox, type NodeSandbox } from '../../helpers/nodeSandbox';
import { seededRandom } from '../../helpers/seededRandom';
import { escapedRequests, matchEndpoint } from '../../helpers/specEndpoints';

const SSN_TRACE = '29cd44ab-a8f0-4b27-868e-dc4be88ff541';
const EMPLOYMENT_VERIFICATION = '9ac65633-b4c4-4062-875c-3556db9d2a08';

// Hundreds of node runs per test, several of them with megabytes of JSON.
jest.setTimeout(60_000);

let context: NodeSandbox;
/** Every request the sandbox received in this file (its own log is reset per run and bounded). */
const received: RequestLogEntry[] = [];

beforeAll(async () => {
	context = await startNodeSandbox();
});

afterAll(async () => {
	await context.sandbox.stop();
});

type Parameters = IDataObject;

interface Operation {
	name: string;
	parameters: Parameters;
	/** Input items (a file for Secure Document > Create). */
	items?: INodeExecutionData[];
	/** The endpoint its request goes to, as in SPEC_ENDPOINTS. */
	endpoint: string;
}

const file = () => [
	itemWithFile('license.pdf', Buffer.from('%PDF-1.4 license'), 'application/pdf'),
];

const OPERATIONS: Record<string, Operation> = {
	caseCreate: {
		name: 'Case > Create',
		endpoint: 'POST /case/create',
		parameters: {
			resource: 'case',
			operation: 'create',
			candidateFirstName: 'Ann',
			candidateLastName: "O'Neil",
			candidateEmail: 'fuzz@example.com',
			services: [SSN_TRACE],
		},
	},
	caseGet: {
		name: 'Case > Get',
		endpoint: 'GET /case/id/{caseId}',
		parameters: { resource: 'case', operation: 'get', caseId: byId('case-1') },
	},
	caseGetMany: {
		name: 'Case > Get Many',
		endpoint: 'GET /case/list',
		parameters: { resource: 'case', operation: 'getMany', limit: 5 },
	},
	caseAddServices: {
		name: 'Case > Add Services',
		endpoint: 'POST /case/id/{caseId}/add/services',
		parameters: {
			resource: 'case',
			operation: 'addServices',
			caseId: byId('case-1'),
			services: [SSN_TRACE],
		},
	},
	caseGetData: {
		name: 'Case > Get Data',
		endpoint: 'GET /case/id/{caseId}/data/{serviceTypeId}',
		parameters: {
			resource: 'case',
			operation: 'getData',
			caseId: byId('case-1'),
			serviceTypeId: byId('service-type-idv'),
		},
	},
	caseDataCancelSearch: {
		name: 'Case Data > Cancel Search',
		endpoint: 'POST /case/data/id/{caseDataId}/search/id/{searchId}/cancel',
		parameters: {
			resource: 'caseData',
			operation: 'cancelSearch',
			caseDataId: 'case-data-1',
			searchId: 'search-1',
		},
	},
	packageGetServices: {
		name: 'Package > Get Services',
		endpoint: 'GET /package/id/{packageId}/services',
		parameters: { resource: 'package', operation: 'getServices', packageId: 'pkg-driver' },
	},
	secureDocumentCreate: {
		name: 'Secure Document > Create',
		endpoint: 'POST /document/secure/create',
		parameters: { resource: 'secureDocument', operation: 'create' },
		items: file(),
	},
	verificationBookSearch: {
		name: 'Verification Book > Search',
		endpoint: 'POST /vbook/search',
		parameters: { resource: 'verificationBook', operation: 'search', query: 'Valley', limit: 2 },
	},
	testimonyCreate: {
		name: 'Testimony > Create',
		endpoint: 'POST /testimony/create/case/id/{caseId}',
		parameters: {
			resource: 'testimony',
			operation: 'create',
			caseId: byId('case-1'),
			cplcId: 'cplc-registered-nurse',
			firstName: 'Ann',
			lastName: 'Lee',
			licenseNumber: 'RN1',
			certifyingBody: 'Board',
		},
	},
	testimonyUpdate: {
		name: 'Testimony > Update',
		endpoint: 'PUT /testimony/id/{testimonyId}/update/case/id/{caseId}',
		parameters: {
			resource: 'testimony',
			operation: 'update',
			testimonyId: 'testimony-1',
			caseId: byId('case-1'),
			licenseFields: { state: 'TX' },
		},
	},
	cplcGetDefinitions: {
		name: 'Professional License (CPLC) > Get Definitions',
		endpoint: 'GET /service/cplc/case/id/{caseId}',
		parameters: { resource: 'cplc', operation: 'getDefinitions', caseId: byId('case-1') },
	},
	shipmentMaskGetMany: {
		name: 'Shipment Mask > Get Many',
		endpoint: 'GET /shipment/mask/list',
		parameters: { resource: 'shipmentMask', operation: 'getMany' },
	},
	companyUserGetMany: {
		name: 'Company User > Get Many',
		endpoint: 'GET /company/user/list',
		parameters: { resource: 'companyUser', operation: 'getMany' },
	},
};

/** A place where a user's value goes, and the field name the error must start with. */
interface Slot {
	operation: keyof typeof OPERATIONS;
	/** The field as the error names it (for name and staffingAgency checks: the body path). */
	field: string;
	set(parameters: Parameters, value: string): Parameters;
	/** A comma- or newline-separated list: blank entries are skipped, separators split. */
	list?: boolean;
	/** An optional field: left blank, it is not sent (so blank values are not bad here). */
	optional?: boolean;
	/** The endpoint placeholder the value fills, for the path checks. */
	pathParam?: string;
}

const with_ =
	(patch: (value: string) => Parameters) => (parameters: Parameters, value: string) => ({
		...parameters,
		...patch(value),
	});

const CASE_ID_OPERATIONS = [
	'caseGet',
	'caseAddServices',
	'caseGetData',
	'testimonyCreate',
	'testimonyUpdate',
	'cplcGetDefinitions',
] as const;

const ID_SLOTS: Slot[] = [
	...CASE_ID_OPERATIONS.map(
		(operation): Slot => ({
			operation,
			field: 'Case ID',
			set: with_((value) => ({ caseId: byId(value) })),
			pathParam: 'caseId',
		}),
	),
	{
		operation: 'caseGetData',
		field: 'Service Type ID',
		set: with_((value) => ({ serviceTypeId: byId(value) })),
		pathParam: 'serviceTypeId',
	},
	{
		operation: 'caseDataCancelSearch',
		field: 'Case Data ID',
		set: with_((caseDataId) => ({ caseDataId })),
		pathParam: 'caseDataId',
	},
	{
		operation: 'caseDataCancelSearch',
		field: 'Search ID',
		set: with_((searchId) => ({ searchId })),
		pathParam: 'searchId',
	},
	{
		operation: 'packageGetServices',
		field: 'Package ID',
		set: with_((packageId) => ({ packageId })),
		pathParam: 'packageId',
	},
	{
		operation: 'testimonyCreate',
		field: 'CPLC Definition ID',
		set: with_((cplcId) => ({ cplcId })),
	},
	{
		operation: 'testimonyUpdate',
		field: 'Testimony ID',
		set: with_((testimonyId) => ({ testimonyId })),
		pathParam: 'testimonyId',
	},
	{
		operation: 'caseCreate',
		field: 'Package ID',
		set: with_((packageId) => ({ packageId })),
		optional: true,
	},
	{
		operation: 'caseCreate',
		field: 'Services',
		set: with_((value) => ({ services: [SSN_TRACE, value] })),
		list: true,
	},
	{
		operation: 'caseCreate',
		field: 'Custom Service IDs',
		set: with_((value) => ({ customServiceIds: `service-bankruptcy, ${value}` })),
		list: true,
	},
	{
		operation: 'caseCreate',
		field: 'Custom Excluded Service IDs',
		set: with_((value) => ({ customExcludeServiceIds: value })),
		list: true,
	},
	{
		operation: 'caseCreate',
		field: 'Order Contacts 1: Custom Contact Type',
		set: with_((customType) => ({
			contacts: { contact: [{ type: '__other', customType, email: 'hr@example.com' }] },
		})),
	},
	{
		operation: 'caseCreate',
		field: 'Order Data > Employment 1: Secure Document IDs',
		set: with_((secureDocumentIds) => ({
			orderData: { employment: [{ serviceId: EMPLOYMENT_VERIFICATION, secureDocumentIds }] },
		})),
		list: true,
	},
	{
		operation: 'caseCreate',
		field: 'Order Data > Shipment 1: Shipment Mask ID',
		set: with_((shipmentMaskId) => ({
			orderData: { shipment: [{ serviceId: '', shipmentMaskId }] },
		})),
		optional: true,
	},
	{
		operation: 'caseCreate',
		field: 'Order Data > Other Order Data 1: Service (custom ID)',
		set: with_((customServiceId) => ({
			orderData: { other: [{ serviceId: '__custom', customServiceId, type: 't' }] },
		})),
	},
	{
		operation: 'caseCreate',
		field: 'Order Data > DOT Drug Order Data 1: Service (custom ID)',
		set: with_((customServiceId) => ({
			orderData: {
				dotDrug: [
					{ serviceId: '__custom', customServiceId, type: 'codt-drug-reason-for-test', value: 'x' },
				],
			},
		})),
	},
	{
		operation: 'caseAddServices',
		field: 'Custom Service IDs',
		set: with_((customServiceIds) => ({ customServiceIds })),
		list: true,
	},
	{
		operation: 'testimonyCreate',
		field: 'Secure Document IDs',
		set: with_((secureDocumentIds) => ({ testimonyOptions: { secureDocumentIds } })),
		list: true,
	},
	{
		operation: 'testimonyUpdate',
		field: 'Other Definition Fields: Field ID',
		set: with_((fieldId) => ({ customFields: { field: [{ fieldId, value: 'x' }] } })),
	},
];

/** IDs the node must refuse; a blank one is "empty", the others "not a valid ID". */
const BAD_IDS = [
	'',
	' ',
	'\t',
	'/',
	'a/b',
	'/case/list',
	'..',
	'.',
	' .. ',
	'../x',
	'x/..',
	'..\\x',
	'\\',
	'%2e%2e',
	'%2E%2e',
	'.%2e',
	'%2f',
	'..%2F..%2Fauth%2Fapi',
	'%',
	'100%',
	'%00',
	'?',
	'a?b=1',
	'#',
	'a#b',
	'a b',
	'a\nb',
	'a\rb',
	'a\u0000b',
	'a\u001bb',
	'a\u00a0b',
	'a\u2028b',
];

const NAME_SLOTS: Slot[] = [
	{
		operation: 'caseCreate',
		field: 'candidate.firstName',
		set: with_((candidateFirstName) => ({ candidateFirstName })),
	},
	{
		operation: 'caseCreate',
		field: 'candidate.lastName',
		set: with_((candidateLastName) => ({ candidateLastName })),
	},
	{
		operation: 'caseCreate',
		field: 'candidate.middleName',
		set: with_((middleName) => ({ candidateFields: { middleName } })),
	},
	{
		operation: 'caseCreate',
		field: 'aliases[0].firstName',
		set: with_((firstName) => ({ aliases: { alias: [{ firstName, lastName: 'Lee' }] } })),
	},
	{
		operation: 'caseCreate',
		field: 'aliases[1].lastName',
		set: with_((lastName) => ({
			aliases: { alias: [{ firstName: 'Annie', lastName: 'Lee' }, { lastName }] },
		})),
	},
	{
		operation: 'caseCreate',
		field: 'candidate.middleName',
		set: with_((middleName) => ({ additionalBody: JSON.stringify({ candidate: { middleName } }) })),
	},
	{
		operation: 'caseCreate',
		field: 'aliases[0].middleInitial',
		set: with_((middleInitial) => ({
			additionalBody: JSON.stringify({ aliases: [{ firstName: 'A', middleInitial }] }),
		})),
	},
	// Spec 7 names case creation, aliases and the candidate-info update only: the bodies of Add Services and
	// the verification-book search are not held to the name rule (helpers/helpers.test.ts, checkBody).
];

/** Inside the value (leading and trailing blanks are trimmed from the typed name fields). */
const BAD_NAMES = [
	'Ann!',
	'Van Dyke',
	'Ann\tLee',
	'O"Neil',
	'<script>',
	'Ann;Lee',
	'Ann@Lee',
	'Ann/Lee',
	'Ann%20Lee',
	'Ann#1',
	'Ann?',
	'Ann(Lee)',
	'Ann\u0000',
	'A\u00a0B',
	'Ann😀',
	'Ann+Lee',
	'${{1}}',
	'Ann\nLee',
];

const STAFFING_SLOTS: Slot[] = [
	{
		operation: 'caseCreate',
		field: 'orderData[0].staffingAgency',
		set: with_((staffingAgency) => ({
			orderData: { employment: [{ serviceId: EMPLOYMENT_VERIFICATION, staffingAgency }] },
		})),
	},
	{
		operation: 'caseCreate',
		field: 'orderData[0].staffingAgency',
		set: with_((staffingAgency) => ({
			additionalBody: JSON.stringify({
				orderData: [{ serviceId: EMPLOYMENT_VERIFICATION, staffingAgency }],
			}),
		})),
	},
	{
		operation: 'testimonyCreate',
		field: 'staffingAgency',
		set: with_((staffingAgency) => ({ testimonyOptions: { staffingAgency } })),
	},
	{
		operation: 'testimonyUpdate',
		field: 'staffingAgency',
		set: with_((staffingAgency) => ({ testimonyOptions: { staffingAgency } })),
	},
	{
		operation: 'caseDataCancelSearch',
		field: 'staffingAgency',
		set: with_((staffingAgency) => ({ additionalBody: JSON.stringify({ staffingAgency }) })),
	},
];

const LONG_STAFFING_AGENCIES = [101, 102, 1_000, 100_000].map((length) =>
	'Staffing Co '.repeat(length).slice(0, length),
);

const JSON_SLOTS: Slot[] = [
	{
		operation: 'caseCreate',
		field: 'Additional Fields (JSON)',
		set: with_((additionalBody) => ({ additionalBody })),
	},
	{
		operation: 'caseCreate',
		field: 'Order Data > Other Order Data 1: Additional Fields (JSON)',
		set: with_((additionalFields) => ({
			orderData: { other: [{ serviceId: '', type: 't', additionalFields }] },
		})),
	},
	{
		operation: 'caseGetMany',
		field: 'Additional Query Parameters (JSON)',
		set: with_((additionalQuery) => ({ additionalQuery })),
	},
	{
		operation: 'caseAddServices',
		field: 'Additional Fields (JSON)',
		set: with_((additionalBody) => ({ additionalBody })),
	},
	{
		operation: 'caseDataCancelSearch',
		field: 'Additional Fields (JSON)',
		set: with_((additionalBody) => ({ additionalBody })),
	},
	{
		operation: 'verificationBookSearch',
		field: 'Additional Fields (JSON)',
		set: with_((additionalBody) => ({ additionalBody })),
	},
	{
		operation: 'testimonyCreate',
		field: 'Additional Fields (JSON)',
		set: with_((additionalBody) => ({ additionalBody })),
	},
	{
		operation: 'testimonyUpdate',
		field: 'Additional Fields (JSON)',
		set: with_((additionalBody) => ({ additionalBody })),
	},
	{
		operation: 'secureDocumentCreate',
		field: 'Additional Document Fields (JSON)',
		set: with_((additionalDocumentFields) => ({ additionalDocumentFields })),
	},
];

/** A seeded mix of JSON that does not parse, JSON that is not an object, and JSON nested too deeply. */
function badJsonTexts(): Array<{ text: string; problem: RegExp }> {
	const random = seededRandom(7);
	const notJson = /is not valid JSON/;
	const notObject = /must be a JSON object/;
	const tooDeep = /is nested more than 100 levels deep/;
	const fixed = [
		{ text: '{', problem: notJson },
		{ text: '{"a":}', problem: notJson },
		{ text: "{'a': 1}", problem: notJson },
		{ text: '{"a": 1}}', problem: notJson },
		{ text: '{"a": 1,}', problem: notJson },
		{ text: '{a: 1}', problem: notJson },
		{ text: 'undefined', problem: notJson },
		{ text: '{"a": NaN}', problem: notJson },
		{ text: '\u0000', problem: notJson },
		{ text: '[1, 2]', problem: notObject },
		{ text: '"text"', problem: notObject },
		{ text: '42', problem: notObject },
		{ text: 'true', problem: notObject },
		{ text: 'null', problem: notObject },
		// Huge: 4 MB that never closes, and 2 MB of valid JSON after which comes garbage.
		{ text: `{"a":"${'x'.repeat(4 * 1024 * 1024)}`, problem: notJson },
		{ text: `{"a":[${'1,'.repeat(1024 * 1024)}1]} trailing`, problem: notJson },
		{ text: `${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`, problem: tooDeep },
		{ text: `{"a":${'['.repeat(101)}${']'.repeat(101)}}`, problem: tooDeep },
	];
	// Valid objects cut at a random point, and single characters flipped into garbage.
	const source = JSON.stringify({
		candidate: { phone: '555-0100', tags: ['a', 'b'] },
		note: 'x',
		n: 1.5,
		ok: true,
	});
	const truncated = Array.from({ length: 12 }, () => {
		const cut = 1 + Math.floor(random() * (source.length - 2));
		return { text: source.slice(0, cut), problem: notJson };
	});
	return [...fixed, ...truncated];
}

interface Outcome {
	error?: Error;
	output?: INodeExecutionData[];
	requests: RequestLogEntry[];
}

async function run(operation: Operation, parameters: Parameters): Promise<Outcome> {
	context.sandbox.admin.reset();
	let outcome: Outcome;
	try {
		outcome = { output: await context.run(parameters, { items: operation.items }), requests: [] };
	} catch (error) {
		outcome = { error: error as Error, requests: [] };
	}
	outcome.requests = context.allRequests();
	received.push(...outcome.requests);
	return outcome;
}

/** Runs every (slot, value) pair and returns a line for each one that was not refused as expected. */
async function refusals(
	slots: Slot[],
	values: string[],
	expected: (slot: Slot, value: string) => string | RegExp,
): Promise<{ runs: number; problems: string[] }> {
	const problems: string[] = [];
	let runs = 0;
	for (const slot of slots) {
		const operation = OPERATIONS[slot.operation];
		for (const value of values) {
			if ((slot.list || slot.optional) && value.trim() === '') continue;
			if (slot.list && /[,\n]/.test(value)) continue;
			runs++;
			const { error, requests } = await run(operation, slot.set(operation.parameters, value));
			const want = expected(slot, value);
			const label = `${operation.name} / ${slot.field} = ${JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}...(${value.length})` : value)}`;
			if (!(error instanceof NodeOperationError))
				problems.push(
					`${label}: ${error ? `${error.constructor.name} ${error.message}` : 'accepted'}`,
				);
			else if (typeof want === 'string' ? error.message !== want : !want.test(error.message))
				problems.push(`${label}: message ${JSON.stringify(error.message.slice(0, 200))}`);
			else if ((error as NodeOperationError).context.itemIndex !== 0)
				problems.push(`${label}: itemIndex ${(error as NodeOperationError).context.itemIndex}`);
			if (requests.length > 0)
				problems.push(
					`${label}: sent ${requests.map((entry) => `${entry.method} ${entry.path}`).join(', ')}`,
				);
		}
	}
	return { runs, problems };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('the endpoints the path checks use', () => {
	test('the check refuses paths outside them and accepts encoded single segments', () => {
		const escapes = [
			'/case/id/a/b',
			'/case/id/',
			'/case/id/..',
			'/case/id/%2e%2e',
			'/case/id/a%2Fb',
			'/case/id/x/../list',
			'/case/listx',
			'/auth/api/',
			'/case/id/%E0%A4%A',
		];
		expect(escapes.filter((path) => matchEndpoint({ method: 'GET', path }))).toEqual([]);
		expect(matchEndpoint({ method: 'GET', path: '/case/id/%252e%252e' })).toBeUndefined();
		expect(matchEndpoint({ method: 'GET', path: '/case/id/%25252F' })).toBeUndefined();
		expect(matchEndpoint({ method: 'GET', path: '/case/id/a%3Bb%20c' })).toEqual({
			endpoint: 'GET /case/id/{caseId}',
			params: { caseId: 'a;b c' },
		});
		expect(matchEndpoint({ method: 'POST', path: '/case/id/x' })).toBeUndefined();
	});
});

describe('every operation', () => {
	test('with valid input passes validation and sends one request to its own endpoint (the baselines the fuzzing mutates)', async () => {
		for (const operation of Object.values(OPERATIONS)) {
			const { error, requests } = await run(operation, operation.parameters);
			// Made-up IDs may be unknown to the API; the node itself must not object.
			expect({
				operation: operation.name,
				refusedByNode: error instanceof NodeOperationError ? error.message : null,
			}).toEqual({
				operation: operation.name,
				refusedByNode: null,
			});
			if (error) expect(error).toBeInstanceOf(NodeApiError);
			expect(
				requests
					.filter((entry) => entry.path !== '/auth/api')
					.map((entry) => matchEndpoint(entry)?.endpoint),
			).toEqual([operation.endpoint]);
		}
	});
});

describe('refused before any request, naming the field', () => {
	test(`IDs: ${BAD_IDS.length} bad values in every ID field of every operation`, async () => {
		const { runs, problems } = await refusals(ID_SLOTS, BAD_IDS, (slot, value) =>
			value.trim() === ''
				? `${slot.field} is empty [item 0]`
				: `${slot.field} "${value.trim()}" is not a valid ID [item 0]`,
		);
		expect(problems).toEqual([]);
		expect(runs).toBeGreaterThan(500);
	});

	test(`names: ${BAD_NAMES.length} values with refused characters in every name field, typed or in JSON`, async () => {
		const { runs, problems } = await refusals(
			NAME_SLOTS,
			BAD_NAMES,
			(slot) =>
				new RegExp(
					`^${escapeRegExp(slot.field)} contains characters the API does not accept \\(.+\\); allowed are .* \\[item 0\\]$`,
				),
		);
		expect(problems).toEqual([]);
		expect(runs).toBe(NAME_SLOTS.length * BAD_NAMES.length);
	});

	test('empty required names and email', async () => {
		const slots: Slot[] = [
			{
				operation: 'caseCreate',
				field: 'Candidate First Name',
				set: with_((candidateFirstName) => ({ candidateFirstName })),
			},
			{
				operation: 'caseCreate',
				field: 'Candidate Last Name',
				set: with_((candidateLastName) => ({ candidateLastName })),
			},
			{
				operation: 'caseCreate',
				field: 'Candidate Email',
				set: with_((candidateEmail) => ({ candidateEmail })),
			},
		];
		const { problems } = await refusals(
			slots,
			['', ' ', '\n\t'],
			(slot) => `${slot.field} is empty [item 0]`,
		);
		expect(problems).toEqual([]);
	});

	test('staffingAgency over 100 characters, typed or in JSON, in order data and testimony', async () => {
		const { runs, problems } = await refusals(
			STAFFING_SLOTS,
			LONG_STAFFING_AGENCIES,
			(slot, value) =>
				new RegExp(
					`^${escapeRegExp(slot.field)} is ${value.length} characters long; the API accepts at most 100 \\[item 0\\]$`,
				),
		);
		expect(problems).toEqual([]);
		expect(runs).toBe(STAFFING_SLOTS.length * LONG_STAFFING_AGENCIES.length);
		// 100 is allowed.
		const slot = STAFFING_SLOTS[2];
		const { error } = await run(
			OPERATIONS[slot.operation],
			slot.set(OPERATIONS[slot.operation].parameters, 'S'.repeat(100)),
		);
		expect(error).not.toBeInstanceOf(NodeOperationError);
	});

	test('JSON fields: malformed, not an object, nested too deeply, huge and malformed', async () => {
		const texts = badJsonTexts();
		const { runs, problems } = await refusals(
			JSON_SLOTS,
			texts.map((entry) => entry.text),
			(slot, value) =>
				new RegExp(
					`^${escapeRegExp(slot.field)} ${texts.find((entry) => entry.text === value)!.problem.source} \\[item 0\\]$`,
				),
		);
		expect(problems).toEqual([]);
		expect(runs).toBe(JSON_SLOTS.length * texts.length);
	});

	test('secure document: no binary field of that name, or none given', async () => {
		const slot: Slot = {
			operation: 'secureDocumentCreate',
			field: '',
			set: with_((binaryPropertyName) => ({ binaryPropertyName })),
		};
		const { problems } = await refusals(
			[slot],
			['', ' , ', 'license', 'data, scan'],
			(_slot, value) =>
				value.replace(/[ ,]/g, '') === ''
					? 'Input Binary Field is empty [item 0]'
					: /^The item has no binary field '(license|scan)'/,
		);
		expect(problems).toEqual([]);
	});
});

describe('odd but allowed values stay inside their path segment', () => {
	/** Not refused by the node: each must arrive as one segment of the operation's endpoint, unchanged. */
	const ODD_IDS = [
		'ａ／ｂ',
		'∕',
		'⁄x',
		'a;b',
		'a:b',
		'@x',
		'a+b',
		"a'b",
		'~',
		'...',
		'.a',
		'a.',
		'a..b',
		'..a',
		'-',
		'_',
		'(a)',
		'$',
		'&a=1',
		'=',
		'*',
		'[a]',
		'{a}',
		'|',
		'^',
		'`',
		'"',
		'<a>',
		'é',
		'😀',
		'2f1c9a4e-7b3d-4e8f-9a10-5c6d7e8f9a0b',
		'x'.repeat(5000),
	];

	test(`${ODD_IDS.length} values in every ID that is a path segment: one request, to the operation's endpoint, the ID received as entered`, async () => {
		const problems: string[] = [];
		let runs = 0;
		for (const slot of ID_SLOTS.filter((candidate) => candidate.pathParam)) {
			const operation = OPERATIONS[slot.operation];
			for (const value of ODD_IDS) {
				runs++;
				const { error, requests } = await run(operation, slot.set(operation.parameters, value));
				const label = `${operation.name} / ${slot.field} = ${JSON.stringify(value.slice(0, 40))}`;
				if (error && !(error instanceof NodeApiError))
					problems.push(`${label}: ${error.constructor.name} ${error.message}`);
				if (error && !error.message) problems.push(`${label}: an error without a message`);
				const calls = requests.filter((entry) => entry.path !== '/auth/api');
				const matched = calls.map((entry) => matchEndpoint(entry));
				if (calls.length !== 1) problems.push(`${label}: ${calls.length} requests`);
				else if (matched[0]?.endpoint !== operation.endpoint)
					problems.push(`${label}: went to ${calls[0].method} ${calls[0].path}`);
				else if (matched[0].params[slot.pathParam!] !== value)
					problems.push(
						`${label}: received as ${JSON.stringify(matched[0].params[slot.pathParam!])}`,
					);
			}
		}
		expect(problems).toEqual([]);
		expect(runs).toBe(ID_SLOTS.filter((candidate) => candidate.pathParam).length * ODD_IDS.length);
	});

	test("a huge JSON body that is valid is sent once and the API's refusal is shown (the spec gives no size limit, the sandbox takes 10 MB)", async () => {
		const operation = OPERATIONS.caseCreate;
		const { error, requests } = await run(operation, {
			...operation.parameters,
			additionalBody: JSON.stringify({ note: 'x'.repeat(11 * 1024 * 1024) }),
		});
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error!.message).toBe('The request body is too large');
		expect((error as NodeApiError).description).toBe('HTTP 413 on POST /case/create');
		expect(
			requests.filter((entry) => entry.path === '/case/create').map((entry) => entry.status),
		).toEqual([413]);
	});

	test('every request of this file went to an endpoint of the spec', () => {
		expect(received.length).toBeGreaterThan(600);
		expect(escapedRequests(received)).toEqual([]);
	});
});
