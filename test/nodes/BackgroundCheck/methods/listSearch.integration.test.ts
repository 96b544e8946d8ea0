/**
 * The pickers of the editor against the sandbox: the Case list (GET /case/list, filtered here: the API has no
 * paging and no search), the packages, the licenses, the service types of a case, and the dropdowns of services
 * (of a package, or ordered for a case), users, document types and countries.
 */
import { BackgroundCheck } from '../../../../nodes/BackgroundCheck/BackgroundCheck.node';
import { SERVICE_TYPES } from '../../../../nodes/shared/catalog';
import { byId, createLoadOptionsContext, fromList } from '../../../helpers/executeContext';
import {
	BASIC_CRIMINAL,
	DRIVER,
	HEALTHCARE,
	orderCase,
	useNodeSandbox,
} from '../../../helpers/nodeSandbox';

const EMPLOYMENT_VERIFICATION = '9ac65633-b4c4-4062-875c-3556db9d2a08';
const SCREENING = SERVICE_TYPES.find((type) => type.name === 'Screening')!.id;

const { listSearch, loadOptions } = new BackgroundCheck().methods;

const context = useNodeSandbox();

function loadOptionsContext(parameters = {}) {
	return createLoadOptionsContext({
		parameters: { resource: 'case', operation: 'getData', ...parameters },
		credentials: context.credentials(),
	});
}

describe('searchCases', () => {
	it('lists every case of the group by candidate and status in one answer, filtered here', async () => {
		for (let index = 0; index < 11; index++)
			await orderCase(context, { candidateFirstName: index === 4 ? 'Zelda' : 'Ann' });
		const before = context.apiRequests().length;
		const all = await listSearch.searchCases.call(loadOptionsContext());
		expect(all.results.length).toBeGreaterThanOrEqual(11);
		expect(all.results[0]).toMatchObject({
			name: "Ann O'Neil (Pending / Waiting for Authorization)",
			value: expect.any(String),
			description: expect.stringContaining('@example.com'),
		});
		expect(all.paginationToken).toBeUndefined();

		const filtered = await listSearch.searchCases.call(loadOptionsContext(), 'zelda');
		expect(filtered.results.map((result) => result.name)).toEqual([
			"Zelda O'Neil (Pending / Waiting for Authorization)",
		]);
		expect(
			context
				.apiRequests()
				.slice(before)
				.map((entry) => [entry.path, entry.query]),
		).toEqual([
			['/case/list', {}],
			['/case/list', {}],
		]);
	});
});

describe('searchPackages and getPackages', () => {
	it('offer the company’s packages by name', async () => {
		const { results } = await listSearch.searchPackages.call(loadOptionsContext());
		expect(results.map((result) => result.value)).toEqual(
			expect.arrayContaining([BASIC_CRIMINAL, HEALTHCARE, DRIVER]),
		);
		expect(results.find((result) => result.value === HEALTHCARE)!.name).toBe(
			'Healthcare Professional',
		);
		const filtered = await listSearch.searchPackages.call(loadOptionsContext(), 'driv');
		expect(filtered.results.map((result) => result.value)).toEqual([DRIVER]);
		const options = await loadOptions.getPackages.call(loadOptionsContext());
		expect(options.map((option) => option.value)).toEqual(
			expect.arrayContaining([BASIC_CRIMINAL, HEALTHCARE, DRIVER]),
		);
		expect(context.apiRequests().map((entry) => entry.path)).toEqual([
			'/package/min/list',
			'/package/min/list',
			'/package/min/list',
		]);
	});
});

describe('searchCplcs', () => {
	it('offers the professional licenses and certifications', async () => {
		const { results } = await listSearch.searchCplcs.call(loadOptionsContext(), 'rn');
		expect(results).toEqual(
			expect.arrayContaining([
				expect.objectContaining({ name: 'RN', value: 'cplc-registered-nurse' }),
			]),
		);
		expect(context.apiRequests().map((entry) => entry.path)).toEqual(['/service/cplc/list']);
	});
});

