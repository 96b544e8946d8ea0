/**
 * CPLC definitions: the enabled ones, all of them, one in full, and those supplied to a case (as testimony of
 * the CPLC type or as CPLC order data) with their fields.
 */
import { CPLC_DEFINITIONS } from '../fixtures';
import { isPlainObject } from '../../nodes/shared/values';
import { notFound, ok } from '../http';
import { requireOwnCase, type ApiRoute } from './common';

/** A definition without its fields, as the lists carry it. */
const summary = (definition: (typeof CPLC_DEFINITIONS)[number]) => {
	const copy: Partial<(typeof CPLC_DEFINITIONS)[number]> = { ...definition };
	delete copy.fields;
	return copy;
};

/** The `cplcId` a testimony's or an order data's details name, if any. */
const cplcIdOf = (details: unknown) =>
	isPlainObject(details) && typeof details.cplcId === 'string' ? details.cplcId : undefined;

export const cplcRoutes: ApiRoute[] = [
	{
		method: 'GET',
		path: '/service/cplc/list',
		handle: () =>
			ok({ cplcList: CPLC_DEFINITIONS.filter((definition) => definition.enabled).map(summary) }),
	},
	{
		method: 'GET',
		path: '/service/cplc/list/all',
		handle: () => ok({ cplcList: CPLC_DEFINITIONS.map(summary) }),
	},
	{
		method: 'GET',
		path: '/service/cplc/id/{cplcId}',
		handle: (request) => {
			const definition = CPLC_DEFINITIONS.find((entry) => entry.id === request.params.cplcId);
			if (!definition) throw notFound(`No CPLC ${request.params.cplcId}`);
			return ok(structuredClone(definition));
		},
	},
	{
		method: 'GET',
		path: '/service/cplc/case/id/{caseId}',
		handle: (request, context) => {
			const record = requireOwnCase(context, request);
			const suppliedIds = new Set<unknown>([
				...context.world.store
					.testimoniesOf(record.id)
					.map((testimony) => cplcIdOf(testimony.details)),
				...record.orderData.map((entry) => cplcIdOf(entry.metadata)),
			]);
			const definitions = CPLC_DEFINITIONS.filter((definition) => suppliedIds.has(definition.id));
			return ok({ cplcDefinitionsList: structuredClone(definitions) });
		},
	},
];
