import type {
	IDataObject,
	IExecuteFunctions,
	INodeProperties,
	INodePropertyCollection,
	INodePropertyOptions,
} from 'n8n-workflow';

import { SERVICES, STAFFING_AGENCY_MAX_LENGTH, isDrugPanelServiceId } from '../../shared/catalog';
import { mergeBody, withoutEmptyValues } from './body';
import { secureDocumentIdsField } from './fields';
import {
	CUSTOM_IDS_HINT,
	CUSTOM_SERVICE,
	CUSTOM_SERVICE_OPTION,
	SERVICE_OPTIONS,
	resolveServiceId,
} from './services';
import { parseJsonObject, requireId, requireIdList } from './inputChecks';

const NO_SERVICE = '';

const byName = (a: INodePropertyOptions, b: INodePropertyOptions) => a.name.localeCompare(b.name);

function servicesWhere(
	keep: (service: (typeof SERVICES)[number]) => boolean,
): INodePropertyOptions[] {
	const ids = new Set(SERVICES.filter(keep).map((service) => service.id));
	return SERVICE_OPTIONS.filter((option) => ids.has(option.value as string));
}

const DRUG_SERVICES = servicesWhere(
	(service) => service.subcategoryId === 'service-subcat-drug' || isDrugPanelServiceId(service.id),
);
const OHS_SERVICES = servicesWhere((service) => service.categoryId === 'service-cat-ohs');
const VERIFICATION_SERVICES = servicesWhere(
	(service) => service.categoryId === 'service-cat-verification',
);
const LICENSE_SERVICES = servicesWhere((service) => service.categoryId === 'service-cat-pro-lic');

/** The service an order-data entry belongs to, sent as serviceId (spec 2.4), plus its "Other" ID field. */
function serviceFields(
	options: INodePropertyOptions[],
	defaultServiceId: string,
	optional = false,
): INodeProperties[] {
	const choices = [...options, CUSTOM_SERVICE_OPTION];
	if (optional)
		choices.push({
			name: 'None (Not Service-Specific)',
			value: NO_SERVICE,
			description: 'Send no serviceId',
		});
	return [
		{
			displayName: 'Service Name or ID',
			name: 'serviceId',
			type: 'options',
			options: choices.sort(byName),
			default: defaultServiceId,
			description:
				'The service this order data is for, sent as serviceId (spec 2.4: a service ID is accepted as serviceId in order data). Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
		},
		{
			displayName: 'Custom Service ID',
			name: 'customServiceId',
			type: 'string',
			default: '',
			placeholder: 'e.g. service-drug-5555N-panel',
			description: `Service ID that is not in the list. ${CUSTOM_IDS_HINT}.`,
			displayOptions: { show: { serviceId: [CUSTOM_SERVICE] } },
		},
	];
}

const orderDataSecureDocumentIdsField = secureDocumentIdsField(
	'Comma-separated IDs of secure documents (from Secure Document > Create) for this service, sent as secureDocumentIds (spec: optional on employment, education and CPLC order data)',
);

function entryJsonField(example: string): INodeProperties {
	return {
		displayName: 'Additional Fields (JSON)',
		name: 'additionalFields',
		type: 'json',
		default: '{}',
		description: `Keys of this order-data entry that the spec does not show, merged into the entry last. Example: ${example}.`,
	};
}

/** One kind of order data: its form and the keys it sends besides serviceId and the JSON extras. */
interface OrderDataKind {
	name: string;
	displayName: string;
	values: INodeProperties[];
	/** Typed keys of the entry, read from the entry's form values. */
	keys(entry: IDataObject, check: EntryChecks): IDataObject;
}

interface EntryChecks {
	id(value: unknown, field: string): string;
	ids(value: unknown, field: string): string[];
}