describe('searchServiceTypes', () => {
	it('offers the service types of the chosen case’s services', async () => {
		const created = await orderCase(context, { packageId: byId(HEALTHCARE) });
		const { results } = await listSearch.searchServiceTypes.call(
			loadOptionsContext({ caseId: byId(created.id) }),
		);
		expect(results).toEqual(
			expect.arrayContaining([
				{
					name: 'Screening',
					value: SCREENING,
					description: expect.stringContaining('Employment Verification'),
				},
			]),
		);
		expect(context.apiRequests().at(-1)).toMatchObject({
			method: 'GET',
			path: `/case/id/${created.id}/services`,
		});
	});

	it('offers the five types of the API while no case is chosen, without calling the API', async () => {
		const { results } = await listSearch.searchServiceTypes.call(loadOptionsContext());
		expect(results.map((result) => result.value)).toEqual(SERVICE_TYPES.map((type) => type.id));
		expect(context.allRequests()).toEqual([]);
	});
});

describe('service dropdowns', () => {
	it('offer the services of the chosen package (Case > Create)', async () => {
		const options = await loadOptions.getPackageServices.call(
			loadOptionsContext({ operation: 'create', packageId: fromList(BASIC_CRIMINAL) }),
		);
		expect(options.map((option) => option.name)).toContain('SSN Trace');
		expect(options).toHaveLength(4);
		expect(context.apiRequests().map((entry) => entry.path)).toEqual([
			`/package/id/${BASIC_CRIMINAL}/services`,
		]);
	});

	it('offer the services of the package of the chosen case (Add Services)', async () => {
		const created = await orderCase(context, { packageId: byId(HEALTHCARE) });
		const before = context.apiRequests().length;
		const options = await loadOptions.getCaseServices.call(
			loadOptionsContext({ operation: 'addServices', caseId: fromList(created.id) }),
		);
		expect(options.map((option) => option.value)).toContain(EMPLOYMENT_VERIFICATION);
		expect(
			context
				.apiRequests()
				.slice(before)
				.map((entry) => entry.path),
		).toEqual([`/case/id/${created.id}`, `/package/id/${HEALTHCARE}/services`]);
	});

	it('offer the services ordered for the chosen case (Cancel Services), and its screenings (Pre-Adverse Action)', async () => {
		const created = await orderCase(context, { packageId: byId(HEALTHCARE) });
		const before = context.apiRequests().length;
		const ordered = await loadOptions.getOrderedServices.call(
			loadOptionsContext({ operation: 'cancelServices', caseId: byId(created.id) }),
		);
		expect(ordered.map((option) => option.value)).toContain(EMPLOYMENT_VERIFICATION);
		const screenings = await loadOptions.getOrderedScreenings.call(
			loadOptionsContext({
				resource: 'adverseAction',
				operation: 'startPreAdverse',
				caseId: fromList(created.id),
			}),
		);
		expect(screenings.map((option) => option.value)).toContain(EMPLOYMENT_VERIFICATION);
		expect(screenings.every((option) => option.description?.startsWith('Screening'))).toBe(true);
		expect(
			context
				.apiRequests()
				.slice(before)
				.map((entry) => entry.path),
		).toEqual([`/case/id/${created.id}/services`, `/case/id/${created.id}/services/screenings`]);
	});
});

describe('other dropdowns', () => {
	it('offer the company users and the secure document types', async () => {
		const users = await loadOptions.getCompanyUsers.call(loadOptionsContext());
		expect(users.length).toBeGreaterThan(0);
		for (const user of users) expect(user.name).toMatch(/^\S+ \S+$/);
		const types = await loadOptions.getDocumentTypes.call(loadOptionsContext());
		expect(types.map((type) => type.value)).toContain('candidate-disclosures-and-authorizations');
	});

	it('offer the countries by name, with their two-letter codes (the current address of Case > Create)', async () => {
		const countries = await loadOptions.getCountries.call(
			loadOptionsContext({ operation: 'create' }),
		);
		expect(countries).toContainEqual({
			name: 'United States',
			value: 'US',
			description: 'US · USA',
		});
		expect(countries.map((country) => country.name)).toEqual(
			[...countries.map((country) => country.name)].sort((a, b) => a.localeCompare(b)),
		);
		expect(context.apiRequests().map((entry) => entry.path)).toEqual(['/candidate/countries']);
	});
});
