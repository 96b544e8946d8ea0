import type {
	IDataObject,
	ILoadOptionsFunctions,
	INodeListSearchItems,
	INodeListSearchResult,
} from 'n8n-workflow';

import { SERVICE_TYPES } from '../../shared/catalog';
import { recordsOf } from '../../shared/transport/listResponses';
import { apiPath, apiRequest } from '../../shared/transport';
import { currentId } from './current';

const matches = (filter: string | undefined, ...texts: Array<unknown>) =>
	!filter ||
	texts.some(
		(text) => typeof text === 'string' && text.toLowerCase().includes(filter.toLowerCase()),
	);

const joined = (separator: string, ...parts: unknown[]) =>
	parts.filter((part) => typeof part === 'string' && part !== '').join(separator);

/** "Given Family (Status / Secondary status)" for a case of GET /case/list. */
function caseLabel(record: IDataObject): string {
	const person =
		joined(' ', record.candidateGivenName, record.candidateFamilyName) ||
		joined(' ', record.invitationGivenName, record.invitationFamilyName) ||
		joined('', record.candidateEmail) ||
		joined('', record.invitationEmail) ||
		'Unnamed candidate';
	const status = joined(' / ', record.caseStatus, record.secondaryStatus);
	return status ? `${person} (${status})` : person;
}

/**
 * Cases for the Case picker: GET /case/list (the group's active cases, newest first; the API has no paging
 * and no search), filtered here on candidate name, email and case ID. Every match is returned at once.
 */
export async function searchCases(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const response = await apiRequest.call(this, 'GET', apiPath`/case/list`);
	const results: INodeListSearchItems[] = recordsOf(response, 'cases')
		.filter((record) => typeof record.id === 'string')
		.filter((record) =>
			matches(
				filter,
				record.id,
				record.candidateGivenName,
				record.candidateFamilyName,
				joined(' ', record.candidateGivenName, record.candidateFamilyName),
				record.candidateEmail,
			),
		)
		.map((record) => ({
			name: caseLabel(record),
			value: record.id as string,
			description: joined(
				' · ',
				record.id,
				record.candidateEmail,
				record.packageName,
				record.crStamp,
			),
		}));
	return { results };
}

/** Packages for the Package picker: GET /package/min/list, filtered here on name and ID. */
export async function searchPackages(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const response = await apiRequest.call(this, 'GET', apiPath`/package/min/list`);
	const results = recordsOf(response, 'packages')
		.filter((record) => typeof record.id === 'string')
		.filter((record) => matches(filter, record.id, record.name))
		.map((record) => ({
			name: joined('', record.name) || (record.id as string),
			value: record.id as string,
			description: record.id as string,
		}));
	return { results };
}

/** Professional licenses and certifications for the CPLC picker: GET /service/cplc/list. */
export async function searchCplcs(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const response = await apiRequest.call(this, 'GET', apiPath`/service/cplc/list`);
	const results = recordsOf(response, 'cplcList')
		.filter((record) => typeof record.id === 'string')
		.filter((record) => matches(filter, record.id, record.name, record.category))
		.map((record) => ({
			name: joined('', record.name) || (record.id as string),
			value: record.id as string,
			description: joined(
				' · ',
				record.category,
				record.id,
				record.enabled === false ? 'verification not enabled' : '',
			),
		}));
	return { results };
}

/**
 * Service types for Case > Get Data. With a case chosen, the types of its services (GET
 * /case/id/{caseId}/services, with the services of each type); without one, or when the case cannot be
 * read, the five types of the API.
 */
export async function searchServiceTypes(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const servicesByType = new Map<string, { name: string; services: string[] }>();
	const caseId = currentId(this, 'caseId');
	if (caseId !== undefined) {
		try {
			const response = await apiRequest.call(this, 'GET', apiPath`/case/id/${caseId}/services`);
			for (const service of recordsOf(response, 'serviceGroupServices')) {
				if (typeof service.serviceTypeId !== 'string') continue;
				const type = servicesByType.get(service.serviceTypeId) ?? {
					name:
						joined('', service.serviceTypeName) ||
						SERVICE_TYPES.find((known) => known.id === service.serviceTypeId)?.name ||
						service.serviceTypeId,
					services: [],
				};
				if (typeof service.serviceName === 'string') type.services.push(service.serviceName);
				servicesByType.set(service.serviceTypeId, type);
			}
		} catch {
			servicesByType.clear();
		}
	}
	if (servicesByType.size === 0) {
		for (const type of SERVICE_TYPES)
			servicesByType.set(type.id, { name: type.name, services: [] });
	}
	const results = [...servicesByType.entries()]
		.map(([serviceTypeId, type]) => ({
			name: type.name,
			value: serviceTypeId,
			description: joined(' · ', serviceTypeId, type.services.join(', ')),
		}))
		.filter((option) => matches(filter, option.name, option.value, option.description));
	return { results };
}
