/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- repository tooling: runs in Node.js, never inside n8n */
/**
 * The node's description against its contract: resources, operations, their internal values and
 * ID parameter names; every operation wired to a description and an execute function; what n8n and AI
 * agents need (subtitle, usableAsTool, actions, icons, codex).
 */
import { existsSync, readFileSync } from 'fs';
import { join } from 'path';
import type { INodeProperties, INodePropertyCollection, INodePropertyOptions } from 'n8n-workflow';

import { operations } from '../../../nodes/BackgroundCheck/actions/router';
import { BackgroundCheck } from '../../../nodes/BackgroundCheck/BackgroundCheck.node';
import { findOperation, ORDER_DATA_METADATA } from '../../../api/contract';

const nodeFolder = join(__dirname, '../../../nodes/BackgroundCheck');
const packageJson = JSON.parse(readFileSync(join(__dirname, '../../../package.json'), 'utf8'));
const node = new BackgroundCheck();
const { description } = node;

/** Resource → operation → the endpoint of the API reference it calls (Secure Document > Upload: the first of three). */
const CONTRACT: Record<string, Record<string, string>> = {
	case: {
		create: 'POST /case/create',
		get: 'GET /case/id/{caseId}',
		getMany: 'GET /case/list',
		addServices: 'POST /case/id/{caseId}/add/services',
		getData: 'GET /case/id/{caseId}/data/{serviceTypeId}',
		cancel: 'POST /case/id/{caseId}/cancel',
		cancelServices: 'POST /case/id/{caseId}/services/cancel',
		archive: 'POST /case/archive/{caseId}',
		unarchive: 'POST /case/unarchive/{caseId}',
		beginProcessing: 'PUT /case/id/{caseId}/action/beginprocessing',
		place: 'PUT /case/id/{caseId}/action/place',
		getServices: 'GET /case/id/{caseId}/services',
		getOrderConfiguration: 'GET /config/case/id/{caseId}',
		getCandidateInfo: 'GET /candidate/info/case/id/{caseId}',
		updateCandidateInfo: 'POST /candidate/id/{candidateId}/update/case/id/{caseId}',
	},
	invitation: {
		get: 'GET /invitation/case/{caseId}',
		resend: 'POST /case/id/{caseId}/action/resendinvite',
		refresh: 'PUT /case/id/{caseId}/action/refreshinvite',
	},
	adverseAction: { startPreAdverse: 'POST /case/id/{caseId}/action/preadverse' },
	caseData: { cancelSearch: 'POST /case/data/id/{caseDataId}/search/id/{searchId}/cancel' },
	package: { getServices: 'GET /package/id/{packageId}/services' },
	report: {
		downloadCaseReport: 'GET /case/id/{caseId}/report/pdf/download/url',
		downloadLegalDocument: 'GET /case/id/{caseId}/data/{serviceId}/pdf/download',
		downloadPreAdverseDocument: 'GET /case/id/{caseId}/preadverse/{type}/pdf/download',
	},
	secureDocument: {
		create: 'POST /document/secure/upload',
		download: 'GET /document/secure/id/{secureDocumentId}/download/url',
		getMany: 'GET /document/secure/list/case/id/{caseId}',
	},
	verificationBook: { search: 'POST /vbook/search' },
	testimony: {
		create: 'POST /testimony/create/case/id/{caseId}',
		update: 'POST /testimony/id/{testimonyId}/update/case/id/{caseId}',
	},
	cplc: { getDefinitions: 'GET /service/cplc/case/id/{caseId}' },
	shipmentMask: { getMany: 'GET /shipment/mask/list' },
	companyUser: { getMany: 'GET /company/user/list' },
};

const contractPairs = Object.entries(CONTRACT).flatMap(([resource, ops]) =>
	Object.entries(ops).map(([operation, endpoint]) => ({ resource, operation, endpoint })),
);

/** The parameters n8n shows for one resource + operation (top level). */
function shownFor(resource: string, operation: string): INodeProperties[] {
	return description.properties.filter((property) => {
		const show = property.displayOptions?.show;
		if (!show) return true;
		if (show.resource && !show.resource.includes(resource)) return false;
		if (show.operation && !show.operation.includes(operation)) return false;
		return true;
	});
}

