/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- repository tooling: runs in Node.js, never inside n8n */
/**
 * Writes api/contract.json from the provider's published OpenAPI reference (the merged per-operation slices):
 * every structural keyword kept as written, prose and examples left out, except the examples of error answers
 * (the API's own error texts, which the sandbox answers with: api/contract.ts `errorExample`).
 *
 *   npm run contract:refresh -- path/to/karmacheck-api-openapi.yml [--commit <sha>]
 *
 * docs/api-contract.md says where the file comes from and what to look at after a refresh.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

import { parse } from 'yaml';

export const CONTRACT_PATH = resolve(__dirname, '../api/contract.json');

/** Keys that hold prose or examples, wherever they stand except as the name of a property. */
const PROSE = new Set([
	'description',
	'summary',
	'title',
	'example',
	'examples',
	'x-examples',
	'externalDocs',
]);
/** Keys of no use to a validator. */
const DROPPED = new Set(['security', 'servers', 'tags', 'x-internal']);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Keys whose value is a map from names (of properties, schemas, paths, statuses, media types) to objects. */
const MAPS_OF_NAMES = new Set([
	'properties',
	'schemas',
	'parameters',
	'responses',
	'paths',
	'content',
]);

const isMap = (value: Json | undefined): value is { [key: string]: Json } =>
	value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * The reference without its prose. The keys of a map of names are all kept (a property may be called
 * `description`); an operation (an object with an `operationId`) keeps its one-line `summary`, and the
 * `examples` of its error answers' media types (withErrorExamples).
 */
export function withoutProse(value: Json): Json {
	if (Array.isArray(value)) return value.map(withoutProse);
	if (value === null || typeof value !== 'object') return value;
	const isOperation = 'operationId' in value;
	const result: { [key: string]: Json } = {};
	for (const [key, inner] of Object.entries(value)) {
		if (DROPPED.has(key)) continue;
		if (PROSE.has(key) && !(isOperation && key === 'summary')) continue;
		if (isOperation && key === 'responses' && isMap(inner)) result[key] = withErrorExamples(inner);
		else
			result[key] =
				MAPS_OF_NAMES.has(key) && isMap(inner) ? withoutProseMap(inner) : withoutProse(inner);
	}
	return result;
}

/**
 * An operation's answers without their prose, except the `examples` of an error answer's (a status other than
 * 2xx) media types, kept verbatim: they are the API's error texts (`{ message, error, statusCode }`, or a text).
 */
function withErrorExamples(responses: { [status: string]: Json }): Json {
	const result: { [status: string]: Json } = {};
	for (const [status, response] of Object.entries(responses)) {
		const kept = withoutProse(response);
		const content = isMap(response) ? response.content : undefined;
		if (!/^2/.test(status) && isMap(kept) && isMap(kept.content) && isMap(content))
			for (const [mediaType, media] of Object.entries(content))
				if (isMap(media) && media.examples !== undefined && isMap(kept.content[mediaType]))
					(kept.content[mediaType] as { [key: string]: Json }).examples = media.examples;
		result[status] = kept;
	}
	return result;
}

function withoutProseMap(map: { [key: string]: Json }): Json {
	const result: { [key: string]: Json } = {};
	for (const [name, inner] of Object.entries(map)) result[name] = withoutProse(inner);
	return result;
}

export function contractFrom(reference: Record<string, Json>, commit: string | undefined) {
	const provenance = (reference['x-apievangelist-provenance'] ?? {}) as Record<string, Json>;
	const components = withoutProse(reference.components ?? {}) as Record<string, Json>;
	delete components.securitySchemes;
	return {
		$comment:
			'The provider API reference, as the package uses it: its per-operation OpenAPI 3.1 slices with prose and examples left out, except the examples of error answers (docs/api-contract.md says how it was made, how to refresh it, and where it and the specification disagree). Validated with ajv by api/contract.ts.',
		source: {
			repository: 'api-evangelist/karmacheck',
			path: 'openapi/_original/karmacheck-api-openapi.yml',
			commit: commit ?? null,
			assembled: provenance.assembled ?? null,
			slices: provenance.slices_merged ?? null,
		},
		openapi: reference.openapi,
		paths: withoutProseMap((reference.paths ?? {}) as { [key: string]: Json }),
		components: {
			...components,
			// The slices refer to a `language` path parameter that none of them defines.
			parameters: {
				...((components.parameters as Record<string, Json>) ?? {}),
				language: { name: 'language', in: 'path', required: true, schema: { type: 'string' } },
			},
		},
	};
}

if (require.main === module) {
	const [path, ...rest] = process.argv.slice(2);
	if (!path) {
		console.error(
			'usage: npm run contract:refresh -- path/to/karmacheck-api-openapi.yml [--commit <sha>]',
		);
		process.exit(2);
	}
	const commitAt = rest.indexOf('--commit');
	const commit = commitAt >= 0 ? rest[commitAt + 1] : undefined;
	const reference = parse(readFileSync(path, 'utf8')) as Record<string, Json>;
	writeFileSync(CONTRACT_PATH, `${JSON.stringify(contractFrom(reference, commit), null, '\t')}\n`);
	console.log(`wrote ${CONTRACT_PATH}`);
}
