/**
 * Spec 4.2 GET /service/cplc/case/id/{caseId}: the CPLC definitions (2.2, 2.3) of every professional
 * license or certification supplied to the case, as testimony or as CPLC order data with a `cplcId`.
 */
import { CPLC_DEFINITIONS } from '../fixtures';
import { ok } from '../http';
import { requireOwnCase, type ApiRoute } from './common';

export const cplcRoutes: ApiRoute[] = [
	{
		method: 'GET',
		path: '/service/cplc/case/id/{caseId}',
		handle: (request, context) => {
			const record = requireOwnCase(context, request.principal, request.params.caseId);
			const suppliedIds = new Set<unknown>([
				...context.world.store.testimoniesOf(record.id).map((testimony) => testimony.cplcId),
				...record.orderData.map((entry) => entry.cplcId),
			]);
			const definitions = CPLC_DEFINITIONS.filter((definition) => suppliedIds.has(definition.id));
			return ok({ cplcDefinitionsList: structuredClone(definitions) });
		},
	},
];
