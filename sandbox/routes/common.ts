/** Helpers every API route file uses: group-scoped lookups, body checks and pagination. */
import { isKnownServiceId } from '../../nodes/shared/catalog';
import { findBodyViolations } from '../../nodes/shared/bodyRules';
import { wholeNumberIn } from '../../nodes/shared/values';
import { badRequest, forbidden, invalidCase, notFound, type Route } from '../http';
import type { ApiClient, CaseDataRecord, CaseRecord } from '../state';
import type { SandboxContext } from '../world';

export type ApiRoute = Route<ApiClient, SandboxContext>;

/** The case if the caller's group owns it: unknown is a 404 `Invalid case`, another group's a 403. */
export function requireOwnCase(
	context: SandboxContext,
	caller: ApiClient,
	caseId: string,
): CaseRecord {
	const record = context.world.store.cases.get(caseId);
	if (!record) throw invalidCase();
	if (record.groupProfileId !== caller.groupProfileId) {
		throw forbidden(`Case ${caseId} belongs to another group or is not accessible with this token`);
	}
	return record;
}

export function requireOwnCaseData(
	context: SandboxContext,
	caller: ApiClient,
	caseDataId: string,
): { record: CaseRecord; caseData: CaseDataRecord } {
	const caseData = context.world.store.caseData.get(caseDataId);
	if (!caseData) throw notFound(`No case data ${caseDataId}`);
	return { record: requireOwnCase(context, caller, caseData.caseId), caseData };
}

/** Collects every problem with a body so one 400 can report them all. */
export class BodyProblems {
	private readonly problems: string[] = [];

	add(problem: string): void {
		this.problems.push(problem);
	}

	/**
	 * `staffingAgency` length and, with `names` (spec 7: case creation, aliases, the candidate-info update;
	 * no other body), name characters.
	 */
	checkBody(body: unknown, names: boolean): void {
		for (const violation of findBodyViolations(body, { names })) this.add(violation.message);
	}

	checkServiceId(path: string, id: unknown): void {
		if (typeof id !== 'string' || !isKnownServiceId(id)) {
			this.add(`${path} ${JSON.stringify(id)} is not a known service ID`);
		}
	}

	checkArray(
		path: string,
		value: unknown,
		isItem: (item: unknown) => boolean,
		itemDescription: string,
	): void {
		if (value !== undefined && !(Array.isArray(value) && value.every(isItem))) {
			this.add(`${path} must be an array of ${itemDescription}`);
		}
	}

	/** `secureDocumentIds` must name documents the caller's group created. */
	checkSecureDocumentIds(
		path: string,
		ids: unknown,
		context: SandboxContext,
		caller: ApiClient,
	): void {
		if (ids === undefined) return;
		if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string')) {
			this.add(`${path} must be an array of secure document IDs`);
			return;
		}
		for (const id of ids) {
			const document = context.world.store.secureDocuments.get(id);
			if (!document || document.groupProfileId !== caller.groupProfileId) {
				this.add(`${path} names ${id}, which is not a secure document of this group`);
			}
		}
	}

	/** Throws the 400 `{ message: [...], error, statusCode }` when anything was found. */
	throwIfAny(): void {
		if (this.problems.length > 0) throw badRequest(this.problems);
	}
}

export const isString = (value: unknown): value is string => typeof value === 'string';

export const DEFAULT_PAGE_SIZE = 10;
const MAX_PAGE_SIZE = 100;

export interface ListMetadata {
	page: number;
	pageSize: number;
	totalCount: number;
	totalPages: number;
}

function pageNumber(
	value: unknown,
	name: string,
	fallback: number,
	min: number,
	max: number,
): number {
	if (value === undefined || value === null || value === '') return fallback;
	const number = wholeNumberIn(value, min, max);
	if (number === undefined) throw badRequest(`${name} must be an integer from ${min} to ${max}`);
	return number;
}

/** One page of a list; `page` is 0-based, `pageSize` defaults to 10. */
export function paginate<Item>(
	items: Item[],
	page: unknown,
	pageSize: unknown,
): { items: Item[]; listMetadata: ListMetadata } {
	const size = pageNumber(pageSize, 'pageSize', DEFAULT_PAGE_SIZE, 1, MAX_PAGE_SIZE);
	const index = pageNumber(page, 'page', 0, 0, Number.MAX_SAFE_INTEGER);
	return {
		items: items.slice(index * size, (index + 1) * size),
		listMetadata: {
			page: index,
			pageSize: size,
			totalCount: items.length,
			totalPages: Math.ceil(items.length / size),
		},
	};
}
