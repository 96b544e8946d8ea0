/**
 * The watchdog's reads (nodes/BackgroundCheckTrigger/watchdog.ts) against a sandbox, with the bearer token of
 * one demo group, counting the calls: what the trigger makes through n8n, without n8n. And the order of a case
 * with a given number of services, for the tests that create cases to watch.
 */
import { answerProblems, requestProblems } from '../../api/contract';
import type { CaseApi } from '../../nodes/BackgroundCheckTrigger/watchdogReads';
import { PACKAGES, type Sandbox } from '../../sandbox';
import { defaultPendingPath, serviceFields } from '../../sandbox/caseDataRecords';

export interface CountingCaseApi extends CaseApi {
	/** `METHOD path` of every call made, in order. */
	calls: string[];
	/** What the API reference says is wrong with a request made or a successful answer (api/contract.ts). */
	contractProblems: string[];
}

/** A bearer token of the sandbox's demo group `group`. */
export async function sandboxToken(sandbox: Sandbox, group = 0): Promise<string> {
	const { apiKey, clientAccessToken } = sandbox.demoCredentials[group];
	const auth = await fetch(`${sandbox.url}/auth/api`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ apiKey, clientAccessToken }),
	});
	return ((await auth.json()) as { token: string }).token;
}

export async function sandboxCaseApi(sandbox: Sandbox, group = 0): Promise<CountingCaseApi> {
	const token = await sandboxToken(sandbox, group);
	const calls: string[] = [];
	const contractProblems: string[] = [];
	const get = async (path: string) => {
		calls.push(`GET ${path}`);
		const headers = { authorization: `Bearer ${token}` };
		const request = requestProblems({ method: 'GET', path, headers });
		contractProblems.push(...request.map((problem) => `GET ${path}: ${problem}`));
		const response = await fetch(`${sandbox.url}${path}`, { headers });
		const text = await response.text();
		if (!response.ok) throw new Error(`GET ${path}: HTTP ${response.status} ${text}`);
		const body = JSON.parse(text) as unknown;
		const contentType = response.headers.get('content-type') ?? undefined;
		const answer = answerProblems('GET', path, response.status, contentType, body);
		contractProblems.push(...answer.map((problem) => `GET ${path} answered: ${problem}`));
		return body;
	};
	const casePath = (caseId: string) => `/case/id/${encodeURIComponent(caseId)}`;
	return {
		calls,
		contractProblems,
		listCases: async () => await get('/case/list'),
		getCaseServices: async (caseId) => await get(`${casePath(caseId)}/services`),
		getCaseData: async (caseId, serviceTypeId) =>
			await get(`${casePath(caseId)}/data/${encodeURIComponent(serviceTypeId)}`),
	};
}

export interface CaseOrder {
	/** The CreateCase fields that order the services. */
	packageId: string;
	excludeServices: string[];
	/** In the order of the package (and of the case's services). */
	serviceIds: string[];
	/** The service types of the services, each once, in that order. */
	serviceTypeIds: string[];
	/** Services of the package left out, each of which Add Services can add later. */
	spare: string[];
}

const typeOf = (serviceId: string) => serviceFields(serviceId).serviceTypeId;

/**
 * `count` services of one sandbox package, each finished by the first transition of processing (no pending
 * statuses), of as many service types as the packages allow; the package's other services excluded.
 */
export function caseOrder(count: number): CaseOrder {
	const orders = PACKAGES.map(({ packageId, serviceIds }) => {
		const quick = serviceIds.filter((id) => defaultPendingPath(id).length === 0);
		// One service of each type first, then the others.
		const firstOfType = quick.filter(
			(id, index) => quick.findIndex((other) => typeOf(other) === typeOf(id)) === index,
		);
		const preferred = [...firstOfType, ...quick.filter((id) => !firstOfType.includes(id))];
		const chosen = serviceIds.filter((id) => preferred.slice(0, count).includes(id));
		return {
			packageId,
			excludeServices: serviceIds.filter((id) => !chosen.includes(id)),
			serviceIds: chosen,
			serviceTypeIds: [...new Set(chosen.map(typeOf))],
			spare: quick.filter((id) => !chosen.includes(id)),
		};
	}).filter((order) => order.serviceIds.length === count);
	const [best] = orders.sort((a, b) => b.serviceTypeIds.length - a.serviceTypeIds.length);
	if (!best) throw new Error(`No sandbox package has ${count} services without pending statuses`);
	return best;
}
