/** GET /shipment/mask/list: the masks that collection kits can be shipped with. */
import { SHIPMENT_MASKS } from '../fixtures';
import { ok } from '../http';
import type { ApiRoute } from './common';

export const shipmentMaskRoutes: ApiRoute[] = [
	{
		method: 'GET',
		path: '/shipment/mask/list',
		handle: () => ok({ list: structuredClone(SHIPMENT_MASKS) }),
	},
];
