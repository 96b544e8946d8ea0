import type {
	IDataObject,
	ILoadOptionsFunctions,
	INodeListSearchItems,
	INodeListSearchResult,
} from 'n8n-workflow';

import { SERVICE_TYPES, findService } from '../../shared/catalog';
import { recordsOf } from '../../shared/transport/listResponses';
import { apiPath, apiRequest } from '../../shared/transport';

interface CaseSummary extends IDataObject {
	id?: string;
	caseStatus?: string;
	secondaryStatus?: string | null;
	crStamp?: string;
	candidate?: { firstName?: string; lastName?: string; email?: string };
	services?: Array<{ serviceId?: string; serviceName?: string; serviceTypeId?: string }>;
}

function caseLabel(record: CaseSummary): string {
	const candidate = record.candidate ?? {};
	const person =
		[candidate.firstName, candidate.lastName].filter(Boolean).join(' ') ||
		candidate.email ||
		'Unnamed candidate';
	const status = [record.caseStatus, record.secondaryStatus].filter(Boolean).join(' / ');
	return status ? `${person} (${status})` : person;
}

const matches = (filter: string | undefined, ...texts: Array<string | undefined>) =>
	!filter || texts.some((text) => text?.toLowerCase().includes(filter.toLowerCase()));

/**
 * Cases for the Case picker: one page of GET /case/list per scroll (0-based `page`, the sandbox's
 * `listMetadata`), filtered here on candidate name, email and case ID since the spec shows no search
 * parameter.
 */
export async function searchCases(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const page = Number(paginationToken ?? 0);
	const response = (await apiRequest.call(this, 'GET', apiPath`/case/list`, { qs: { page } })) as {
		listMetadata?: { totalPages?: number };
	};
	const results: INodeListSearchItems[] = (recordsOf(response, 'caseList') as CaseSummary[])
		.filter((record) => typeof record.id === 'string')
		.filter((record) =>
			matches(
				filter,
				record.id,
				record.candidate?.firstName,
				record.candidate?.lastName,
				record.candidate?.email,
			),
		)
		.map((record) => ({
			name: caseLabel(record),
			value: record.id as string,
			description: [record.id, record.candidate?.email, record.crStamp].filter(Boolean).join(' · '),
		}));
	const totalPages = response?.listMetadata?.totalPages;
	return {
		results,
		paginationToken:
			typeof totalPages === 'number' && page + 1 < totalPages ? String(page + 1) : undefined,
	};
}

function serviceTypeName(serviceTypeId: string): string {
	return SERVICE_TYPES.find((type) => type.id === serviceTypeId)?.name ?? 'Screening (legacy GUID)';
}

/**
 * Service types for Case > Get Data. With a case chosen, the types of its services (so the Screening type's
 * GUID, which the spec does not give, is offered too); without one, the types the spec names.
 */
export async function searchServiceTypes(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const caseId = this.getCurrentNodeParameter('caseId', { extractValue: true });
	const servicesByType = new Map<string, string[]>();
	if (typeof caseId === 'string' && caseId.trim() !== '') {
		const record = (await apiRequest.call(this, 'GET', apiPath`/case/id/${caseId}`)) as CaseSummary;
		for (const service of record.services ?? []) {
			if (!service.serviceTypeId) continue;
			const name =
				service.serviceName ??
				(service.serviceId ? findService(service.serviceId)?.name : undefined) ??
				service.serviceId;
			servicesByType.set(service.serviceTypeId, [
				...(servicesByType.get(service.serviceTypeId) ?? []),
				name ?? '',
			]);
		}
	}
	if (servicesByType.size === 0) {
		for (const type of SERVICE_TYPES) if (type.id) servicesByType.set(type.id, []);
	}
	const results = [...servicesByType.entries()]
		.map(([serviceTypeId, services]) => ({
			name: serviceTypeName(serviceTypeId),
			value: serviceTypeId,
			description: [serviceTypeId, services.filter(Boolean).join(', ')].filter(Boolean).join(' · '),
		}))
		.filter((option) => matches(filter, option.name, option.value, option.description));
	return { results };
}
