/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- repository tooling: runs in Node.js, never inside n8n */
/**
 * The API's facts (service and status IDs, endpoints, limits) live in api/facts.json, which this project writes
 * from the API specification's tables; nodes/shared/catalog.generated.ts is generated from that file, so every
 * ID exists once and matches the spec word for word.
 *
 *   npm run generate:catalog                                   catalog.generated.ts from api/facts.json
 *   npm run generate:catalog -- --from-spec [path/to/spec.md]  api/facts.json from the spec, then the catalog
 *   npx tsx scripts/generate-catalog.ts [path/to/spec.md] --check
 *       exit 1 if the catalog is not what api/facts.json gives, or (when the spec is there) if api/facts.json is
 *       not what the spec says
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

export const DEFAULT_SPEC_PATH = resolve(__dirname, '../../shared/spec/background-check-api.md');
export const FACTS_PATH = resolve(__dirname, '../api/facts.json');
export const GENERATED_PATH = resolve(__dirname, '../nodes/shared/catalog.generated.ts');
export const CONTRACT_PATH = resolve(__dirname, '../api/contract.json');

interface NamedId {
	name: string;
	id: string;
}

/**
 * The reference lists each set of status IDs beside the set of their names, in the same order (the service
 * types confirm it: `service-type-payment` stands where `Payment` does); paired by position.
 */
function pairs(
	schemas: Record<string, { enum?: string[] }>,
	ids: string,
	names: string,
): NamedId[] {
	const idList = schemas[ids]?.enum ?? [];
	const nameList = schemas[names]?.enum ?? [];
	if (idList.length === 0 || idList.length !== nameList.length)
		throw new Error(`api/contract.json: ${ids} and ${names} do not pair`);
	return idList.map((id, index) => ({ name: nameList[index], id }));
}

/** What the catalog takes from the API reference (api/contract.json). */
export function referenceFacts(contract: {
	components: { schemas: Record<string, { enum?: string[] }> };
}) {
	const schemas = contract.components.schemas;
	return {
		serviceTypes: pairs(schemas, 'ServiceTypeId', 'ServiceTypeName'),
		caseStatuses: pairs(schemas, 'CaseStatusID', 'CaseStatus'),
		secondaryCaseStatuses: pairs(schemas, 'CaseSecondaryStatusID', 'CaseSecondaryStatus'),
		caseResults: pairs(schemas, 'CaseResultID', 'CaseResult'),
		pendingStatuses: pairs(schemas, 'CaseDataPendingStatusID', 'CaseDataPendingStatus'),
		serviceCategories: pairs(schemas, 'ServiceCategoryId', 'ServiceCategory'),
	};
}

export function readContractFacts() {
	return referenceFacts(JSON.parse(readFileSync(CONTRACT_PATH, 'utf8')));
}

type Row = string[];

