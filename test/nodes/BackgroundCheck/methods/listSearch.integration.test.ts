/** The pickers of the editor: the Case list (GET /case/list, page by page) and the service types of a case. */
import { BackgroundCheck } from '../../../../nodes/BackgroundCheck/BackgroundCheck.node';
import { byId, createLoadOptionsContext } from '../../../helpers/executeContext';
import { createCase, useNodeSandbox } from '../../../helpers/nodeSandbox';

const EMPLOYMENT_VERIFICATION = '9ac65633-b4c4-4062-875c-3556db9d2a08';
const SCREENING_TYPE_OF_SANDBOX = '5b0c1a7e-3f1d-4c52-9d0e-6a8f2e4b7c10';

const { listSearch } = new BackgroundCheck().methods;

const context = useNodeSandbox();

function loadOptionsContext(parameters = {}) {
	return createLoadOptionsContext({
		parameters: { resource: 'case', operation: 'getData', ...parameters },
		credentials: context.credentials(),
	});
}

describe('searchCases', () => {
	it('lists the group’s cases by candidate and status, one API page per scroll', async () => {
		for (let index = 0; index < 11; index++)
			await createCase(context, { candidateFirstName: index === 4 ? 'Zelda' : 'Ann' });
		const firstPage = await listSearch.searchCases.call(loadOptionsContext());
		expect(firstPage.results).toHaveLength(10);
		expect(firstPage.results[0]).toMatchObject({
			name: "Ann O'Neil (Pending / Waiting for Authorization)",
			value: expect.any(String),
			description: expect.stringContaining('@example.com'),
		});
		expect(firstPage.paginationToken).toBe('1');
		const secondPage = await listSearch.searchCases.call(
			loadOptionsContext(),
			undefined,
			firstPage.paginationToken as string,
		);
		expect(secondPage.results).toHaveLength(1);
		expect(secondPage.paginationToken).toBeUndefined();
		expect(
			context
				.apiRequests()
				.slice(-2)
				.map((entry) => [entry.path, entry.query.page]),
		).toEqual([
			['/case/list', '0'],
			['/case/list', '1'],
		]);

		const filtered = await listSearch.searchCases.call(loadOptionsContext(), 'zelda');
		expect(filtered.results.map((result) => result.name)).toEqual([
			"Zelda O'Neil (Pending / Waiting for Authorization)",
		]);
	});
});

describe('searchServiceTypes', () => {
	it('offers the service types present in the chosen case, Screening GUID included', async () => {
		const created = await createCase(context, {
			services: ['service-idv-id', EMPLOYMENT_VERIFICATION],
		});
		const { results } = await listSearch.searchServiceTypes.call(
			loadOptionsContext({ caseId: byId(created.id as string) }),
		);
		expect(results).toEqual(
			expect.arrayContaining([
				{
					name: 'Identity',
					value: 'service-type-idv',
					description: 'service-type-idv · Identity Verification',
				},
				{
					name: 'Screening (legacy GUID)',
					value: SCREENING_TYPE_OF_SANDBOX,
					description: `${SCREENING_TYPE_OF_SANDBOX} · Employment Verification`,
				},
			]),
		);
		expect(context.apiRequests().at(-1)).toMatchObject({
			method: 'GET',
			path: `/case/id/${created.id}`,
		});
	});

	it('offers the types the spec names while no case is chosen, without calling the API', async () => {
		const { results } = await listSearch.searchServiceTypes.call(loadOptionsContext());
		expect(results.map((result) => result.value)).toEqual([
			'service-type-idv',
			'service-type-payment',
			'service-type-shipment',
		]);
		expect(context.allRequests()).toEqual([]);
	});
});
