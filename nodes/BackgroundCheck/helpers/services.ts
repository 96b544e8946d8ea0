import type { IExecuteFunctions, INodePropertyOptions } from 'n8n-workflow';

import { SERVICES, serviceGroupLabel, type CatalogService } from '../../shared/catalog';
import { requireId, requireIdList } from './inputChecks';

/** Value of the "Other" entry of a single service picker: the ID is then taken from the custom ID field. */
export const CUSTOM_SERVICE = '__custom';

function describeService(service: CatalogService): string {
	return [serviceGroupLabel(service), service.note, `ID: ${service.id}`]
		.filter(Boolean)
		.join(' · ');
}

/** Every service of spec 2.4 as a dropdown entry: its name, with group and ID shown underneath. */
export const SERVICE_OPTIONS: INodePropertyOptions[] = SERVICES.map((service) => ({
	name: service.name,
	value: service.id,
	description: describeService(service),
})).sort((a, b) => a.name.localeCompare(b.name));

export const CUSTOM_SERVICE_OPTION: INodePropertyOptions = {
	name: 'Other (Enter a Service ID)',
	value: CUSTOM_SERVICE,
	description:
		'A drug panel or any service that is not in the list, such as service-drug-5555N-panel',
};

export const CUSTOM_IDS_HINT =
	'Drug panels follow drug-service-<panel code>-panel or service-drug-<panel code>-panel (the spec does not list every panel code); a custom service your provider gave you also goes here';

/** Catalog picks plus the comma-separated custom IDs typed next to them, checked and without repeats. */
export function readServiceIds(
	this: IExecuteFunctions,
	itemIndex: number,
	picked: { parameter: string; label: string },
	custom: { parameter: string; label: string },
): string[] {
	const node = this.getNode();
	const fromList = requireIdList(
		node,
		this.getNodeParameter(picked.parameter, itemIndex, []),
		picked.label,
		itemIndex,
	);
	const typed = requireIdList(
		node,
		this.getNodeParameter(custom.parameter, itemIndex, ''),
		custom.label,
		itemIndex,
	);
	return [...new Set([...fromList, ...typed])];
}

/** A single pick: the listed service, or the custom ID when "Other" was chosen. */
export function resolveServiceId(
	this: IExecuteFunctions,
	itemIndex: number,
	picked: unknown,
	customId: unknown,
	label: string,
): string {
	const node = this.getNode();
	return picked === CUSTOM_SERVICE
		? requireId(node, customId, `${label} (custom ID)`, itemIndex)
		: requireId(node, picked, label, itemIndex);
}