function section(markdown: string, heading: string): string {
	const start = markdown.indexOf(heading);
	if (start < 0) throw new Error(`Spec heading not found: ${heading}`);
	const rest = markdown.slice(start + heading.length);
	const next = rest.search(/\n#{2,4} |\n\*\*/);
	return next < 0 ? rest : rest.slice(0, next);
}

function tableRows(text: string): Row[] {
	return text
		.split('\n')
		.filter((line) => line.startsWith('|'))
		.slice(2) // header and separator
		.map((line) =>
			line
				.slice(1, -1)
				.split('|')
				.map((cell) => cell.trim()),
		);
}

const stripTicks = (value: string) => value.replace(/`/g, '');

/**
 * The spec lists categories but does not say which category each non-drug service belongs to. Only where a
 * service's own name names its category is one assigned; everything else stays uncategorised.
 */
function categoryFromName(name: string): string | undefined {
	if (/Identity/.test(name)) return 'service-cat-idv';
	if (/Motor Vehicle/.test(name)) return 'service-cat-mvr';
	if (/Criminal/.test(name)) return 'service-cat-criminal';
	if (/^(Education|Employment|Employment Income) Verification$/.test(name))
		return 'service-cat-verification';
	if (/Professional License/.test(name)) return 'service-cat-pro-lic';
	return undefined;
}

const TYPE_FOR_CATEGORY: Record<string, string | undefined> = {
	'service-cat-idv': 'service-type-idv',
};

export type ApiFacts = ReturnType<typeof factsFromSpec>;

/** What the specification's tables say, as api/facts.json holds it. */
export function factsFromSpec(markdown: string) {
	const typeAndCategoryRows = tableRows(section(markdown, '**Service types and categories**'));
	const serviceTypes = typeAndCategoryRows
		.filter(([kind]) => kind.startsWith('Type: '))
		.map(([kind, id]) => ({
			name: kind.replace('Type: ', ''),
			id: /^[a-z-]+$/.test(id) ? id : null, // "GUID-form ID (legacy)": the ID itself is not in the spec
		}));
	const categories = typeAndCategoryRows
		.filter(([kind]) => kind.startsWith('Category: '))
		.map(([kind, id]) => ({ name: kind.replace('Category: ', ''), id }));
	const subcategoryRow = typeAndCategoryRows.find(([kind]) =>
		kind.startsWith('Subcategories of OHS'),
	);
	if (!subcategoryRow) throw new Error('OHS subcategories row not found');
	const subcategoryNames = subcategoryRow[0].replace(/^Subcategories of OHS: /, '').split(/, /);
	const subcategoryIds = subcategoryRow[1].split(/, /);
	const subcategories = subcategoryNames.map((name, i) => ({ name, id: subcategoryIds[i] }));

	const services: Array<Record<string, string>> = [];
	for (const [name, id] of tableRows(section(markdown, '**Service IDs (non-drug)**'))) {
		const categoryId = categoryFromName(name);
		const typeId = categoryId ? TYPE_FOR_CATEGORY[categoryId] : undefined;
		services.push({
			id,
			name,
			...(typeId ? { typeId } : {}),
			...(categoryId ? { categoryId } : {}),
		});
	}

	const ohsRows = tableRows(section(markdown, '**OHS service IDs**'));
	const drugNamedIds: string[] = [];
	for (const [subcategoryName, ids] of ohsRows) {
		const subcategory = subcategories.find((s) => s.name === subcategoryName);
		if (!subcategory) throw new Error(`Unknown OHS subcategory ${subcategoryName}`);
		if (subcategoryName === 'Drug Screening') {
			const named = ids.match(/Named IDs also exist: ([^.]+)\./);
			if (!named) throw new Error('Named drug IDs not found');
			drugNamedIds.push(...named[1].split(/, /).map((s) => s.trim()));
			continue;
		}
		for (const entry of ids.split(/, (?=service-)/)) {
			const match = entry.match(/^(\S+)(?: \((.+)\))?$/);
			if (!match) throw new Error(`Unparsed OHS entry ${entry}`);
			services.push({
				id: match[1],
				name: ohsServiceName(match[1], subcategoryName),
				categoryId: 'service-cat-ohs',
				subcategoryId: subcategory.id,
				...(match[2] ? { note: match[2] } : {}),
			});
		}
	}
	const drugSubcategory = subcategories.find((s) => s.name === 'Drug Screening')!;
	for (const id of drugNamedIds) {
		services.push({
			id,
			name: `Drug Screening: ${id.replace(/^service-drug-/, '').replace(/-/g, ' ')}`,
			categoryId: 'service-cat-ohs',
			subcategoryId: drugSubcategory.id,
		});
	}

	const caseDataStatuses = tableRows(section(markdown, '### 3.1 Case data status')).map(
		([status, statusId, meaning]) => ({ status, statusId, meaning }),
	);
	const pendingStatuses = tableRows(section(markdown, '### 3.2 Pending status (case data)')).map(
		([name, pendingStatusId, appliesTo]) => ({ name, pendingStatusId, appliesTo }),
	);
	const caseStatusSequence = tableRows(section(markdown, '### 3.3 Case status')).map(
		([step, caseStatus, secondaryStatus, meaning]) => ({
			step: Number(step),
			caseStatus,
			secondaryStatus: secondaryStatus === 'null' ? null : secondaryStatus,
			meaning,
		}),
	);

	const limits = new Map(
		tableRows(section(markdown, '## 8. Limits')).map(([k, v]) => [stripTicks(k), v]),
	);
	const retryDelaysSeconds = [2, 3, 4, 5, 6, 7, 8].map((attempt) =>
		durationSeconds(limits.get(`Delay before attempt ${attempt}`)),
	);
	const attempts = Number(limits.get('Webhook delivery attempts')?.match(/^(\d+)/)?.[1]);
	const deadline = durationSeconds(limits.get('Webhook response deadline'));
	const tolerance = durationSeconds(
		limits.get('Signature timestamp tolerance')?.replace(/ \(.*\)$/, ''),
	);
	const staffingAgencyMax = Number(limits.get('staffingAgency length')?.match(/(\d+)/)?.[1]);
	if (retryDelaysSeconds.length !== attempts - 1)
		throw new Error('Retry delays do not match attempts');

	const endpoints = [
		...[...markdown.matchAll(/^### 4\.\d+ (GET|POST|PUT) (\S+)$/gm)].map(([, method, path]) => ({
			method,
			path,
		})),
		...tableRows(section(markdown, '### 4.3 Other endpoints referenced')).map(([method, path]) => ({
			method,
			path,
		})),
	];

	return {
		specVersion: /carries version `([^`]+)`/.exec(markdown)?.[1] ?? null,
		serviceTypes,
		serviceCategories: categories,
		ohsSubcategories: subcategories,
		services,
		/** Drug-panel service IDs follow these patterns; the full list of panel codes is not in the spec. */
		drugPanelIdPatterns: [
			'^drug-service-(?:\\d+N?|H17P)-panel$',
			'^service-drug-(?:\\d+N?|H17P)-panel$',
		],
		caseDataStatuses,
		pendingStatuses,
		caseStatusSequence,
		endpoints,
		limits: {
			webhookRetryDelaysSeconds: retryDelaysSeconds,
			webhookDeliveryAttempts: attempts,
			webhookResponseDeadlineSeconds: deadline,
			signatureToleranceSeconds: tolerance,
			staffingAgencyMaxLength: staffingAgencyMax,
		},
	};
}

export function factsSource(facts: ApiFacts): string {
	return `${JSON.stringify(facts, null, '\t')}\n`;
}

/** nodes/shared/catalog.generated.ts for these facts. */
export function catalogSource(
	facts: ApiFacts,
	reference: ReturnType<typeof referenceFacts> = readContractFacts(),
): string {
	const json = (value: unknown) => JSON.stringify(value, null, '\t');
	const { limits } = facts;
	return `// Generated by scripts/generate-catalog.ts from api/facts.json and api/contract.json. Do not edit by hand.

/** Service types with the IDs the API reference lists (the spec gives Screening's as a GUID without its value). */
export const SERVICE_TYPES = ${json(reference.serviceTypes)} as const;

/** Case statuses (the reference's IDs; the spec names Pending and Complete without IDs). */
export const CASE_STATUSES = ${json(reference.caseStatuses)} as const;

export const SECONDARY_CASE_STATUSES = ${json(reference.secondaryCaseStatuses)} as const;

export const CASE_RESULTS = ${json(reference.caseResults)} as const;

/** The pending statuses the reference's case data may carry, named as it names them (spec 3.2 lists six more). */
export const REFERENCE_PENDING_STATUSES = ${json(reference.pendingStatuses)} as const;

/** Service categories as the reference's case data names them (it adds Payment to spec 2.4's). */
export const REFERENCE_SERVICE_CATEGORIES = ${json(reference.serviceCategories)} as const;

export const SERVICE_CATEGORIES = ${json(facts.serviceCategories)} as const;

export const OHS_SUBCATEGORIES = ${json(facts.ohsSubcategories)} as const;

export const SERVICES: ReadonlyArray<{
	id: string;
	name: string;
	typeId?: string;
	categoryId?: string;
	subcategoryId?: string;
	note?: string;
}> = ${json(facts.services)};

/** Drug-panel service IDs follow these patterns; the full list of panel codes is not in the spec. */
export const DRUG_PANEL_ID_PATTERNS: readonly RegExp[] = [
${facts.drugPanelIdPatterns.map((pattern) => `\t/${pattern}/,`).join('\n')}
];

export const CASE_DATA_STATUSES = ${json(facts.caseDataStatuses)} as const;

export const PENDING_STATUSES = ${json(facts.pendingStatuses)} as const;

export const CASE_STATUS_SEQUENCE = ${json(facts.caseStatusSequence)} as const;

/** Delays before delivery attempts 2 to ${limits.webhookDeliveryAttempts}. */
export const WEBHOOK_RETRY_DELAYS_SECONDS: readonly number[] = ${JSON.stringify(limits.webhookRetryDelaysSeconds)};
export const WEBHOOK_DELIVERY_ATTEMPTS = ${limits.webhookDeliveryAttempts};
export const WEBHOOK_RESPONSE_DEADLINE_SECONDS = ${limits.webhookResponseDeadlineSeconds};
export const SIGNATURE_TOLERANCE_SECONDS = ${limits.signatureToleranceSeconds};
export const STAFFING_AGENCY_MAX_LENGTH = ${limits.staffingAgencyMaxLength};
`;
}

export function readFacts(): ApiFacts {
	return JSON.parse(readFileSync(FACTS_PATH, 'utf8'));
}

/** The spec gives OHS services by ID only; their display names are the ID's words. */
const ACRONYMS = new Set([
	'cbc',
	'cxr',
	'pft',
	'resp',
	'osha',
	'tb',
	'ppd',
	'hep',
	'mmr',
	'igg',
	'ab',
	'tdap',
	'var',
	'hbsab',
]);
function ohsServiceName(id: string, subcategoryName: string): string {
	const words = id
		.replace(/^service-(ohs-(tb-)?|titer-|vacc-)/, '')
		.split('-')
		.map((word) =>
			ACRONYMS.has(word) ? word.toUpperCase() : word[0].toUpperCase() + word.slice(1),
		);
	return `${subcategoryName}: ${words.join(' ')}`;
}

function durationSeconds(text: string | undefined): number {
	const match = text?.match(/^(\d+) (second|minute|hour)s?$/);
	if (!match) throw new Error(`Unparsed duration: ${text}`);
	const unit = { second: 1, minute: 60, hour: 3600 }[match[2] as 'second' | 'minute' | 'hour'];
	return Number(match[1]) * unit;
}

if (require.main === module) {
	const args = process.argv.slice(2);
	const check = args.includes('--check');
	const fromSpec = args.includes('--from-spec');
	const specPath = args.find((a) => !a.startsWith('--')) ?? DEFAULT_SPEC_PATH;
	if (fromSpec && !existsSync(specPath)) {
		console.error(`Spec not found at ${specPath}`);
		process.exit(2);
	}
	if (check) {
		let outOfDate = false;
		if (existsSync(specPath)) {
			if (
				readFileSync(FACTS_PATH, 'utf8') !==
				factsSource(factsFromSpec(readFileSync(specPath, 'utf8')))
			) {
				console.error(
					`api/facts.json does not say what ${specPath} says: run npm run generate:catalog -- --from-spec`,
				);
				outOfDate = true;
			} else console.log('api/facts.json matches the spec');
		} else console.log(`api/facts.json not checked against the spec: no spec at ${specPath}`);
		const current = existsSync(GENERATED_PATH) ? readFileSync(GENERATED_PATH, 'utf8') : '';
		if (current !== catalogSource(readFacts())) {
			console.error(
				'nodes/shared/catalog.generated.ts is out of date: run npm run generate:catalog',
			);
			outOfDate = true;
		} else console.log('catalog is up to date');
		process.exit(outOfDate ? 1 : 0);
	}
	if (fromSpec) {
		writeFileSync(FACTS_PATH, factsSource(factsFromSpec(readFileSync(specPath, 'utf8'))));
		console.log(`wrote ${FACTS_PATH}`);
	}
	writeFileSync(GENERATED_PATH, catalogSource(readFacts()));
	console.log(`wrote ${GENERATED_PATH}`);
}