const ORDER_DATA_KINDS: OrderDataKind[] = [
	{
		name: 'dotDrug',
		displayName: 'DOT Drug Order Data',
		values: [
			...serviceFields(DRUG_SERVICES, 'service-drug-10-panel'),
			{
				displayName: 'Type',
				name: 'type',
				type: 'options',
				options: [
					{
						name: 'Reason for Test',
						value: 'codt-drug-reason-for-test',
						description: 'Order data type codt-drug-reason-for-test (spec, added 2026-07-07)',
					},
					{
						name: 'Testing Authority',
						value: 'codt-drug-testing-authority',
						description: 'Order data type codt-drug-testing-authority (spec, added 2026-07-07)',
					},
				],
				default: 'codt-drug-reason-for-test',
				description: 'Which DOT drug order data this entry carries, sent as type',
			},
			{
				displayName: 'Value',
				name: 'value',
				type: 'string',
				default: '',
				placeholder: 'e.g. Pre-Employment, or FMCSA',
				description:
					'The reason for the test or the testing authority, sent as value. The spec names the two types but not how their value is sent: check with your provider, and use Additional Fields (JSON) for another shape.',
			},
			entryJsonField('{ "valueId": "pre-employment" }'),
		],
		keys: (entry) => ({ type: entry.type, value: entry.value }),
	},
	{
		name: 'employment',
		displayName: 'Employment',
		values: [
			...serviceFields(VERIFICATION_SERVICES, '9ac65633-b4c4-4062-875c-3556db9d2a08'),
			{
				displayName: 'Staffing Agency',
				name: 'staffingAgency',
				type: 'string',
				default: '',
				description: `Staffing agency the candidate was employed through, sent as staffingAgency (spec: optional on employment order data, at most ${STAFFING_AGENCY_MAX_LENGTH} characters)`,
			},
			orderDataSecureDocumentIdsField,
			entryJsonField('{ "employerName": "Acme Logistics", "startDate": "2019-04-01" }'),
		],
		keys: (entry, check) => ({
			staffingAgency: entry.staffingAgency,
			secureDocumentIds: check.ids(entry.secureDocumentIds, 'Secure Document IDs'),
		}),
	},
	{
		name: 'education',
		displayName: 'Education',
		values: [
			...serviceFields(VERIFICATION_SERVICES, '85307784-1f84-471a-8596-c8ea088c3a62'),
			orderDataSecureDocumentIdsField,
			entryJsonField('{ "schoolName": "Valley State University", "degree": "BSN" }'),
		],
		keys: (entry, check) => ({
			secureDocumentIds: check.ids(entry.secureDocumentIds, 'Secure Document IDs'),
		}),
	},
	{
		name: 'cplc',
		displayName: 'Professional License (CPLC)',
		values: [
			...serviceFields(LICENSE_SERVICES, 'service-cplc'),
			{
				displayName: 'CPLC Definition ID',
				name: 'cplcId',
				type: 'string',
				default: '',
				placeholder: 'e.g. cplc-registered-nurse',
				description:
					'ID of the license or certification definition (spec 2.2) to verify, sent as cplcId (key name from the sandbox; the spec does not show CPLC order data). Your provider gives these IDs.',
			},
			orderDataSecureDocumentIdsField,
			entryJsonField('{ "licenseNumber": "RN123456", "state": "TX" }'),
		],
		keys: (entry, check) => ({
			cplcId: entry.cplcId ? check.id(entry.cplcId, 'CPLC Definition ID') : undefined,
			secureDocumentIds: check.ids(entry.secureDocumentIds, 'Secure Document IDs'),
		}),
	},
	{
		name: 'shipment',
		displayName: 'Shipment',
		values: [
			...serviceFields(SERVICE_OPTIONS, NO_SERVICE, true),
			{
				displayName: 'Shipment Mask ID',
				name: 'shipmentMaskId',
				type: 'string',
				default: '',
				placeholder: 'e.g. shipment-mask-candidate-home',
				description:
					'Where to ship collection kits: an ID from Shipment Mask > Get Many. Sent as shipmentMaskId (key name chosen by this node; the spec names shipment order data but does not show it).',
			},
			entryJsonField(
				'{ "address": { "line1": "1 Main St", "city": "Austin", "state": "TX", "zip": "78701" } }',
			),
		],
		keys: (entry, check) => ({
			shipmentMaskId: entry.shipmentMaskId
				? check.id(entry.shipmentMaskId, 'Shipment Mask ID')
				: undefined,
		}),
	},
	{
		name: 'ohsSubstitution',
		displayName: 'OHS Service Substitution',
		values: [
			...serviceFields(OHS_SERVICES, 'service-ohs-tb-quantiferon-gold'),
			{
				displayName: 'Substitute Service Name or ID',
				name: 'substituteServiceId',
				type: 'options',
				options: [...OHS_SERVICES].sort(byName),
				default: 'service-ohs-tb-tspot-test',
				description:
					'The occupational health service the clinic may perform instead, sent as substituteServiceId (key name chosen by this node; the spec names OHS service substitutions but does not show them). Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			},
			entryJsonField('{ "reason": "Clinic does not offer QuantiFERON" }'),
		],
		keys: (entry, check) => ({
			substituteServiceId: check.id(entry.substituteServiceId, 'Substitute Service'),
		}),
	},
	{
		name: 'other',
		displayName: 'Other Order Data',
		values: [
			...serviceFields(SERVICE_OPTIONS, NO_SERVICE, true),
			{
				displayName: 'Type',
				name: 'type',
				type: 'string',
				default: '',
				placeholder: 'e.g. codt-drug-reason-for-test',
				description:
					'Order data type, sent as type, for kinds of order data this node has no form for',
			},
			entryJsonField('{ "jurisdictions": [{ "county": "Travis", "state": "TX" }] }'),
		],
		keys: (entry) => ({ type: entry.type }),
	},
];

/** The "Order Data" parameter of Case > Create: a list of entries, each of one kind. */
export const orderDataProperty: INodeProperties = {
	displayName: 'Order Data',
	name: 'orderData',
	type: 'fixedCollection',
	placeholder: 'Add order data',
	typeOptions: { multipleValues: true },
	default: {},
	description:
		'Per-service order details, sent as the orderData list (spec 4.3: shipment, CPLC, OHS service substitutions, DOT drug order data). Each entry carries the serviceId it applies to.',
	options: ORDER_DATA_KINDS.map(
		(kind): INodePropertyCollection => ({
			name: kind.name,
			displayName: kind.displayName,
			values: kind.values,
		}),
	),
};

/** The orderData list, in the order of the kinds above; every ID and JSON field checked first. */
export function buildOrderData(this: IExecuteFunctions, itemIndex: number): IDataObject[] {
	const node = this.getNode();
	const entriesByKind = this.getNodeParameter('orderData', itemIndex, {}) as Record<
		string,
		IDataObject[] | undefined
	>;
	const orderData: IDataObject[] = [];
	for (const kind of ORDER_DATA_KINDS) {
		(entriesByKind[kind.name] ?? []).forEach((entry, position) => {
			const where = `Order Data > ${kind.displayName} ${position + 1}`;
			const check: EntryChecks = {
				id: (value, field) => requireId(node, value, `${where}: ${field}`, itemIndex),
				ids: (value, field) => requireIdList(node, value ?? '', `${where}: ${field}`, itemIndex),
			};
			const serviceId =
				entry.serviceId === NO_SERVICE || entry.serviceId === undefined
					? undefined
					: resolveServiceId.call(
							this,
							itemIndex,
							entry.serviceId,
							entry.customServiceId,
							`${where}: Service`,
						);
			const typed = withoutEmptyValues({ serviceId, ...kind.keys(entry, check) });
			const extra = parseJsonObject(
				node,
				entry.additionalFields,
				`${where}: Additional Fields (JSON)`,
				itemIndex,
			);
			orderData.push(mergeBody(typed, extra));
		});
	}
	return orderData;
}