function optionsOf(name: string, resource?: string): INodePropertyOptions[] {
	const property = description.properties.find(
		(candidate) =>
			candidate.name === name &&
			(!resource || candidate.displayOptions?.show?.resource?.includes(resource)),
	);
	return (property?.options ?? []) as INodePropertyOptions[];
}

/** Every parameter, nested ones included. */
function allProperties(properties: INodeProperties[] = description.properties): INodeProperties[] {
	return properties.flatMap((property) => {
		const nested = (property.options ?? []).flatMap((option) => {
			if ('values' in option) return allProperties((option as INodePropertyCollection).values);
			if ('type' in option) return allProperties([option as INodeProperties]);
			return [];
		});
		return [property, ...nested];
	});
}

describe('node identity', () => {
	it('is the "Background Check" node, usable as an AI tool, with the subtitle, credential and icons', () => {
		expect(description).toMatchObject({
			name: 'backgroundCheck',
			displayName: 'Background Check',
			subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
			usableAsTool: true,
			// 1.1 brought Output (test/nodes/BackgroundCheck/simplify.test.ts); saved version-1 nodes still run.
			version: [1, 1.1],
			defaultVersion: 1.1,
			credentials: [{ name: 'backgroundCheckApi', required: true }],
			icon: { light: 'file:backgroundCheck.svg', dark: 'file:backgroundCheck.dark.svg' },
		});
		expect(existsSync(join(nodeFolder, 'backgroundCheck.svg'))).toBe(true);
		expect(existsSync(join(nodeFolder, 'backgroundCheck.dark.svg'))).toBe(true);
	});

	it('has a codex file with categories and documentation links', () => {
		const codex = JSON.parse(readFileSync(join(nodeFolder, 'BackgroundCheck.node.json'), 'utf8'));
		expect(codex.node).toBe(`${packageJson.name}.${description.name}`);
		expect(codex.categories.length).toBeGreaterThan(0);
		expect(codex.resources.primaryDocumentation[0].url).toMatch(/^https:\/\/github\.com\/.+#/);
		expect(codex.resources.credentialDocumentation[0].url).toMatch(
			/^https:\/\/github\.com\/.+#credentials$/,
		);
	});

	it('is registered in package.json', () => {
		expect(packageJson.n8n.nodes).toContain('dist/nodes/BackgroundCheck/BackgroundCheck.node.js');
	});

	it('offers exactly the resources of the contract', () => {
		expect(
			optionsOf('resource')
				.map((option) => option.value)
				.sort(),
		).toEqual(Object.keys(CONTRACT).sort());
	});
});

describe.each(contractPairs)('$resource > $operation ($endpoint)', ({ resource, operation }) => {
	it('is an option of the Operation dropdown, with a description and an action for AI agents', () => {
		const option = optionsOf('operation', resource).find(
			(candidate) => candidate.value === operation,
		);
		expect(option).toBeDefined();
		expect(option!.description!.length).toBeGreaterThan(20);
		expect(option!.action).toEqual(expect.any(String));
	});

	it('has its own description and execute function, routed by the router', () => {
		const module = (
			operations as Record<string, Record<string, { description: unknown; execute: unknown }>>
		)[resource][operation];
		expect(module.execute).toEqual(expect.any(Function));
		expect(Array.isArray(module.description)).toBe(true);
		for (const property of module.description as INodeProperties[]) {
			expect(property.displayOptions?.show).toMatchObject({
				resource: [resource],
				operation: [operation],
			});
		}
	});

	it('names its path IDs as the contract does', () => {
		const pathIds = [...CONTRACT[resource][operation].matchAll(/\{(\w+)\}/g)].map(
			(match) => match[1],
		);
		const shown = shownFor(resource, operation).map((property) => property.name);
		for (const id of pathIds) expect(shown).toContain(id);
	});
});

describe('parameters', () => {
	it('gives every list operation Return All and Limit', () => {
		for (const [resource, operation] of [
			['case', 'getMany'],
			['case', 'getServices'],
			['package', 'getServices'],
			['verificationBook', 'search'],
			['shipmentMask', 'getMany'],
			['companyUser', 'getMany'],
		]) {
			const names = shownFor(resource, operation).map((property) => property.name);
			expect(names).toEqual(expect.arrayContaining(['returnAll', 'limit']));
		}
	});

	it('offers a JSON field only where the reference leaves the shape to the user, and says so', () => {
		// Testimony details of the types without a form, and the metadata of the order data without a form.
		const allowed: Record<string, string[]> = {
			'testimony:create': ['details'],
			'testimony:update': ['details'],
			'case:create': ['metadata'],
			'case:addServices': ['metadata'],
		};
		for (const { resource, operation } of contractPairs) {
			const jsonFields = allProperties(shownFor(resource, operation)).filter(
				(property) => property.type === 'json',
			);
			const key = `${resource}:${operation}`;
			expect({ key, json: jsonFields.map((property) => property.name) }).toEqual({
				key,
				json: allowed[key] ?? [],
			});
			for (const field of jsonFields) expect(field.description).toMatch(/reference defines/);
		}
	});

	it('calls only operations of the API reference', () => {
		for (const { endpoint } of contractPairs) {
			const [method, template] = endpoint.split(' ');
			expect({ endpoint, template: findOperation(method, template)?.template }).toEqual({
				endpoint,
				template,
			});
		}
	});

	it('makes the case a resource locator (list or ID) wherever a case is needed', () => {
		for (const { resource, operation } of contractPairs.filter((pair) =>
			pair.endpoint.includes('{caseId}'),
		)) {
			const caseId = shownFor(resource, operation).find((property) => property.name === 'caseId')!;
			expect(caseId.type).toBe('resourceLocator');
			expect(caseId.modes!.map((mode) => mode.name)).toEqual(['list', 'id']);
			expect(caseId.modes![0].typeOptions).toMatchObject({
				searchListMethod: 'searchCases',
				searchable: true,
			});
		}
		expect(Object.keys(node.methods.listSearch).sort()).toEqual([
			'searchCases',
			'searchCplcs',
			'searchPackages',
			'searchServiceTypes',
		]);
	});

	it('takes the services to pick from the API: the chosen package’s, or the case’s package’s', () => {
		const pickers = [
			['case', 'create', 'excludeServices', 'getPackageServices', 'packageId.value'],
			['case', 'addServices', 'services', 'getCaseServices', 'caseId.value'],
		];
		for (const [resource, operation, name, method, dependsOn] of pickers) {
			const picker = shownFor(resource, operation).find((property) => property.name === name)!;
			expect(picker.type).toBe('multiOptions');
			expect(picker.typeOptions).toEqual({
				loadOptionsMethod: method,
				loadOptionsDependsOn: [dependsOn],
			});
			const serviceIds = allProperties(shownFor(resource, operation)).filter(
				(property) => property.name === 'serviceId',
			);
			expect(serviceIds.length).toBeGreaterThan(0);
			for (const serviceId of serviceIds)
				expect(serviceId.typeOptions?.loadOptionsMethod).toBe(method);
		}
		expect(Object.keys(node.methods.loadOptions).sort()).toEqual([
			'getCaseLegalServices',
			'getCaseScreenings',
			'getCaseServices',
			'getCompanyUsers',
			'getCountries',
			'getDocumentTypes',
			'getOrderedScreenings',
			'getOrderedServices',
			'getPackageServices',
			'getPackages',
		]);
	});

	it('picks the services to cancel and the screenings of a pre-adverse action from those ordered for the case', () => {
		for (const [resource, operation, name, method] of [
			['case', 'cancelServices', 'serviceIds', 'getOrderedServices'],
			['adverseAction', 'startPreAdverse', 'adverseScreeningSelections', 'getOrderedScreenings'],
		]) {
			const picker = shownFor(resource, operation).find((property) => property.name === name)!;
			expect(picker.type).toBe('multiOptions');
			expect(picker.typeOptions).toEqual({
				loadOptionsMethod: method,
				loadOptionsDependsOn: ['caseId.value'],
			});
		}
	});

	it('picks the country of the current address from the API’s countries, with US as default', () => {
		const country = allProperties(shownFor('case', 'create')).find(
			(property) => property.name === 'country',
		)!;
		expect(country).toMatchObject({
			type: 'options',
			typeOptions: { loadOptionsMethod: 'getCountries' },
			default: 'US',
		});
	});

	it('picks the package from the API wherever a package is needed', () => {
		for (const [resource, operation] of [
			['case', 'create'],
			['package', 'getServices'],
		]) {
			const packageId = shownFor(resource, operation).find(
				(property) => property.name === 'packageId',
			)!;
			expect(packageId.type).toBe('resourceLocator');
			expect(packageId.modes![0].typeOptions).toMatchObject({ searchListMethod: 'searchPackages' });
		}
	});

	it('types every field the reference defines for case creation', () => {
		const create = allProperties(shownFor('case', 'create'));
		expect(create.map((property) => property.name)).toEqual(
			expect.arrayContaining([
				'packageId',
				'candidateEmail',
				'candidateFirstName',
				'candidateLastName',
				'middleName',
				'phone',
				'flow',
				'candidateConsentProvided',
				'candidateDisclosuresAndAuthorizationDocumentIds',
				'excludeServices',
				'orderOverride',
				'replaceCaseId',
				'disableOptions',
				'contacts',
				'aliases',
				'orderData',
				'dob',
				'govtId',
				'address1',
				'reasonForTest',
				'testingAuthority',
				'orderConfig',
				'aliasNameConfiguration',
				'employmentVerificationMethod',
				'apiTrackingCode',
				'apiTrackingUser',
				'orderedBy',
			]),
		);
		const values = create.flatMap((property) =>
			((property.options ?? []) as INodePropertyOptions[]).map((option) => option.value),
		);
		expect(values).toEqual(expect.arrayContaining(['default', 'escalation', 'authorization']));
		// Every order data type of the reference: a form of its own, or a Type of Other Order Data.
		const ownForms = [
			'codt-dob',
			'codt-govt-id',
			'codt-current-candidate-address',
			'codt-alias',
			'codt-drug-reason-for-test',
			'codt-drug-testing-authority',
		];
		const otherTypes = (
			create.find((property) => property.name === 'type')!.options as INodePropertyOptions[]
		).map((option) => option.value);
		expect([...ownForms, ...otherTypes].sort()).toEqual(Object.keys(ORDER_DATA_METADATA).sort());
	});

	it('offers the reference’s testimony types, with the license picked from the API', () => {
		const shown = shownFor('testimony', 'create');
		const types = shown.find((property) => property.name === 'testimonyTypeId')!;
		expect((types.options as INodePropertyOptions[]).map((option) => option.value)).toEqual(
			expect.arrayContaining(['testimony-type-cplc', '19edb27e-5bfd-4c0f-888a-a5130b2f5250']),
		);
		const cplc = shown.find((property) => property.name === 'cplcId')!;
		expect(cplc.modes![0].typeOptions).toMatchObject({ searchListMethod: 'searchCplcs' });
	});

	it('takes the secure document from binary data, with its type from the API and the formats the API stores', () => {
		const shown = shownFor('secureDocument', 'create');
		expect(shown.map((property) => property.name)).toEqual(
			expect.arrayContaining(['binaryPropertyName', 'documentTypeId', 'fileFormat']),
		);
		const format = shown.find((property) => property.name === 'fileFormat')!;
		expect((format.options as INodePropertyOptions[]).map((option) => option.value).sort()).toEqual(
			['', 'jpeg', 'jpg', 'pdf', 'png'],
		);
		expect(shown.find((property) => property.name === 'documentTypeId')!.typeOptions).toEqual({
			loadOptionsMethod: 'getDocumentTypes',
		});
	});

	it('keeps every option list in alphabetical order, as n8n’s linter wants', () => {
		for (const property of allProperties()) {
			if (property.type !== 'options' && property.type !== 'multiOptions') continue;
			if (property.name === 'operation' || property.name === 'resource') continue;
			const names = ((property.options ?? []) as INodePropertyOptions[]).map(
				(option) => option.name,
			);
			if (names.length > 3) expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)));
		}
	});

	it('never gives one parameter name two different types', () => {
		const types = new Map<string, string>();
		for (const property of description.properties) {
			if (property.name === 'operation') continue;
			expect(types.get(property.name) ?? property.type).toBe(property.type);
			types.set(property.name, property.type);
		}
	});
});

describe('built package', () => {
	const built = join(__dirname, '../../../dist/nodes/BackgroundCheck/BackgroundCheck.node.js');
	(existsSync(built) ? it : it.skip)('loads with require() and constructs', () => {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const { BackgroundCheck: Built } = require(built);
		expect(new Built().description.name).toBe('backgroundCheck');
		expect(
			existsSync(join(__dirname, '../../../dist/nodes/BackgroundCheck/BackgroundCheck.node.json')),
		).toBe(true);
	});
});
