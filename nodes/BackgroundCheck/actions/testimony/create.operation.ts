import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { asRecord, runWriteForEachItem } from '../../helpers/execute';
import { caseIdLocator } from '../../helpers/fields';
import { readCaseId } from '../../helpers/parameters';
import {
	buildTestimonyBody,
	TESTIMONY_OPTIONS,
	testimonyProperties,
} from '../../helpers/testimony';
import { apiPath, apiRequest } from '../../../shared/transport';

const properties: INodeProperties[] = [caseIdLocator, ...testimonyProperties];

export const description = updateDisplayOptions(
	{ show: { resource: ['testimony'], operation: ['create'] } },
	properties,
);

/**
 * POST /testimony/create/case/id/{caseId} with a Testimony; answers `{ id }` (the new testimony's ID). A
 * write: sent once, several items at a time.
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runWriteForEachItem.call(
		this,
		async (itemIndex) => {
			const caseId = readCaseId.call(this, itemIndex);
			const body = buildTestimonyBody.call(this, itemIndex);
			const response = await apiRequest.call(
				this,
				'POST',
				apiPath`/testimony/create/case/id/${caseId}`,
				{ body, itemIndex },
			);
			return { ...asRecord(response, {}), caseId, testimonyTypeId: body.testimonyTypeId };
		},
		TESTIMONY_OPTIONS,
	);
}
