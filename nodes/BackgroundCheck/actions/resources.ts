import type { INodePropertyOptions } from 'n8n-workflow';

import type { OperationModule } from '../helpers/operation';
import * as adverseAction from './adverseAction';
import * as caseResource from './case';
import * as caseData from './caseData';
import * as companyUser from './companyUser';
import * as cplc from './cplc';
import * as invitation from './invitation';
import * as packageResource from './package';
import * as report from './report';
import * as secureDocument from './secureDocument';
import * as shipmentMask from './shipmentMask';
import * as testimony from './testimony';
import * as verificationBook from './verificationBook';

/**
 * The node's resources, the one list of them: the Resource picker (in this order, with each name and
 * description), the fields and the router (each resource folder's module) come from it. Resource and operation values are saved in users' workflows: never rename one.
 */
export const resources = {
	adverseAction: {
		name: 'Adverse Action',
		description:
			'The adverse action process of a completed case: the pre-adverse action notice sent to the candidate',
		module: adverseAction,
	},
	case: {
		name: 'Case',
		description: 'A background-check order for one candidate',
		module: caseResource,
	},
	caseData: {
		name: 'Case Data',
		description: 'One service (screening) inside a case, with its status and search records',
		module: caseData,
	},
	companyUser: {
		name: 'Company User',
		description: 'Users of the company, by group',
		module: companyUser,
	},
	invitation: {
		name: 'Invitation',
		description:
			'The email inviting the candidate of a case to onboard (supply their data and authorization)',
		module: invitation,
	},
	package: {
		name: 'Package',
		description: 'A named set of services a case can be ordered with',
		module: packageResource,
	},
	cplc: {
		name: 'Professional License (CPLC)',
		description: 'Definitions of the professional licenses and certifications supplied to a case',
		module: cplc,
	},
	report: {
		name: 'Report',
		description:
			'The PDF documents of a case: its report, the authorizations signed, the pre-adverse action',
		module: report,
	},
	secureDocument: {
		name: 'Secure Document',
		description:
			'A file (such as the candidate’s signed authorization) stored for a case or order data',
		module: secureDocument,
	},
	shipmentMask: {
		name: 'Shipment Mask',
		description: 'Masks that can be shipped for occupational health screenings',
		module: shipmentMask,
	},
	testimony: {
		name: 'Testimony',
		description:
			'What the candidate reports (education, employment, licenses, address, ...), supplied for a case',
		module: testimony,
	},
	verificationBook: {
		name: 'Verification Book',
		description: 'The directory of employers and schools used for verifications',
		module: verificationBook,
	},
};

export type BackgroundCheckResource = keyof typeof resources;

/** Resource → its operation values. */
export type BackgroundCheckOperations = {
	[R in BackgroundCheckResource]: keyof (typeof resources)[R]['module']['operations'];
};

export const resourceOptions: INodePropertyOptions[] = Object.entries(resources).map(
	([value, resource]) => ({
		name: resource.name,
		value,
		description: resource.description,
	}),
);

/** Resource → operation → its module (fields and execute). */
export const operations = Object.fromEntries(
	Object.entries(resources).map(([value, resource]) => [value, resource.module.operations]),
) as { [R in BackgroundCheckResource]: Record<BackgroundCheckOperations[R], OperationModule> };
