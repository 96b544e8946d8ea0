import type { INodeProperties } from 'n8n-workflow';

import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY } from './execute';

/** A resource locator: picked from a searchable list, or entered by ID (checked again by `requireId`). */
export function idLocator(options: {
	displayName: string;
	name: string;
	description: string;
	searchListMethod: string;
	listPlaceholder: string;
	idPlaceholder: string;
}): INodeProperties {
	return {
		displayName: options.displayName,
		name: options.name,
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		description: options.description,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: options.listPlaceholder,
				typeOptions: { searchListMethod: options.searchListMethod, searchable: true },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: options.idPlaceholder,
				validation: [
					{
						type: 'regex',
						properties: {
							regex: '[^\\s/\\\\?#%]+',
							errorMessage: 'Enter the bare ID, without spaces, slashes, ?, # or %',
						},
					},
				],
			},
		],
	};
}

/** The case a request is about: picked from the group's cases (GET /case/list) or entered by ID. */
export const caseIdLocator: INodeProperties = idLocator({
	displayName: 'Case',
	name: 'caseId',
	description:
		'The case (one background-check order). Pick it from the cases of the credential’s company group, or enter its ID, e.g. from Case > Create or a trigger.',
	searchListMethod: 'searchCases',
	listPlaceholder: 'Select a case...',
	idPlaceholder: 'e.g. 2f1c9a4e-7b3d-4e8f-9a10-5c6d7e8f9a0b',
});

/** A plain ID parameter; the execute functions check it with `requireId` before any request. */
export function idField(options: {
	name: string;
	displayName: string;
	description: string;
	placeholder: string;
}): INodeProperties {
	return { ...options, type: 'string', required: true, default: '' };
}

export const returnAllAndLimit: INodeProperties[] = [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 50,
		description: 'Max number of results to return',
		displayOptions: { show: { returnAll: [false] } },
	},
];

/** The Operation dropdown of one resource. */
export function operationSelector(
	resource: string,
	options: Array<{ name: string; value: string; description: string; action: string }>,
	defaultOperation = options[0].value,
): INodeProperties {
	return {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [resource] } },
		options,
		default: defaultOperation,
	};
}

/**
 * "Concurrent Requests": how many input items are sent at a time, for the reads and for the bulk writes (Case >
 * Create, Add Services, Testimony Create and Update, Secure Document Upload). In the Options collection of the
 * operation (concurrencyOptions, or the operation's own Options collection).
 */
export const concurrencyField: INodeProperties = {
	displayName: 'Concurrent Requests',
	name: 'concurrency',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: MAX_CONCURRENCY, numberPrecision: 0 },
	default: DEFAULT_CONCURRENCY,
	description: `How many input items are sent to the API at the same time (1 to ${MAX_CONCURRENCY}; ${DEFAULT_CONCURRENCY} without this option; 1 for one after the other). Output items keep the input order and stay paired with their input items. The first item runs alone, so that the credential exchanges its token only once. When the API answers 429 or 503 with Retry-After, every item of the run waits as asked. A write is sent once: it is sent again only after such an answer, which says the API did not carry it out.`,
};

/** An Options collection holding only Concurrent Requests. */
export const concurrencyOptions: INodeProperties = {
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add Option',
	default: {},
	options: [concurrencyField],
};

/** The package a case is ordered with: picked from GET /package/min/list or entered by ID. */
export const packageIdLocator: INodeProperties = idLocator({
	displayName: 'Package',
	name: 'packageId',
	description:
		'The package (a set of services set up for your company) to order. Pick it from the list or enter its ID.',
	searchListMethod: 'searchPackages',
	listPlaceholder: 'Select a package...',
	idPlaceholder: 'e.g. a12ddee3-4fa5-43fc-9876-123a5d23a08b',
});

/** Where a service dropdown takes its services from: the chosen package, or the package of the chosen case. */
export interface ServicePicker {
	method: 'getPackageServices' | 'getCaseServices';
	dependsOn: 'packageId.value' | 'caseId.value';
}

export const PACKAGE_SERVICES: ServicePicker = {
	method: 'getPackageServices',
	dependsOn: 'packageId.value',
};
export const CASE_SERVICES: ServicePicker = {
	method: 'getCaseServices',
	dependsOn: 'caseId.value',
};

/**
 * A service of the package (or of the case's package), from the API; `''` sends no service ID. For the
 * service fields inside order data entries.
 */
export function serviceIdField(services: ServicePicker, description: string): INodeProperties {
	return {
		displayName: 'Service Name or ID',
		name: 'serviceId',
		type: 'options',
		typeOptions: {
			loadOptionsMethod: services.method,
			loadOptionsDependsOn: [services.dependsOn],
		},
		default: '',
		description: `${description} Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>`,
	};
}
