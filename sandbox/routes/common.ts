/** Helpers every API route file uses: group-scoped lookups, body checks and pagination. */
import { errorExample, findOperation } from '../../api/contract';
import { isKnownServiceId } from '../../nodes/shared/catalog';
import { findBodyViolations } from '../../nodes/shared/bodyRules';
import { wholeNumberIn } from '../../nodes/shared/values';
import { badRequest, httpError, notFound, type ApiRequest, type Route } from '../http';
import type { ApiClient, CaseDataRecord, CaseRecord } from '../state';
import type { SandboxContext } from '../world';

export type ApiRoute = Route<ApiClient, SandboxContext>;

/**
 * An error text the reference gives for an answer (api/contract.ts `errorExample`), read when the routes load:
 * a contract without it is a bug of the sandbox, so it fails at once.
 */
export function referenceText(
	method: string,
	template: string,
	status: number,
	name?: string,
): string {
	const text = errorExample(method, template, status, name);
	if (text === undefined)
		throw new Error(
			`api/contract.json gives no ${status} example ${name ?? ''} for ${method} ${template}`,
		);
	return text;
}

/**
 * The case if the caller's group owns it. An unknown case, or another group's, is refused as the reference
 * refuses it: 404 where the operation declares one ("case not found"), else 403; another group's case 403, or
 * 404 where the operation declares no 403 (the cancels).
 */
export function requireOwnCase(
	context: SandboxContext,
	request: Pick<ApiRequest<ApiClient>, 'method' | 'path' | 'principal'>,
	caseId: string = (request as ApiRequest<ApiClient>).params.caseId,
): CaseRecord {
	const record = context.world.store.cases.get(caseId);
	if (record && record.groupProfileId === request.principal.groupProfileId) return record;
	const responses = findOperation(request.method, request.path)?.operation.responses ?? {};
	if (responses['404'] !== undefined && (!record || responses['403'] === undefined))
		throw notFound(`Case ${caseId} was not found`);
	throw httpError(403, `Case ${caseId} is not accessible with this token`);
}

export function requireOwnCaseData(
	context: SandboxContext,
	caller: ApiClient,
	caseDataId: string,
): { record: CaseRecord; caseData: CaseDataRecord } {
	const caseData = context.world.store.caseData.get(caseDataId);
	const record = caseData && context.world.store.cases.get(caseData.caseId);
	if (!caseData || !record) throw notFound(`No case data ${caseDataId}`);
	if (record.groupProfileId !== caller.groupProfileId)
		throw httpError(403, `Case data ${caseDataId} is not accessible with this token`);
	return { record, caseData };
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

	/** Throws `{ message: [...], error, statusCode }` (400, or the status given) when anything was found. */
	throwIfAny(status = 400): void {
		if (this.problems.length > 0) throw httpError(status, this.problems);
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
