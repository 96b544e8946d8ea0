/** Every API route, in the order of spec section 4 (4.1, 4.2, then the rows of the 4.3 table). */
import { authRoutes } from './auth';
import { candidateRoutes } from './candidates';
import { caseActionRoutes } from './caseActions';
import { caseRoutes } from './cases';
import type { ApiRoute } from './common';
import { companyUserRoutes } from './companyUsers';
import { cplcRoutes } from './cplc';
import { documentRoutes } from './documents';
import { packageRoutes } from './packages';
import { reportRoutes } from './reports';
import { shipmentMaskRoutes } from './shipmentMasks';
import { testimonyRoutes } from './testimony';
import { vbookRoutes } from './vbook';

export const API_ROUTES: readonly ApiRoute[] = [
	...authRoutes,
	...cplcRoutes,
	...caseRoutes,
	...caseActionRoutes,
	...candidateRoutes,
	...reportRoutes,
	...packageRoutes,
	...documentRoutes,
	...vbookRoutes,
	...testimonyRoutes,
	...shipmentMaskRoutes,
	...companyUserRoutes,
];
