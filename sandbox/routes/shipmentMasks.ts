/** Spec 4.3 GET /shipment/mask/list. */
import { SHIPMENT_MASKS } from '../fixtures';
import { ok } from '../http';
import type { ApiRoute } from './common';

export const shipmentMaskRoutes: ApiRoute[] = [
	{
		method: 'GET',
		path: '/shipment/mask/list',
		handle: () => ok({ shipmentMaskList: structuredClone(SHIPMENT_MASKS) }),
	},
];
