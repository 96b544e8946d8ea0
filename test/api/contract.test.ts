/**
 * api/contract.json and api/contract.ts: the reference as the package keeps it, and the checks made with it.
 */
import { parse } from 'yaml';

import {
	answerProblems,
	contract,
	errorExample,
	errorExamples,
	findOperation,
	listOperations,
	ORDER_DATA_METADATA,
	requestProblems,
} from '../../api/contract';
import { contractFrom, withoutProse } from '../../scripts/refresh-contract';

describe('api/contract.json', () => {
	it('holds the 69 operations of the reference, with where they come from', () => {
		expect(listOperations()).toHaveLength(69);
		expect(contract.source).toMatchObject({
			repository: 'api-evangelist/karmacheck',
			path: 'openapi/_original/karmacheck-api-openapi.yml',
			slices: 69,
		});
	});

	it('holds no prose: the refresh would leave it as it is', () => {
		const { paths, components } = contract as unknown as Record<string, never>;
		expect(withoutProse({ paths, components } as never)).toEqual({ paths, components });
	});

	it('resolves every $ref it holds', () => {
		const refs = new Set<string>();
		const walk = (value: unknown): void => {
			if (Array.isArray(value)) value.forEach(walk);
			else if (value && typeof value === 'object')
				for (const [key, inner] of Object.entries(value))
					if (key === '$ref') refs.add(inner as string);
					else walk(inner);
		};
		walk(contract);
		const missing = [...refs].filter(
			(ref) =>
				ref
					.replace(/^#\//, '')
					.split('/')
					.reduce<unknown>((at, key) => (at as Record<string, unknown>)?.[key], contract) ===
				undefined,
		);
		expect(missing).toEqual([]);
	});

	it('names a metadata schema for every order data type the reference lists', () => {
		const types = (
			contract.components.schemas.CaseOrderData as {
				properties: { caseOrderDataTypeId: { enum: string[] } };
			}
		).properties.caseOrderDataTypeId.enum;
		expect(Object.keys(ORDER_DATA_METADATA).sort()).toEqual([...types].sort());
		for (const schema of Object.values(ORDER_DATA_METADATA))
			expect(contract.components.schemas[schema]).toBeDefined();
	});
});

describe('the refresh (scripts/refresh-contract.ts)', () => {
	const reference = parse(`
openapi: 3.1.0
x-apievangelist-provenance: { assembled: '2026-08-23', slices_merged: 69 }
paths:
  /case/id/{caseId}:
    get:
      tags: [Cases]
      summary: Get case
      description: Long prose.
      operationId: get-case
      responses:
        '200':
          description: OK
          content:
            application/json:
              schema:
                type: object
                description: prose
                properties:
                  description: { type: string, description: a property named description }
                  title: { type: string, example: x }
              examples: { one: { value: {} } }
        '422':
          description: Unprocessable Entity
          content:
            application/json:
              schema:
                type: object
                properties: { message: { type: string } }
                x-examples: { Example 1: { message: not kept } }
              examples:
                Example 1:
                  value:
                    message: Cannot cancel a case that has already
                      started.
                    statusCode: 422
        '404':
          description: Not Found
          content:
            text/plain:
              schema: { type: string }
              examples: { Example 1: { value: Invalid case } }
components:
  schemas:
    X: { type: string, enum: [a, b], x-examples: { a: 1 } }
  securitySchemes: { JWT: { type: http } }
`);

	it('keeps structure and properties named like prose keywords, drops prose, examples and security, keeps error examples', () => {
		const written = contractFrom(reference, 'abc');
		const operation = (written.paths as never)['/case/id/{caseId}']['get'];
		expect(operation).toEqual({
			summary: 'Get case',
			operationId: 'get-case',
			responses: {
				'200': {
					content: {
						'application/json': {
							schema: {
								type: 'object',
								properties: { description: { type: 'string' }, title: { type: 'string' } },
							},
						},
					},
				},
				'422': {
					content: {
						'application/json': {
							schema: { type: 'object', properties: { message: { type: 'string' } } },
							examples: {
								'Example 1': {
									value: {
										message: 'Cannot cancel a case that has already started.',
										statusCode: 422,
									},
								},
							},
						},
					},
				},
				'404': {
					content: {
						'text/plain': {
							schema: { type: 'string' },
							examples: { 'Example 1': { value: 'Invalid case' } },
						},
					},
				},
			},
		});
		expect(written.components).toEqual({
			schemas: { X: { type: 'string', enum: ['a', 'b'] } },
			parameters: {
				language: { name: 'language', in: 'path', required: true, schema: { type: 'string' } },
			},
		});
		expect(written.source).toMatchObject({ commit: 'abc', assembled: '2026-08-23', slices: 69 });
	});
});

describe('errorExample', () => {
	it("gives the reference's error texts: a JSON body's message, or the text itself, by name or the first", () => {
		expect(errorExamples('POST', '/case/id/{caseId}/cancel', 422)).toEqual({
			'Example 1': 'Cannot cancel a case that has already started.',
			'Example 2': 'Unable to cancel case.',
		});
		expect(errorExample('POST', '/case/id/abc/cancel', 422)).toBe(
			'Cannot cancel a case that has already started.',
		);
		expect(errorExample('POST', '/case/id/abc/cancel', 422, 'Example 2')).toBe(
			'Unable to cancel case.',
		);
		expect(
			errorExample('POST', '/case/id/{caseId}/services/cancel', 422, 'SSN Trace required'),
		).toBe('SSN Trace is required when County, State, or Federal Criminal Search are ordered.');
		expect(errorExample('POST', '/case/archive/{caseId}', 404)).toBe('Invalid case');
		expect(errorExample('GET', '/candidate/invitation/token/t', 422)).toBe('Token is not valid');
		expect(errorExample('POST', '/case/id/abc/cancel', 422, 'Example 3')).toBeUndefined();
		expect(errorExample('PUT', '/case/id/abc/action/place', 422)).toBeUndefined();
		expect(errorExample('GET', '/nowhere', 404)).toBeUndefined();
	});

	it('holds every error example the reference gives, and none of a success', () => {
		const found: string[] = [];
		for (const [template, item] of Object.entries(contract.paths))
			for (const [method, operation] of Object.entries(item))
				for (const [status, response] of Object.entries(
					(operation as { responses?: Record<string, { content?: Record<string, object> }> })
						.responses ?? {},
				))
					for (const media of Object.values(response.content ?? {}))
						if ('examples' in media) found.push(`${method.toUpperCase()} ${template} ${status}`);
		expect(found.sort()).toEqual([
			'GET /candidate/invitation/token/{invitationToken} 422',
			'GET /candidate/invitation/token/{invitationToken} 500',
			'POST /case/archive/{caseId} 404',
			'POST /case/id/{caseId}/cancel 422',
			'POST /case/id/{caseId}/cancel 500',
			'POST /case/id/{caseId}/services/cancel 422',
			'POST /case/id/{caseId}/services/cancel 500',
		]);
	});
});

describe('requestProblems', () => {
	const createBody = {
		packageId: 'pkg-basic-criminal',
		email: 'maria@example.com',
		givenName: 'Maria',
		familyName: 'Garcia',
	};

	it("finds the six violations of the old invented case body (the reference's CreateCase is flat)", () => {
		expect(
			requestProblems({
				method: 'POST',
				path: '/case/create',
				body: { candidate: { firstName: 'Maria' }, services: [{ id: 'x' }] },
			}),
		).toEqual([
			"body must have required property 'packageId'",
			"body must have required property 'email'",
			"body must have required property 'givenName'",
			"body must have required property 'familyName'",
			'body: candidate is not a property of the reference',
			'body: services is not a property of the reference',
		]);
	});

	it('checks order data metadata against the schema its type names, and header parameters by format', () => {
		expect(
			requestProblems({
				method: 'POST',
				path: '/case/create',
				headers: { 'karmacheck-on-behalf-of': 'recruiter@example.com' },
				body: {
					...createBody,
					orderData: [
						{ caseOrderDataTypeId: 'codt-alias', metadata: { givenName: 'M', familyName: 'L' } },
						{ caseOrderDataTypeId: 'codt-dob', metadata: { dob: '1990-01-31' } },
					],
				},
			}),
		).toEqual([]);
		expect(
			requestProblems({
				method: 'POST',
				path: '/case/create',
				headers: { 'karmacheck-on-behalf-of': 'not an email' },
				body: {
					...createBody,
					orderData: [{ caseOrderDataTypeId: 'codt-alias', metadata: { givenName: 'M' } }],
				},
			}),
		).toEqual([
			'header parameter karmacheck-on-behalf-of must match format "email"',
			"body/orderData/0/metadata must have required property 'familyName'",
		]);
	});

	it('refuses a query parameter the reference does not define, a path parameter outside its enum, a body where none is taken', () => {
		expect(requestProblems({ method: 'GET', path: '/case/list', query: { page: '0' } })).toEqual([
			'query parameter page is not defined by the reference',
		]);
		expect(
			requestProblems({ method: 'GET', path: '/case/list/all', query: { userId: 'u' } }),
		).toEqual([]);
		expect(requestProblems({ method: 'GET', path: '/case/id/c/data/not-a-type' })[0]).toMatch(
			/^path parameter serviceTypeId must be one of "30bc2c03-/,
		);
		expect(requestProblems({ method: 'GET', path: '/case/list', body: {} })).toEqual([
			'GET /case/list takes no body',
		]);
		expect(
			requestProblems({ method: 'PUT', path: '/testimony/id/t/update/case/id/c', body: {} }),
		).toEqual(['PUT /testimony/id/t/update/case/id/c is not an operation of the API reference']);
	});

	it('takes no body where the reference calls it optional (pre-adverse action); checks it when sent', () => {
		const path = '/case/id/c/action/preadverse';
		expect(requestProblems({ method: 'POST', path })).toEqual([]);
		expect(requestProblems({ method: 'POST', path, body: { reason: 'x' } })).toEqual([]);
		expect(requestProblems({ method: 'POST', path, body: { reason: 1 } })).toEqual([
			'body/reason must be string',
		]);
		expect(requestProblems({ method: 'POST', path: '/case/id/c/services/cancel' })).toEqual([
			'the request needs a JSON body',
		]);
	});

	it('does not require read-only properties in requests (the API fills them)', () => {
		expect(
			requestProblems({
				method: 'POST',
				path: '/testimony/create/case/id/c',
				body: {
					testimonyTypeId: 'testimony-type-cplc',
					details: { cplcId: 'cplc-1', fields: [{ fieldId: 'licenseNumber', value: 'RN1' }] },
				},
			}),
		).toEqual([]);
	});

	it('prefers a literal path segment to a placeholder', () => {
		expect(findOperation('GET', '/case/list/all')?.template).toBe('/case/list/all');
		expect(findOperation('GET', '/case/id/abc')?.template).toBe('/case/id/{caseId}');
	});
});

describe('answerProblems', () => {
	it('accepts only the statuses an operation declares, and checks a declared body and its media type', () => {
		expect(answerProblems('POST', '/case/create', 201, 'application/json', {})[0]).toBe(
			'POST /case/create does not answer 201 in the reference (it answers 200, 400, 403, 409, 422, 500)',
		);
		expect(answerProblems('GET', '/case/list', 200, 'application/json', { caseList: [] })).toEqual([
			"200 answer must have required property 'cases'",
		]);
		expect(answerProblems('POST', '/case/archive/c', 200, 'text/plain', 'success')).toEqual([]);
		expect(answerProblems('POST', '/case/archive/c', 200, 'application/json', {})[0]).toContain(
			'text/plain in the reference',
		);
		// A status declared without a body may carry any body.
		expect(
			answerProblems('POST', '/case/create', 400, 'application/json', { message: ['x'] }),
		).toEqual([]);
	});
});
