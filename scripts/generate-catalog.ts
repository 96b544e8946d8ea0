/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- repository tooling: runs in Node.js, never inside n8n */
/**
 * Generates nodes/shared/catalog.generated.ts from the API specification's tables, so that service IDs,
 * status IDs and delivery limits exist exactly once and match the spec word for word.
 *
 *   npx tsx scripts/generate-catalog.ts [path/to/background-check-api.md]   (writes the file)
 *   npx tsx scripts/generate-catalog.ts --check                             (exit 1 if out of date)
 */
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { resolve } from 'node:path';

export const DEFAULT_SPEC_PATH = resolve(__dirname, '../../shared/spec/background-check-api.md');
export const GENERATED_PATH = resolve(__dirname, '../nodes/shared/catalog.generated.ts');

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
	if (/^(Education|Employment|Employment Income) Verification$/.test(name)) return 'service-cat-verification';
	if (/Professional License/.test(name)) return 'service-cat-pro-lic';
	return undefined;
}

const TYPE_FOR_CATEGORY: Record<string, string | undefined> = {
	'service-cat-idv': 'service-type-idv',
};

export function generateCatalogSource(markdown: string): string {
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
	const subcategoryRow = typeAndCategoryRows.find(([kind]) => kind.startsWith('Subcategories of OHS'));
	if (!subcategoryRow) throw new Error('OHS subcategories row not found');
	const subcategoryNames = subcategoryRow[0].replace(/^Subcategories of OHS: /, '').split(/, /);
	const subcategoryIds = subcategoryRow[1].split(/, /);
	const subcategories = subcategoryNames.map((name, i) => ({ name, id: subcategoryIds[i] }));

	const services: Array<Record<string, string>> = [];
	for (const [name, id] of tableRows(section(markdown, '**Service IDs (non-drug)**'))) {
		const categoryId = categoryFromName(name);
		const typeId = categoryId ? TYPE_FOR_CATEGORY[categoryId] : undefined;
		services.push({ id, name, ...(typeId ? { typeId } : {}), ...(categoryId ? { categoryId } : {}) });
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

	const limits = new Map(tableRows(section(markdown, '## 8. Limits')).map(([k, v]) => [stripTicks(k), v]));
	const retryDelaysSeconds = [2, 3, 4, 5, 6, 7, 8].map((attempt) =>
		durationSeconds(limits.get(`Delay before attempt ${attempt}`)),
	);
	const attempts = Number(limits.get('Webhook delivery attempts')?.match(/^(\d+)/)?.[1]);
	const deadline = durationSeconds(limits.get('Webhook response deadline'));
	const tolerance = durationSeconds(limits.get('Signature timestamp tolerance')?.replace(/ \(.*\)$/, ''));
	const staffingAgencyMax = Number(limits.get('staffingAgency length')?.match(/(\d+)/)?.[1]);
	if (retryDelaysSeconds.length !== attempts - 1) throw new Error('Retry delays do not match attempts');

	const json = (value: unknown) => JSON.stringify(value, null, '\t');
	return `// Generated by scripts/generate-catalog.ts from the API specification. Do not edit by hand.

export const SERVICE_TYPES = ${json(serviceTypes)} as const;

export const SERVICE_CATEGORIES = ${json(categories)} as const;

export const OHS_SUBCATEGORIES = ${json(subcategories)} as const;

export const SERVICES: ReadonlyArray<{
	id: string;
	name: string;
	typeId?: string;
	categoryId?: string;
	subcategoryId?: string;
	note?: string;
}> = ${json(services)};

/** Drug-panel service IDs follow these patterns; the full list of panel codes is not in the spec. */
export const DRUG_PANEL_ID_PATTERNS: readonly RegExp[] = [
	/^drug-service-(?:\\d+N?|H17P)-panel$/,
	/^service-drug-(?:\\d+N?|H17P)-panel$/,
];

export const CASE_DATA_STATUSES = ${json(caseDataStatuses)} as const;

export const PENDING_STATUSES = ${json(pendingStatuses)} as const;

export const CASE_STATUS_SEQUENCE = ${json(caseStatusSequence)} as const;

/** Delays before delivery attempts 2 to ${attempts}. */
export const WEBHOOK_RETRY_DELAYS_SECONDS: readonly number[] = ${JSON.stringify(retryDelaysSeconds)};
export const WEBHOOK_DELIVERY_ATTEMPTS = ${attempts};
export const WEBHOOK_RESPONSE_DEADLINE_SECONDS = ${deadline};
export const SIGNATURE_TOLERANCE_SECONDS = ${tolerance};
export const STAFFING_AGENCY_MAX_LENGTH = ${staffingAgencyMax};
`;
}

/** The spec gives OHS services by ID only; their display names are the ID's words. */
const ACRONYMS = new Set(['cbc', 'cxr', 'pft', 'resp', 'osha', 'tb', 'ppd', 'hep', 'mmr', 'igg', 'ab', 'tdap', 'var', 'hbsab']);
function ohsServiceName(id: string, subcategoryName: string): string {
	const words = id
		.replace(/^service-(ohs-(tb-)?|titer-|vacc-)/, '')
		.split('-')
		.map((word) => (ACRONYMS.has(word) ? word.toUpperCase() : word[0].toUpperCase() + word.slice(1)));
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
	const specPath = args.find((a) => !a.startsWith('--')) ?? DEFAULT_SPEC_PATH;
	if (!existsSync(specPath)) {
		console.error(`Spec not found at ${specPath}`);
		process.exit(2);
	}
	const source = generateCatalogSource(readFileSync(specPath, 'utf8'));
	if (check) {
		const current = existsSync(GENERATED_PATH) ? readFileSync(GENERATED_PATH, 'utf8') : '';
		if (current !== source) {
			console.error('nodes/shared/catalog.generated.ts is out of date: run npx tsx scripts/generate-catalog.ts');
			process.exit(1);
		}
		console.log('catalog is up to date');
	} else {
		writeFileSync(GENERATED_PATH, source);
		console.log(`wrote ${GENERATED_PATH}`);
	}
}
