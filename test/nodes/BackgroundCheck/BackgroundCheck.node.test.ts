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
import { SERVICES } from '../../../nodes/shared/catalog';

const nodeFolder = join(__dirname, '../../../nodes/BackgroundCheck');
const packageJson = JSON.parse(readFileSync(join(__dirname, '../../../package.json'), 'utf8'));
const node = new BackgroundCheck();
const { description } = node;

/** Resource → operation → endpoint, as the spec lists them. */
const CONTRACT: Record<string, Record<string, string>> = {
	case: {
		create: 'POST /case/create',
		get: 'GET /case/id/{caseId}',
		getMany: 'GET /case/list',
		addServices: 'POST /case/id/{caseId}/add/services',
		getData: 'GET /case/id/{caseId}/data/{serviceTypeId}',
	},
	caseData: { cancelSearch: 'POST /case/data/id/{caseDataId}/search/id/{searchId}/cancel' },
	package: { getServices: 'GET /package/id/{packageId}/services' },
	secureDocument: { create: 'POST /document/secure/create' },
	verificationBook: { search: 'POST /vbook/search' },
	testimony: {
		create: 'POST /testimony/create/case/id/{caseId}',
		update: 'PUT /testimony/id/{testimonyId}/update/case/id/{caseId}',
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
			['package', 'getServices'],
			['verificationBook', 'search'],
			['shipmentMask', 'getMany'],
			['companyUser', 'getMany'],
		]) {
			const names = shownFor(resource, operation).map((property) => property.name);
			expect(names).toEqual(expect.arrayContaining(['returnAll', 'limit']));
		}
	});

	it('lets every write pass fields the spec does not show through a JSON field', () => {
		for (const { resource, operation, endpoint } of contractPairs.filter(
			(pair) => !pair.endpoint.startsWith('GET'),
		)) {
			const jsonFields = shownFor(resource, operation).filter(
				(property) => property.type === 'json',
			);
			expect({ endpoint, jsonFields: jsonFields.length }).toEqual({ endpoint, jsonFields: 1 });
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
		expect(Object.keys(node.methods.listSearch)).toEqual(
			expect.arrayContaining(['searchCases', 'searchServiceTypes']),
		);
	});

	it('offers every catalog service, with its ID, wherever services are picked, next to a custom ID field', () => {
		for (const [resource, operation, picker, custom] of [
			['case', 'create', 'services', 'customServiceIds'],
			['case', 'create', 'excludeServices', 'customExcludeServiceIds'],
			['case', 'addServices', 'services', 'customServiceIds'],
		]) {
			const shown = shownFor(resource, operation);
			const options = shown.find((property) => property.name === picker)!
				.options as INodePropertyOptions[];
			expect(options.map((option) => option.value).sort()).toEqual(
				SERVICES.map((service) => service.id).sort(),
			);
			for (const option of options) expect(option.description).toContain(`ID: ${option.value}`);
			expect(shown.map((property) => property.name)).toContain(custom);
		}
	});

	it('types every field the spec names for case creation', () => {
		const names = allProperties(shownFor('case', 'create')).map((property) => property.name);
		expect(names).toEqual(
			expect.arrayContaining([
				'excludeServices',
				'contacts',
				'aliases',
				'orderData',
				'staffingAgency',
				'secureDocumentIds',
				'cplcId',
				'shipmentMaskId',
				'substituteServiceId',
				'apiTrackingCode',
				'apiTrackingUser',
			]),
		);
		const values = allProperties(shownFor('case', 'create')).flatMap((property) =>
			((property.options ?? []) as INodePropertyOptions[]).map((option) => option.value),
		);
		expect(values).toEqual(
			expect.arrayContaining([
				'authorization',
				'codt-drug-reason-for-test',
				'codt-drug-testing-authority',
			]),
		);
	});

	it('takes the secure document from binary data and types fileFormat', () => {
		const names = shownFor('secureDocument', 'create').map((property) => property.name);
		expect(names).toEqual(expect.arrayContaining(['binaryPropertyName', 'fileFormat']));
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
