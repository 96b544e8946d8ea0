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
 *   API reference's operations, with the template's segment count, and the ID arrives as it was entered.
 */

import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { RequestLogEntry } from '../../../sandbox';
import { byId, itemWithFile } from '../../helpers/executeContext';
import { useNodeSandbox } from '../../helpers/nodeSandbox';
import { seededRandom } from '../../helpers/seededRandom';
import { escapedRequests, matchEndpoint } from '../../helpers/referenceEndpoints';
import { EMPLOYMENT_METADATA } from '../../fixtures/fullCaseOrder';

const SSN_TRACE = '29cd44ab-a8f0-4b27-868e-dc4be88ff541';
const EMPLOYMENT_VERIFICATION = '9ac65633-b4c4-4062-875c-3556db9d2a08';
const EDUCATION_TESTIMONY = '19edb27e-5bfd-4c0f-888a-a5130b2f5250';
const EMPLOYMENT_TESTIMONY = 'aa99dc08-0238-4050-9176-bf322e077f71';
const CASE_1 = byId('case-1');
/** Employment order data with every key the reference requires, so that only the field under test is wrong. */
const EMPLOYMENT = EMPLOYMENT_METADATA;

// Hundreds of node runs per test, several of them with megabytes of JSON.
jest.setTimeout(60_000);

const context = useNodeSandbox();
/** Every request the sandbox received in this file (its own log is reset per run and bounded). */
const received: RequestLogEntry[] = [];

type Parameters = IDataObject;

interface Operation {
	name: string;
	parameters: Parameters;
	/** Input items (a file for Secure Document > Create). */
	items?: INodeExecutionData[];
	/** The endpoint its first request goes to, as the API reference writes it. */
	endpoint: string;
	/** Every endpoint it calls, in order, when it is more than `endpoint`. */
	endpoints?: string[];
}

/** `resourceOperation` is `resource:operation`; `more` are the other parameters of a valid request. */
const op = (
	name: string,
	endpoint: string,
	resourceOperation: string,
	more: Parameters = {},
	items?: INodeExecutionData[],
): Operation => {
	const [resource, operation] = resourceOperation.split(':');
	return { name, endpoint, parameters: { resource, operation, ...more }, items };
};

