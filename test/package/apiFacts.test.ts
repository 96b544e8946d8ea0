/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- repository tooling: runs in Node.js, never inside n8n */
/**
 * The API's facts live in the repository (api/facts.json, written by this project from the
 * specification) and the catalog the nodes use is generated from them.
 *
 * The specification itself lives outside the repository (BGC_API_SPEC, default ../shared/spec). Where it is
 * not, the comparison with it is skipped, visibly: the skipped test's name says why and jest counts it as
 * skipped (npm test's last line shows it). It is not a failure because a public clone (GitHub's CI) has no
 * spec; BGC_REQUIRE_SPEC=1 makes a missing spec a failure, for machines that must have it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';

import { listOperations } from '../../api/contract';
import { join, resolve } from 'node:path';

import {
	catalogSource,
	DEFAULT_SPEC_PATH,
	factsFromSpec,
	factsSource,
	FACTS_PATH,
	GENERATED_PATH,
	readFacts,
} from '../../scripts/generate-catalog';

const root = join(__dirname, '..', '..');
const spec = resolve(process.env.BGC_API_SPEC ?? DEFAULT_SPEC_PATH);
const facts = readFacts();

describe('api/facts.json', () => {
	it('generates nodes/shared/catalog.generated.ts (npm run generate:catalog)', () => {
		expect(readFileSync(GENERATED_PATH, 'utf8')).toBe(catalogSource(facts));
	});

	if (existsSync(spec)) {
		it(`says what the specification says (${spec})`, () => {
			expect(readFileSync(FACTS_PATH, 'utf8')).toBe(
				factsSource(factsFromSpec(readFileSync(spec, 'utf8'))),
			);
		});
	} else if (process.env.BGC_REQUIRE_SPEC === '1') {
		it('says what the specification says', () => {
			throw new Error(
				`BGC_REQUIRE_SPEC=1 but there is no specification at ${spec} (set BGC_API_SPEC)`,
			);
		});
	} else {
		it.skip(`says what the specification says: SKIPPED, no specification at ${spec} (set BGC_API_SPEC)`, () =>
			undefined);
	}

	it('has every endpoint the nodes and the credential call as an operation of the API reference (api/contract.json)', () => {
		const listed = new Set(
			listOperations().map((operation) => operation.replace(/\{\w+\}/g, '{}')),
		);
		const called = new Set<string>();
		for (const folder of ['nodes', 'credentials']) {
			for (const file of readdirSync(join(root, folder), { recursive: true }).map(String)) {
				if (!file.endsWith('.ts')) continue;
				const source = readFileSync(join(root, folder, file), 'utf8');
				for (const [, method, path] of source.matchAll(
					/'(GET|POST|PUT|DELETE)',\s*apiPath`([^`]+)`/g,
				))
					called.add(`${method} ${path.replace(/\$\{[^}]+\}/g, '{}')}`);
				for (const [, path] of source.matchAll(/fetchList\.call\([^`]*apiPath`([^`]+)`/g))
					called.add(`GET ${path.replace(/\$\{[^}]+\}/g, '{}')}`);
				for (const [, method, path] of source.matchAll(
					/method: '(GET|POST|PUT)',\s*url: [`'](?:\$\{\w+\})?(\/[^`']*)[`']/g,
				))
					called.add(`${method} ${path}`);
				for (const [, path, method] of source.matchAll(
					/url: '(\/[^']*)',\s*method: '(GET|POST|PUT)'/g,
				))
					called.add(`${method} ${path}`);
			}
		}
		expect(called).toContain('POST /auth/api');
		expect(called.size).toBeGreaterThanOrEqual(15);
		expect([...called].filter((endpoint) => !listed.has(endpoint))).toEqual([]);
	});
});
