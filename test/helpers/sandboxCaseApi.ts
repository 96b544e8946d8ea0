/**
 * The watchdog's three reads (nodes/BackgroundCheckTrigger/watchdog.ts) against a sandbox, with the bearer
 * token of one demo group, counting the calls: what the trigger makes through n8n, without n8n.
 */
import type { CaseApi } from '../../nodes/BackgroundCheckTrigger/watchdog';
import type { Sandbox } from '../../sandbox';

export interface CountingCaseApi extends CaseApi {
	/** `METHOD path?query` of every call made, in order. */
	calls: string[];
}

export async function sandboxCaseApi(
	sandbox: Sandbox,
	group = 0,
	pageSize = 100,
): Promise<CountingCaseApi> {
	const { apiKey, clientAccessToken } = sandbox.demoCredentials[group];
	const auth = await fetch(`${sandbox.url}/auth/api`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ apiKey, clientAccessToken }),
	});
	const { token } = (await auth.json()) as { token: string };
	const calls: string[] = [];
	const get = async (path: string) => {
		calls.push(`GET ${path}`);
		const response = await fetch(`${sandbox.url}${path}`, {
			headers: { authorization: `Bearer ${token}` },
		});
		const text = await response.text();
		if (!response.ok) throw new Error(`GET ${path}: HTTP ${response.status} ${text}`);
		return JSON.parse(text) as unknown;
	};
	return {
		calls,
		listPage: async (page) => await get(`/case/list?page=${page}&pageSize=${pageSize}`),
		getCase: async (caseId) => await get(`/case/id/${encodeURIComponent(caseId)}`),
		getCaseData: async (caseId, serviceTypeId) =>
			await get(`/case/id/${encodeURIComponent(caseId)}/data/${encodeURIComponent(serviceTypeId)}`),
	};
}
