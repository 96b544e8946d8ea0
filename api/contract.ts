/**
 * The API's contract (api/contract.json, the provider's published reference without its prose) as checks: which
 * operation a call is, whether a request is one the API accepts, and whether an answer is one it gives. The
 * sandbox refuses requests with it and checks its own answers with it; the contract test runs every request the
 * nodes send through it. Schemas are checked by ajv (JSON Schema 2020-12, the dialect of OpenAPI 3.1).
 *
 * Readings of the reference applied when schemas are compiled (docs/api-contract.md says why):
 * - `oneOf` is read as `anyOf`: the reference's branches overlap (an alias's metadata matches four of them), so
 *   "exactly one" would refuse every request the reference itself shows;
 * - order data's `metadata` is checked against the branch its `caseOrderDataTypeId` names (ORDER_DATA_METADATA);
 * - in requests, an object takes no property its schema does not list, and read-only properties are not required.
 *
 * The error examples the reference gives (the API's own texts, e.g. "Cannot cancel a case that has already
 * started.") are kept in the contract and read with `errorExample`.
 */
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

import contractJson from './contract.json';

type Schema = Record<string, unknown>;

interface Parameter {
	name: string;
	in: 'path' | 'query' | 'header';
	required?: boolean;
	schema?: Schema;
}

interface MediaType {
	schema?: Schema;
	/** Kept for error answers only (scripts/refresh-contract.ts): the API's error texts, by example name. */
	examples?: Record<string, { value?: unknown }>;
}

interface Operation {
	operationId: string;
	parameters?: Array<Parameter | { $ref: string }>;
	requestBody?: { content?: Record<string, MediaType> };
	responses: Record<string, { content?: Record<string, MediaType> }>;
}

type PathItem = { parameters?: Array<Parameter | { $ref: string }> } & Record<string, unknown>;

interface Contract {
	source: Record<string, unknown>;
	paths: Record<string, PathItem>;
	components: { schemas: Record<string, Schema>; parameters: Record<string, Parameter> };
}

export const contract = contractJson as unknown as Contract;

/** Order data type -> the metadata schema the reference lists for it (the names pair one to one). */
export const ORDER_DATA_METADATA: Readonly<Record<string, string>> = {
	'codt-govt-id': 'CaseOrderDataGovtID',
	'codt-dob': 'CaseOrderDataDOB',
	'codt-current-candidate-address': 'CaseOrderDataCandidateAddress',
	'codt-ohs-scheduling-address': 'CaseOrderDataOHSAddress',
	'codt-education': 'CaseOrderDataEducation',
	'codt-employment': 'CaseOrderDataEmployment',
	'codt-mvr': 'CaseOrderDataMVR',
	'codt-alias': 'CaseOrderDataAlias',
	'codt-address': 'CaseOrderDataJurisdiction',
	'codt-jurisdiction-county': 'CaseOrderDataJurisdictionCounty',
	'codt-jurisdiction-fed-district': 'CaseOrderDataJurisdictionFederal',
	'codt-jurisdiction-state': 'CaseOrderDataJurisdictionState',
	'codt-cplc': 'CaseOrderDataCPLC',
	'codt-shipment': 'CaseOrderDataShipment',
	'codt-ohs-service-substitutions': 'CaseOrderDataOHSServiceSubstitutions',
	'codt-idp': 'CaseOrderDataDocumentProcessing',
	'codt-drug-reason-for-test': 'CaseOrderDataDrugReasonForTest',
	'codt-drug-testing-authority': 'CaseOrderDataDrugTestingAuthority',
};

/**
 * The contract with the readings applied, as ajv compiles it. `closed`: for requests, an object schema that lists
 * its properties (and says nothing of others) takes no other property, so a field the reference does not
 * define is refused rather than silently carried (the answers stay open: the API may add fields).
 */
