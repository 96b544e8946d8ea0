import type { INodeProperties } from 'n8n-workflow';

import * as caseResource from './case';
import * as caseData from './caseData';
import * as companyUser from './companyUser';
import * as cplc from './cplc';
import * as packageResource from './package';
import * as secureDocument from './secureDocument';
import * as shipmentMask from './shipmentMask';
import * as testimony from './testimony';
import * as verificationBook from './verificationBook';

/**
 * The node's parameters: the resource picker and, per resource, its operations and their fields. The
 * node's identity (name, icon, subtitle, credentials) lives in BackgroundCheck.node.ts, where n8n's
 * community-package scanner requires it.
 */
export const properties: INodeProperties[] = [
	{
		displayName: 'Resource',
		name: 'resource',
		type: 'options',
		noDataExpression: true,
		options: [
			{ name: 'Case', value: 'case', description: 'A background-check order for one candidate' },
			{
				name: 'Case Data',
				value: 'caseData',
				description: 'One service (screening) inside a case, with its status and search records',
			},
			{ name: 'Company User', value: 'companyUser', description: 'Users of the company, by group' },
			{ name: 'Package', value: 'package', description: 'A named set of services a case can be ordered with' },
			{
				name: 'Professional License (CPLC)',
				value: 'cplc',
				description: 'Definitions of the professional licenses and certifications supplied to a case',
			},
			{
				name: 'Secure Document',
				value: 'secureDocument',
				description: 'A file (such as a license or a diploma) stored for use in order data and testimony',
			},
			{ name: 'Shipment Mask', value: 'shipmentMask', description: 'Where collection kits are shipped' },
			{
				name: 'Testimony',
				value: 'testimony',
				description: 'Professional license or certification details supplied for a case',
			},
			{
				name: 'Verification Book',
				value: 'verificationBook',
				description: 'The directory of employers and schools used for verifications',
			},
		],
		default: 'case',
	},
	...caseResource.description,
	...caseData.description,
	...companyUser.description,
	...cplc.description,
	...packageResource.description,
	...secureDocument.description,
	...shipmentMask.description,
	...testimony.description,
	...verificationBook.description,
];
