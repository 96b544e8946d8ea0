import type { INodeProperties } from 'n8n-workflow';

import { resourceOptions, resources } from './resources';

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
		options: resourceOptions,
		default: 'case',
	},
	...Object.values(resources).flatMap((resource) => resource.module.description),
];