function readContract(source: Contract, closed: boolean): Contract {
	const read = (value: unknown): unknown => {
		if (Array.isArray(value)) return value.map(read);
		if (value === null || typeof value !== 'object') return value;
		const copy: Record<string, unknown> = {};
		for (const [key, inner] of Object.entries(value))
			copy[key === 'oneOf' ? 'anyOf' : key] = read(inner);
		if (closed && Array.isArray(copy.required) && typeof copy.properties === 'object') {
			// A read-only property is the API's to fill: required in answers, not in requests.
			const properties = copy.properties as Record<string, { readOnly?: boolean }>;
			copy.required = (copy.required as string[]).filter((name) => !properties[name]?.readOnly);
		}
		if (
			closed &&
			copy.type === 'object' &&
			copy.properties !== undefined &&
			copy.additionalProperties === undefined &&
			// `properties` of a schema, not a property named "properties"
			typeof copy.properties === 'object'
		)
			copy.additionalProperties = false;
		return copy;
	};
	const readable = read(source) as Contract;
	const orderData = readable.components.schemas.CaseOrderData as {
		properties: { metadata: Schema };
		allOf?: Schema[];
	};
	orderData.properties.metadata = { type: 'object' };
	orderData.allOf = Object.entries(ORDER_DATA_METADATA).map(([type, schema]) => ({
		if: { properties: { caseOrderDataTypeId: { const: type } }, required: ['caseOrderDataTypeId'] },
		then: { properties: { metadata: { $ref: `#/components/schemas/${schema}` } } },
	}));
	return readable;
}

const CONTRACT_ID = 'contract';
/** The same contract with closed objects, for requests (readContract). */
const REQUEST_CONTRACT_ID = 'contract-requests';
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema({ $id: CONTRACT_ID, ...readContract(contract, false) });
ajv.addSchema({ $id: REQUEST_CONTRACT_ID, ...readContract(contract, true) });

const validators = new Map<string, ValidateFunction>();

