import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { asRecord, runWriteForEachItem } from '../../helpers/execute';
import { caseIdLocator, idField } from '../../helpers/fields';
import { readCaseId, readId } from '../../helpers/parameters';
import {
	buildTestimonyBody,
	TESTIMONY_OPTIONS,
	testimonyProperties,
} from '../../helpers/testimony';
import { apiPath, apiRequest } from '../../../shared/transport';

const properties: INodeProperties[] = [
	caseIdLocator,
	idField({
		displayName: 'CPLC Definition ID',
		name: 'cplcId',
		placeholder: 'e.g. cplc-registered-nurse',
		description:
			'ID of the professional license or certification definition this testimony fills in (the id of spec 2.2). Your provider gives these IDs; CPLC > Get Definitions lists those already supplied to a case. Sent as cplcId (key name from the sandbox).',
	}),
	...testimonyProperties(false),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['testimony'], operation: ['create'] } },
	properties,
);

/** POST /testimony/create/case/id/{caseId}; a write: sent once, several items at a time. */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runWriteForEachItem.call(
		this,
		async (itemIndex) => {
			const caseId = readCaseId.call(this, itemIndex);
			const cplcId = readId.call(this, itemIndex, 'cplcId', 'CPLC Definition ID');
			const body = { cplcId, ...buildTestimonyBody.call(this, itemIndex, false) };
			const response = await apiRequest.call(
				this,
				'POST',
				apiPath`/testimony/create/case/id/${caseId}`,
				{ body, itemIndex },
			);
			return asRecord(response, { caseId, cplcId, success: true });
		},
		TESTIMONY_OPTIONS,
	);
}