const OPERATIONS = {
	caseCreate: op('Case > Create', 'POST /case/create', 'case:create', {
		packageId: byId('pkg-basic-criminal'),
		candidateFirstName: 'Ann',
		candidateLastName: "O'Neil",
		candidateEmail: 'fuzz@example.com',
	}),
	caseGet: op('Case > Get', 'GET /case/id/{caseId}', 'case:get', { caseId: CASE_1 }),
	caseGetMany: op('Case > Get Many', 'GET /case/list', 'case:getMany', { limit: 5 }),
	caseGetManyAll: op('Case > Get Many (all)', 'GET /case/list/all', 'case:getMany', {
		scope: 'all',
		filters: { packageId: 'pkg-driver' },
	}),
	caseAddServices: op(
		'Case > Add Services',
		'POST /case/id/{caseId}/add/services',
		'case:addServices',
		{ caseId: CASE_1, services: [SSN_TRACE] },
	),
	caseGetData: op('Case > Get Data', 'GET /case/id/{caseId}/data/{serviceTypeId}', 'case:getData', {
		caseId: CASE_1,
		serviceTypeId: byId('service-type-idv'),
	}),
	caseDataCancelSearch: op(
		'Case Data > Cancel Search',
		'POST /case/data/id/{caseDataId}/search/id/{searchId}/cancel',
		'caseData:cancelSearch',
		{ caseDataId: 'case-data-1', searchId: 'search-1' },
	),
	packageGetServices: op(
		'Package > Get Services',
		'GET /package/id/{packageId}/services',
		'package:getServices',
		{ packageId: byId('pkg-driver') },
	),
	secureDocumentUpload: {
		...op('Secure Document > Upload', 'POST /document/secure/upload', 'secureDocument:create', {}, [
			itemWithFile('license.pdf', Buffer.from('%PDF-1.4 license'), 'application/pdf'),
		]),
		endpoints: ['POST /document/secure/upload', 'POST /document/secure/create'],
	},
	verificationBookSearch: op(
		'Verification Book > Search',
		'POST /vbook/search',
		'verificationBook:search',
		{ entryType: 'vbt_education', query: 'Valley', limit: 2 },
	),
	testimonyCreate: op(
		'Testimony > Create',
		'POST /testimony/create/case/id/{caseId}',
		'testimony:create',
		{
			caseId: CASE_1,
			cplcId: byId('cplc-registered-nurse'),
			firstName: 'Ann',
			lastName: 'Lee',
			licenseNumber: 'RN1',
			certifyingBody: 'Board',
		},
	),
	testimonyUpdate: op(
		'Testimony > Update',
		'POST /testimony/id/{testimonyId}/update/case/id/{caseId}',
		'testimony:update',
		{
			testimonyId: 'testimony-1',
			caseId: CASE_1,
			testimonyTypeId: EDUCATION_TESTIMONY,
			details: '{ "institution": "UCLA" }',
		},
	),
	cplcGetDefinitions: op(
		'Professional License (CPLC) > Get Definitions',
		'GET /service/cplc/case/id/{caseId}',
		'cplc:getDefinitions',
		{ caseId: CASE_1 },
	),
	shipmentMaskGetMany: op(
		'Shipment Mask > Get Many',
		'GET /shipment/mask/list',
		'shipmentMask:getMany',
	),
	companyUserGetMany: op(
		'Company User > Get Many',
		'GET /company/user/list',
		'companyUser:getMany',
	),
	caseCancel: op('Case > Cancel', 'POST /case/id/{caseId}/cancel', 'case:cancel', {
		caseId: CASE_1,
	}),
	caseCancelServices: op(
		'Case > Cancel Services',
		'POST /case/id/{caseId}/services/cancel',
		'case:cancelServices',
		{ caseId: CASE_1, serviceIds: [SSN_TRACE] },
	),
	caseArchive: op('Case > Archive', 'POST /case/archive/{caseId}', 'case:archive', {
		caseId: CASE_1,
	}),
	caseUnarchive: op('Case > Unarchive', 'POST /case/unarchive/{caseId}', 'case:unarchive', {
		caseId: CASE_1,
	}),
	caseBeginProcessing: op(
		'Case > Begin Processing',
		'PUT /case/id/{caseId}/action/beginprocessing',
		'case:beginProcessing',
		{ caseId: CASE_1 },
	),
	casePlace: op('Case > Place', 'PUT /case/id/{caseId}/action/place', 'case:place', {
		caseId: CASE_1,
	}),
	caseGetServices: op('Case > Get Services', 'GET /case/id/{caseId}/services', 'case:getServices', {
		caseId: CASE_1,
	}),
	caseGetOrderConfiguration: op(
		'Case > Get Order Configuration',
		'GET /config/case/id/{caseId}',
		'case:getOrderConfiguration',
		{ caseId: CASE_1 },
	),
	caseGetCandidateInfo: op(
		'Case > Get Candidate Info',
		'GET /candidate/info/case/id/{caseId}',
		'case:getCandidateInfo',
		{ caseId: CASE_1 },
	),
	caseUpdateCandidateInfo: op(
		'Case > Update Candidate Info',
		'POST /candidate/id/{candidateId}/update/case/id/{caseId}',
		'case:updateCandidateInfo',
		{ caseId: CASE_1, candidateId: 'candidate-1', updateFields: { phone: '+18005550164' } },
	),
	invitationGet: op('Invitation > Get', 'GET /invitation/case/{caseId}', 'invitation:get', {
		caseId: CASE_1,
	}),
	invitationResend: op(
		'Invitation > Resend',
		'POST /case/id/{caseId}/action/resendinvite',
		'invitation:resend',
		{ caseId: CASE_1, newEmail: 'fuzz@example.com' },
	),
	invitationRefresh: op(
		'Invitation > Refresh',
		'PUT /case/id/{caseId}/action/refreshinvite',
		'invitation:refresh',
		{ caseId: CASE_1 },
	),
	adverseActionStartPreAdverse: op(
		'Adverse Action > Start Pre-Adverse Action',
		'POST /case/id/{caseId}/action/preadverse',
		'adverseAction:startPreAdverse',
		{ caseId: CASE_1, reason: 'Failed drug test', adverseScreeningSelections: [SSN_TRACE] },
	),
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

/** The parameter a slot's value goes into, or a function giving the parameters to set for the value. */
type Patch = string | ((value: string) => Parameters);

const slot = (
	operation: Slot['operation'],
	field: string,
	patch: Patch,
	options: Pick<Slot, 'list' | 'optional' | 'pathParam'> = {},
): Slot => ({
	operation,
	field,
	set: (parameters, value) => ({
		...parameters,
		...(typeof patch === 'string' ? { [patch]: value } : patch(value)),
	}),
	...options,
});
/** A slot for the ID that fills the endpoint placeholder `param` (a resource locator with `byId`). */
const inPath = (
	operation: Slot['operation'],
	field: string,
	param: string,
	wrap: (value: string) => Parameters[string] = (value) => value,
) => slot(operation, field, (value) => ({ [param]: wrap(value) }), { pathParam: param });
const listSlot = (operation: Slot['operation'], field: string, patch: Patch) =>
	slot(operation, field, patch, { list: true });
const optionalSlot = (operation: Slot['operation'], field: string, patch: Patch) =>
	slot(operation, field, patch, { optional: true });

const CASE_ID_OPERATIONS = [
	'caseGet',
	'caseAddServices',
	'caseGetData',
	'testimonyCreate',
	'testimonyUpdate',
	'cplcGetDefinitions',
	'caseCancel',
	'caseCancelServices',
	'caseArchive',
	'caseUnarchive',
	'caseBeginProcessing',
	'casePlace',
	'caseGetServices',
	'caseGetOrderConfiguration',
	'caseGetCandidateInfo',
	'caseUpdateCandidateInfo',
	'invitationGet',
	'invitationResend',
	'invitationRefresh',
	'adverseActionStartPreAdverse',
] as const;

const ID_SLOTS: Slot[] = [
	...CASE_ID_OPERATIONS.map((operation) => inPath(operation, 'Case ID', 'caseId', byId)),
	// Checked against the five service types after this, so an odd value is refused too (not a path slot).
	slot('caseGetData', 'Service Type ID', (value) => ({ serviceTypeId: byId(value) })),
	inPath('caseDataCancelSearch', 'Case Data ID', 'caseDataId'),
	inPath('caseDataCancelSearch', 'Search ID', 'searchId'),
	inPath('packageGetServices', 'Package ID', 'packageId', byId),
	slot('caseCreate', 'Package ID', (value) => ({ packageId: byId(value) })),
	slot('testimonyCreate', 'Professional License ID', (value) => ({ cplcId: byId(value) })),
	inPath('testimonyUpdate', 'Testimony ID', 'testimonyId'),
	listSlot('caseCreate', 'Exclude Services', (value) => ({ excludeServices: [SSN_TRACE, value] })),
	listSlot('caseCreate', 'Disclosure Document IDs', (ids) => ({
		flow: 'customerProvided',
		candidateConsentProvided: true,
		orderData: { dateOfBirth: [{ dob: '1980-02-22' }] },
		candidateDisclosuresAndAuthorizationDocumentIds: `doc-1, ${ids}`,
	})),
	slot('caseCreate', 'Case to Replace (ID)', (replaceCaseId) => ({
		candidateFields: { orderOverride: 'replace', replaceCaseId },
	})),
	optionalSlot('caseCreate', 'Order Data > Drug Test Reason 1: Service', (serviceId) => ({
		orderData: { drugReasonForTest: [{ serviceId, reasonForTest: 'followup' }] },
	})),
	optionalSlot('caseCreate', 'Aliases 1: Service', (serviceId) => ({
		aliases: { alias: [{ firstName: 'Annie', lastName: 'Lee', serviceId }] },
	})),
	listSlot('caseAddServices', 'Services', (value) => ({ services: [SSN_TRACE, value] })),
	optionalSlot('caseAddServices', 'Order Data > Other Order Data 1: Service', (serviceId) => ({
		orderData: {
			other: [{ type: 'codt-employment', serviceId, metadata: JSON.stringify(EMPLOYMENT) }],
		},
	})),
	optionalSlot('caseGetManyAll', 'Ordered By', (userId) => ({ filters: { userId } })),
	optionalSlot('caseGetManyAll', 'Package', (packageId) => ({ filters: { packageId } })),
	optionalSlot('companyUserGetMany', 'Group Profile ID', (groupProfileId) => ({
		options: { groupProfileId },
	})),
	slot('secureDocumentUpload', 'Document Type', 'documentTypeId'),
	optionalSlot('secureDocumentUpload', 'Case ID (Access)', (accessCaseId) => ({
		options: { accessCaseId },
	})),
	slot('testimonyCreate', 'Other License Fields: Field ID', (fieldId) => ({
		customFields: { field: [{ fieldId, value: 'x' }] },
	})),
	// Left empty, the candidate is read from the case: blank is not bad here.
	slot('caseUpdateCandidateInfo', 'Candidate ID', 'candidateId', {
		optional: true,
		pathParam: 'candidateId',
	}),
	listSlot('caseCancelServices', 'Services', (value) => ({ serviceIds: [SSN_TRACE, value] })),
	listSlot('adverseActionStartPreAdverse', 'Screenings', (value) => ({
		adverseScreeningSelections: [SSN_TRACE, value],
	})),
];

/** IDs the node must refuse; a blank one is "empty", the others "not a valid ID". */
const BAD_IDS = [
	['', ' ', '\t'],
	['/', 'a/b', '/case/list', '..', '.', ' .. ', '../x', 'x/..', '..\\x', '\\'],
	['%2e%2e', '%2E%2e', '.%2e', '%2f', '..%2F..%2Fauth%2Fapi', '%', '100%', '%00'],
	['?', 'a?b=1', '#', 'a#b', 'a b', 'a\nb', 'a\rb', 'a\u0000b', 'a\u001bb', 'a\u00a0b', 'a\u2028b'],
].flat();

const NAME_SLOTS: Slot[] = [
	slot('caseCreate', 'givenName', 'candidateFirstName'),
	slot('caseCreate', 'familyName', 'candidateLastName'),
	slot('caseCreate', 'middleName', (middleName) => ({ candidateFields: { middleName } })),
	slot('caseCreate', 'orderData[0].metadata.givenName', (firstName) => ({
		aliases: { alias: [{ firstName, lastName: 'Lee' }] },
	})),
	slot('caseCreate', 'orderData[1].metadata.familyName', (lastName) => ({
		aliases: {
			alias: [
				{ firstName: 'Annie', lastName: 'Lee' },
				{ firstName: 'Bo', lastName },
			],
		},
	})),
	slot('caseCreate', 'orderData[0].metadata.middleName', (middleName) => ({
		aliases: { alias: [{ firstName: 'Annie', middleName, lastName: 'Lee' }] },
	})),
	...(['givenName', 'middleName', 'familyName'] as const).map((name) =>
		slot('caseUpdateCandidateInfo', name, (value) => ({ updateFields: { [name]: value } })),
	),
	// Spec 7 names case creation (with its aliases) and the candidate-info update only: the bodies of Add
	// Services and of testimony are not held to the name rule (helpers/helpers.test.ts, checkBody).
];

/** Inside the value (leading and trailing blanks are trimmed from the typed name fields). */
const BAD_NAMES = [
	['Ann!', 'Van Dyke', 'Ann\tLee', 'O"Neil', '<script>', 'Ann;Lee', 'Ann@Lee', 'Ann/Lee'],
	['Ann%20Lee', 'Ann#1', 'Ann?', 'Ann(Lee)', 'Ann\u0000', 'A\u00a0B', 'Ann😀', 'Ann+Lee'],
	['${{1}}', 'Ann\nLee'],
].flat();

const STAFFING_SLOTS: Slot[] = [
	...(['caseCreate', 'caseAddServices'] as const).map((operation) =>
		slot(operation, 'orderData[0].metadata.staffingAgency', (staffingAgency) => ({
			orderData: {
				other: [
					{
						type: 'codt-employment',
						serviceId: EMPLOYMENT_VERIFICATION,
						metadata: JSON.stringify({ ...EMPLOYMENT, staffingAgency }),
					},
				],
			},
		})),
	),
	...(['testimonyCreate', 'testimonyUpdate'] as const).map((operation) =>
		slot(operation, 'details.staffingAgency', (staffingAgency) => ({
			testimonyTypeId: EMPLOYMENT_TESTIMONY,
			details: JSON.stringify({ staffingAgency }),
		})),
	),
];

const LONG_STAFFING_AGENCIES = [101, 102, 1_000, 100_000].map((length) =>
	'Staffing Co '.repeat(length).slice(0, length),
);

const JSON_SLOTS: Slot[] = [
	...(['caseCreate', 'caseAddServices'] as const).map((operation) =>
		slot(operation, 'Order Data > Other Order Data 1: Metadata (JSON)', (metadata) => ({
			orderData: { other: [{ type: 'codt-ohs-service-substitutions', metadata }] },
		})),
	),
	...(['testimonyCreate', 'testimonyUpdate'] as const).map((operation) =>
		slot(operation, 'Details (JSON)', (details) => ({
			testimonyTypeId: EDUCATION_TESTIMONY,
			details,
		})),
	),
];

/** A seeded mix of JSON that does not parse, JSON that is not an object, and JSON nested too deeply. */
function badJsonTexts(): Array<{ text: string; problem: RegExp }> {
	const random = seededRandom(7);
	const refusedAs = (problem: RegExp, texts: string[]) => texts.map((text) => ({ text, problem }));
	const notJson = /is not valid JSON/;
	const tooDeep = /is nested more than 100 levels deep/;
	const fixed = [
		...refusedAs(notJson, ['{', '{"a":}', "{'a': 1}", '{"a": 1}}', '{"a": 1,}', '{a: 1}']),
		...refusedAs(notJson, ['undefined', '{"a": NaN}', '\u0000']),
		...refusedAs(/must be a JSON object/, ['[1, 2]', '"text"', '42', 'true', 'null']),
		// Huge: 4 MB that never closes, and 2 MB of valid JSON after which comes garbage.
		...refusedAs(notJson, [
			`{"a":"${'x'.repeat(4 * 1024 * 1024)}`,
			`{"a":[${'1,'.repeat(1024 * 1024)}1]} trailing`,
		]),
		...refusedAs(tooDeep, [
			`${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`,
			`{"a":${'['.repeat(101)}${']'.repeat(101)}}`,
		]),
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

/**
 * The API requests of a run, the token exchanges left out, and a request the API refused with 403 left out
 * when it was sent again right after (the transport's one new exchange and resend after a 403: a made-up ID
 * is an unknown case, which the API answers with 403 as it answers a revoked token).
 */
function sentOnce(requests: RequestLogEntry[]): RequestLogEntry[] {
	const calls = requests.filter((entry) => entry.path !== '/auth/api');
	return calls.filter(
		(entry, index) =>
			!(
				entry.status === 403 &&
				calls[index + 1]?.method === entry.method &&
				calls[index + 1]?.path === entry.path
			),
	);
}

async function run(operation: Operation, parameters: Parameters): Promise<Outcome> {
	context.sandbox.admin.reset();
	const outcome = await context.run(parameters, { items: operation.items }).then(
		(output) => ({ output }),
		(error: Error) => ({ error }),
	);
	const requests = context.allRequests();
	received.push(...requests);
	return { ...outcome, requests };
}

const runSlot = (slot: Slot, value: string) =>
	run(OPERATIONS[slot.operation], slot.set(OPERATIONS[slot.operation].parameters, value));

/**
 * Runs every (slot, value) pair, but the blank values an optional or list field skips and the values a list
 * splits; `check` reports what is wrong with a run. Returns the number of runs and the labelled reports.
 */
async function runEach(
	slots: Slot[],
	values: string[],
	check: (outcome: Outcome, slot: Slot, value: string, report: (problem: string) => void) => void,
): Promise<{ runs: number; problems: string[] }> {
	const problems: string[] = [];
	let runs = 0;
	for (const slot of slots) {
		for (const value of values) {
			if ((slot.list || slot.optional) && value.trim() === '') continue;
			if (slot.list && /[,\n]/.test(value)) continue;
			runs++;
			const shown = value.length > 60 ? `${value.slice(0, 60)}...(${value.length})` : value;
			const label = `${OPERATIONS[slot.operation].name} / ${slot.field} = ${JSON.stringify(shown)}`;
			check(await runSlot(slot, value), slot, value, (problem) =>
				problems.push(`${label}: ${problem}`),
			);
		}
	}
	return { runs, problems };
}

/**
 * Expects every (slot, value) pair refused with the `expected` message, naming item 0, before any request;
 * returns the number of runs.
 */
async function expectRefused(
	slots: Slot[],
	values: string[],
	expected: (slot: Slot, value: string) => string | RegExp,
): Promise<number> {
	const { runs, problems } = await runEach(slots, values, (outcome, slot, value, report) => {
		const { error, requests } = outcome;
		const want = expected(slot, value);
		if (!(error instanceof NodeOperationError))
			report(error ? `${error.constructor.name} ${error.message}` : 'accepted');
		else if (typeof want === 'string' ? error.message !== want : !want.test(error.message))
			report(`message ${JSON.stringify(error.message.slice(0, 200))}`);
		else if (error.context.itemIndex !== 0) report(`itemIndex ${error.context.itemIndex}`);
		if (requests.length > 0)
			report(`sent ${requests.map((entry) => `${entry.method} ${entry.path}`).join(', ')}`);
	});
	expect(problems).toEqual([]);
	return runs;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** The whole message: the field, then `rest` (a regular expression's source), then the item. */
const fieldMessage = (slot: Slot, rest: string) =>
	new RegExp(`^${escapeRegExp(slot.field)} ${rest} \\[item 0\\]$`);

describe('the operations the path checks use', () => {
	test('the check refuses paths outside them and accepts encoded single segments', () => {
		const escapes = [
			['/case/id/a/b', '/case/id/', '/case/id/..', '/case/id/%2e%2e', '/case/id/a%2Fb'],
			['/case/id/x/../list', '/case/listx', '/auth/api/', '/case/id/%E0%A4%A'],
		].flat();
		expect(escapes.filter((path) => matchEndpoint({ method: 'GET', path }))).toEqual([]);
		expect(matchEndpoint({ method: 'GET', path: '/case/id/%252e%252e' })).toBeUndefined();
		expect(matchEndpoint({ method: 'GET', path: '/case/id/%25252F' })).toBeUndefined();
		expect(matchEndpoint({ method: 'GET', path: '/case/id/a%3Bb%20c' })).toEqual({
			endpoint: 'GET /case/id/{caseId}',
			params: { caseId: 'a;b c' },
		});
		expect(matchEndpoint({ method: 'POST', path: '/case/id/x' })).toBeUndefined();
		expect(matchEndpoint({ method: 'GET', path: '/case/list/all' })).toEqual({
			endpoint: 'GET /case/list/all',
			params: {},
		});
	});
});

describe('every operation', () => {
	test('with valid input passes validation and sends its requests to its own endpoints (the baselines the fuzzing mutates)', async () => {
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
			expect(sentOnce(requests).map((entry) => matchEndpoint(entry)?.endpoint)).toEqual(
				error ? [operation.endpoint] : (operation.endpoints ?? [operation.endpoint]),
			);
		}
	});
});

describe('refused before any request, naming the field', () => {
	test(`IDs: ${BAD_IDS.length} bad values in every ID field of every operation`, async () => {
		const runs = await expectRefused(ID_SLOTS, BAD_IDS, (slot, value) =>
			value.trim() === ''
				? `${slot.field} is empty [item 0]`
				: `${slot.field} "${value.trim()}" is not a valid ID [item 0]`,
		);
		expect(runs).toBeGreaterThan(500);
	});

	test(`names: ${BAD_NAMES.length} values with refused characters in every name field, typed or in JSON`, async () => {
		const runs = await expectRefused(NAME_SLOTS, BAD_NAMES, (slot) =>
			fieldMessage(slot, 'contains characters the API does not accept \\(.+\\); allowed are .*'),
		);
		expect(runs).toBe(NAME_SLOTS.length * BAD_NAMES.length);
	});

	test('empty required names and email', async () => {
		await expectRefused(
			[
				slot('caseCreate', 'Given Name', 'candidateFirstName'),
				slot('caseCreate', 'Family Name', 'candidateLastName'),
				slot('caseCreate', 'Candidate Email', 'candidateEmail'),
			],
			['', ' ', '\n\t'],
			(slot) => `${slot.field} is empty [item 0]`,
		);
	});

	test('emails, dates and phone numbers of the candidate-info update and the invitation', async () => {
		const emails = ['x', 'x@', '@example.com', 'a b@example.com', 'a@b'];
		await expectRefused(
			[
				slot('caseUpdateCandidateInfo', 'Email', (email) => ({ updateFields: { email } })),
				slot('invitationResend', 'New Email', 'newEmail'),
			],
			emails,
			(slot, value) => `${slot.field} "${value}" is not an email address [item 0]`,
		);
		await expectRefused(
			[slot('caseUpdateCandidateInfo', 'Date of Birth', (dob) => ({ updateFields: { dob } }))],
			['1991-02-30', '05/04/1995', '1995-5-4', 'yesterday'],
			(slot, value) => `${slot.field} "${value}" is not a date [item 0]`,
		);
		await expectRefused(
			[slot('caseUpdateCandidateInfo', 'Phone', (phone) => ({ updateFields: { phone } }))],
			['8005550164', '+1 800 CALL NOW', '+', '++18005550164', '+1#800'],
			(slot, value) =>
				`${slot.field} "${value}" is not a phone number in the form +[country code][number] [item 0]`,
		);
	});

	test('required choices left empty: services to cancel, the reason or screenings of a pre-adverse action, the fields of a candidate update', async () => {
		await expectRefused(
			[slot('caseCancelServices', 'Services', (value) => ({ serviceIds: value }))],
			['', ' ', ' , ', '\n'],
			(slot) => `${slot.field} is empty [item 0]`,
		);
		await expectRefused(
			[
				slot('adverseActionStartPreAdverse', 'Reason and Screenings', (reason) => ({
					reason,
					adverseScreeningSelections: [],
				})),
			],
			['', ' ', '\n\t'],
			(slot) => `${slot.field} are empty [item 0]`,
		);
		await expectRefused(
			[slot('caseUpdateCandidateInfo', 'Update Fields', (phone) => ({ updateFields: { phone } }))],
			['', ' '],
			(slot) => `${slot.field} is empty [item 0]`,
		);
	});

	test('staffingAgency over 100 characters in the JSON of order data and testimony', async () => {
		const runs = await expectRefused(STAFFING_SLOTS, LONG_STAFFING_AGENCIES, (slot, value) =>
			fieldMessage(slot, `is ${value.length} characters long; the API accepts at most 100`),
		);
		expect(runs).toBe(STAFFING_SLOTS.length * LONG_STAFFING_AGENCIES.length);
		// 100 is allowed.
		const { error } = await runSlot(STAFFING_SLOTS[2], 'S'.repeat(100));
		expect(error).not.toBeInstanceOf(NodeOperationError);
	});

	test('JSON fields: malformed, not an object, nested too deeply, huge and malformed', async () => {
		const texts = badJsonTexts();
		const runs = await expectRefused(
			JSON_SLOTS,
			texts.map((entry) => entry.text),
			(slot, value) =>
				fieldMessage(slot, texts.find((entry) => entry.text === value)!.problem.source),
		);
		expect(runs).toBe(JSON_SLOTS.length * texts.length);
	});

	test('secure document: no binary field of that name, or none given', async () => {
		await expectRefused(
			[slot('secureDocumentUpload', '', 'binaryPropertyName')],
			['', ' , ', 'license', 'data, scan'],
			(_slot, value) =>
				value.replace(/[ ,]/g, '') === ''
					? 'Input Binary Field is empty [item 0]'
					: /^The item has no binary field '(license|scan)'/,
		);
	});
});

describe('odd but allowed values stay inside their path segment', () => {
	/** Not refused by the node: each must arrive as one segment of the operation's endpoint, unchanged. */
	const ODD_IDS = [
		['ａ／ｂ', '∕', '⁄x', 'a;b', 'a:b', '@x', 'a+b', "a'b", '~', '...', '.a', 'a.', 'a..b', '..a'],
		['-', '_', '(a)', '$', '&a=1', '=', '*', '[a]', '{a}', '|', '^', '`', '"', '<a>', 'é', '😀'],
		['2f1c9a4e-7b3d-4e8f-9a10-5c6d7e8f9a0b', 'x'.repeat(5000)],
	].flat();
	const PATH_SLOTS = ID_SLOTS.filter((candidate) => candidate.pathParam);

	test(`${ODD_IDS.length} values in every ID that is a path segment: one request, to the operation's endpoint, the ID received as entered`, async () => {
		const { runs, problems } = await runEach(
			PATH_SLOTS,
			ODD_IDS,
			(outcome, slot, value, report) => {
				const { error, requests } = outcome;
				if (error && !(error instanceof NodeApiError))
					report(`${error.constructor.name} ${error.message}`);
				if (error && !error.message) report('an error without a message');
				const calls = sentOnce(requests);
				const matched = calls.map((entry) => matchEndpoint(entry));
				if (calls.length !== 1) report(`${calls.length} requests`);
				else if (matched[0]?.endpoint !== OPERATIONS[slot.operation].endpoint)
					report(`went to ${calls[0].method} ${calls[0].path}`);
				else if (matched[0].params[slot.pathParam!] !== value)
					report(`received as ${JSON.stringify(matched[0].params[slot.pathParam!])}`);
			},
		);
		expect(problems).toEqual([]);
		expect(runs).toBe(PATH_SLOTS.length * ODD_IDS.length);
	});

	test("a huge JSON body that is valid is sent once and the API's refusal is shown (the reference gives no size limit, the sandbox takes 10 MB)", async () => {
		const operation = OPERATIONS.testimonyCreate;
		const { error, requests } = await run(operation, {
			...operation.parameters,
			testimonyTypeId: EDUCATION_TESTIMONY,
			details: JSON.stringify({ comments: 'x'.repeat(11 * 1024 * 1024) }),
		});
		const path = '/testimony/create/case/id/case-1';
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error!.message).toBe('The request body is too large');
		expect((error as NodeApiError).description).toBe(`HTTP 413 on POST ${path}`);
		expect(requests.filter((entry) => entry.path === path).map((entry) => entry.status)).toEqual([
			413,
		]);
	});

	test('every request of this file went to an operation of the API reference', () => {
		expect(received.length).toBeGreaterThan(600);
		expect(escapedRequests(received)).toEqual([]);
	});
});