const pointer = (...segments: string[]) =>
	segments.map((segment) => segment.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

function validatorAt(document: string, ...segments: string[]): ValidateFunction {
	const ref = `${document}#/${pointer(...segments)}`;
	let validate = validators.get(ref);
	if (validate === undefined) {
		validate = ajv.compile({ $ref: ref });
		validators.set(ref, validate);
	}
	return validate;
}

function describe(errors: ErrorObject[] | null | undefined, where: string): string[] {
	const problems = (errors ?? [])
		// An `if` failing only says which `then` applied; the `then`'s own errors say what is wrong.
		.filter((error) => error.keyword !== 'if')
		.map((error) => {
			const at = `${where}${error.instancePath}`;
			if (error.keyword === 'additionalProperties')
				return `${at}: ${error.params.additionalProperty} is not a property of the reference`;
			if (error.keyword === 'enum')
				return `${at} must be one of ${(error.params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(', ')}`;
			return `${at} ${error.message}`;
		});
	return [...new Set(problems)];
}

function check(validate: ValidateFunction, value: unknown, where: string): string[] {
	return validate(value) ? [] : describe(validate.errors, where);
}

export interface OperationMatch {
	/** The path as the reference writes it, e.g. `/case/id/{caseId}`. */
	template: string;
	method: string;
	operation: Operation;
	params: Record<string, string>;
}

interface CompiledPath {
	template: string;
	match: (path: string) => Record<string, string> | undefined;
	literals: number;
}

/** Compiles `/case/id/{caseId}` into a matcher returning the decoded parameters, or undefined. */
export function compilePath(
	template: string,
): (path: string) => Record<string, string> | undefined {
	const names: string[] = [];
	const source = template
		.split('/')
		.map((segment) => {
			const placeholder = /^\{(\w+)\}$/.exec(segment);
			if (!placeholder) return segment.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
			names.push(placeholder[1]);
			return '([^/]+)';
		})
		.join('/');
	const matcher = new RegExp(`^${source}/?$`);
	return (path) => {
		const match = matcher.exec(path);
		if (!match) return undefined;
		const params: Record<string, string> = {};
		names.forEach((name, index) => (params[name] = decodeURIComponent(match[index + 1])));
		return params;
	};
}

const compiledPaths: CompiledPath[] = Object.keys(contract.paths)
	.map((template) => ({
		template,
		match: compilePath(template),
		literals: template.split('/').filter((segment) => !/^\{\w+\}$/.test(segment)).length,
	}))
	// A literal segment wins over a placeholder: /case/list/all is not /case/id/{caseId}.
	.sort((a, b) => b.literals - a.literals);

const METHODS = ['get', 'post', 'put', 'delete', 'patch'];

/** The operation of the reference a method and a concrete path (no query) are, or undefined. */
export function findOperation(method: string, path: string): OperationMatch | undefined {
	const wanted = method.toLowerCase();
	for (const compiled of compiledPaths) {
		const operation = contract.paths[compiled.template][wanted] as Operation | undefined;
		const params = operation === undefined ? undefined : compiled.match(path);
		if (params)
			return { template: compiled.template, method: wanted, operation: operation!, params };
	}
	return undefined;
}

/** Every operation of the reference, as `METHOD /template`. */
export function listOperations(): string[] {
	return Object.entries(contract.paths).flatMap(([template, item]) =>
		Object.keys(item)
			.filter((key) => METHODS.includes(key))
			.map((method) => `${method.toUpperCase()} ${template}`),
	);
}

function parametersOf(match: OperationMatch): Parameter[] {
	const resolve = (parameter: Parameter | { $ref: string }): Parameter =>
		'$ref' in parameter
			? contract.components.parameters[parameter.$ref.split('/').pop()!]
			: parameter;
	const byKey = new Map<string, Parameter>();
	for (const parameter of [
		...(contract.paths[match.template].parameters ?? []),
		...(match.operation.parameters ?? []),
	].map(resolve))
		byKey.set(`${parameter.in}:${parameter.name.toLowerCase()}`, parameter);
	return [...byKey.values()];
}

const parameterValidators = new Map<string, ValidateFunction>();

function parameterSchema(parameter: Parameter): ValidateFunction | undefined {
	if (parameter.schema === undefined) return undefined;
	// A parameter schema is inline; a $ref in it points into the contract document.
	const text = JSON.stringify(parameter.schema).replace(/"#\//g, `"${REQUEST_CONTRACT_ID}#/`);
	let validate = parameterValidators.get(text);
	if (validate === undefined) {
		validate = ajv.compile(JSON.parse(text) as Schema);
		parameterValidators.set(text, validate);
	}
	return validate;
}

/**
 * Operations whose body the reference's prose calls optional ("The request body is optional"): it may be left
 * out, and when sent must fit. Every other body is required (the contract's request bodies say nothing either way).
 */
export const OPTIONAL_BODIES: ReadonlySet<string> = new Set([
	'POST /case/id/{caseId}/action/preadverse',
]);

/** What a request carries, as the sandbox and the contract test see it. */
export interface ContractRequest {
	method: string;
	path: string;
	query?: URLSearchParams | Record<string, string>;
	headers?: Record<string, unknown>;
	/** Parsed JSON, or undefined when there is no body. */
	body?: unknown;
}

/**
 * Why the API would not accept this request, as the reference defines it ([] when it would): the operation must
 * exist, its path, query and header parameters must fit their schemas (and no query parameter it does not
 * define), and the JSON body must fit the request schema (or be absent when the operation takes none).
 */
export function requestProblems(request: ContractRequest): string[] {
	const match = findOperation(request.method, request.path);
	if (!match) return [`${request.method} ${request.path} is not an operation of the API reference`];
	const problems: string[] = [];
	const query =
		request.query instanceof URLSearchParams
			? request.query
			: new URLSearchParams(request.query ?? {});
	const parameters = parametersOf(match);
	for (const parameter of parameters) {
		let value: unknown;
		if (parameter.in === 'path') value = match.params[parameter.name];
		else if (parameter.in === 'query') value = query.get(parameter.name) ?? undefined;
		else value = headerValue(request.headers, parameter.name);
		if (value === undefined) {
			if (parameter.required)
				problems.push(`${parameter.in} parameter ${parameter.name} is required`);
			continue;
		}
		const validate = parameterSchema(parameter);
		if (validate)
			problems.push(
				...check(
					validate,
					coerce(value, parameter.schema),
					`${parameter.in} parameter ${parameter.name}`,
				),
			);
	}
	const known = new Set(parameters.filter((p) => p.in === 'query').map((p) => p.name));
	for (const name of new Set(query.keys()))
		if (!known.has(name)) problems.push(`query parameter ${name} is not defined by the reference`);

	const json = match.operation.requestBody?.content?.['application/json'];
	if (json?.schema !== undefined) {
		if (request.body === undefined) {
			if (!OPTIONAL_BODIES.has(`${match.method.toUpperCase()} ${match.template}`))
				problems.push('the request needs a JSON body');
		} else
			problems.push(
				...check(
					validatorAt(
						REQUEST_CONTRACT_ID,
						'paths',
						match.template,
						match.method,
						'requestBody',
						'content',
						'application/json',
						'schema',
					),
					request.body,
					'body',
				),
			);
	} else if (request.body !== undefined && json === undefined) {
		problems.push(`${match.method.toUpperCase()} ${match.template} takes no body`);
	}
	return problems;
}

function headerValue(headers: Record<string, unknown> | undefined, name: string): unknown {
	if (!headers) return undefined;
	const wanted = name.toLowerCase();
	for (const [key, value] of Object.entries(headers))
		if (key.toLowerCase() === wanted) return value;
	return undefined;
}

/** Query and path values arrive as text; a number or boolean parameter is compared as one. */
function coerce(value: unknown, schema: Schema | undefined): unknown {
	if (typeof value !== 'string' || !schema) return value;
	if (
		(schema.type === 'integer' || schema.type === 'number') &&
		value.trim() !== '' &&
		!Number.isNaN(Number(value))
	)
		return Number(value);
	if (schema.type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
	return value;
}

/** The media type of a Content-Type header, e.g. `application/json`. */
const mediaTypeOf = (contentType: string | undefined) =>
	contentType?.split(';')[0].trim().toLowerCase();

/**
 * Why an answer is not one the API gives to this request ([] when it is): its status must be one the operation
 * declares; where the reference gives that status a body, the media type must be the declared one and the
 * body must fit its schema. A status declared without a body (most errors) may carry any body.
 */
export function answerProblems(
	method: string,
	path: string,
	status: number,
	contentType: string | undefined,
	body: unknown,
): string[] {
	const match = findOperation(method, path);
	if (!match) return [`${method} ${path} is not an operation of the API reference`];
	const response = match.operation.responses[String(status)];
	if (response === undefined)
		return [
			`${method.toUpperCase()} ${match.template} does not answer ${status} in the reference (it answers ${Object.keys(match.operation.responses).join(', ')})`,
		];
	const declared = Object.entries(response.content ?? {}).filter(
		([, media]) => media.schema !== undefined,
	);
	if (declared.length === 0) return [];
	const mediaType = mediaTypeOf(contentType);
	const entry = declared.find(([type]) => type === mediaType);
	if (!entry)
		return [
			`${method.toUpperCase()} ${match.template} ${status} is ${declared.map(([type]) => type).join(' or ')} in the reference, not ${mediaType ?? 'an empty body'}`,
		];
	return check(
		validatorAt(
			CONTRACT_ID,
			'paths',
			match.template,
			match.method,
			'responses',
			String(status),
			'content',
			entry[0],
			'schema',
		),
		body,
		`${status} answer`,
	);
}

/** The text of an example: a JSON error body's `message`, or the example itself when it is text. */
function exampleText(value: unknown): string | undefined {
	if (typeof value === 'string') return value;
	if (
		value !== null &&
		typeof value === 'object' &&
		typeof (value as { message?: unknown }).message === 'string'
	)
		return (value as { message: string }).message;
	return undefined;
}

/**
 * The error texts the reference gives for one answer of an operation, by example name (e.g.
 * `{ 'Example 1': 'Cannot cancel a case that has already started.', ... }`), in the reference's order; {} when
 * it gives none. `path` is a concrete path or the reference's template; every media type of the answer counts.
 */
export function errorExamples(
	method: string,
	path: string,
	status: number,
): Record<string, string> {
	const response = findOperation(method, path)?.operation.responses[String(status)];
	const texts: Record<string, string> = {};
	for (const media of Object.values(response?.content ?? {}))
		for (const [name, example] of Object.entries(media.examples ?? {})) {
			const text = exampleText(example?.value);
			if (text !== undefined) texts[name] = text;
		}
	return texts;
}

/**
 * One error text of the reference for this answer (`errorExamples`): the example called `name`, or the first
 * when no name is given; undefined when the reference gives none.
 */
export function errorExample(
	method: string,
	path: string,
	status: number,
	name?: string,
): string | undefined {
	const texts = errorExamples(method, path, status);
	return name === undefined ? Object.values(texts)[0] : texts[name];
}
