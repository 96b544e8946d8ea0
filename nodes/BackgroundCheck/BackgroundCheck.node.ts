import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { BACKGROUND_CHECK_API_CREDENTIAL } from '../../credentials/BackgroundCheckApi.credentials';
import { router } from './actions/router';
import { properties } from './actions/versionDescription';
import { listSearch, loadOptions } from './methods';

export class BackgroundCheck implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Background Check',
		name: 'backgroundCheck',
		icon: { light: 'file:backgroundCheck.svg', dark: 'file:backgroundCheck.dark.svg' },
		group: ['output'],
		// 1.1: Output (Simplified by default, Raw, Selected Fields) on the reads whose records have more than 10
		// fields; saved workflows of version 1 have no Output and keep the whole records (helpers/simplify.ts).
		version: [1, 1.1],
		defaultVersion: 1.1,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description:
			'Order background screenings (cases) for candidates, add services, read results and statuses, and manage testimony, secure documents and reference lists of the background-check API',
		defaults: { name: 'Background Check' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: BACKGROUND_CHECK_API_CREDENTIAL, required: true }],
		properties,
	};

	methods = { listSearch, loadOptions };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
