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
	idField({
		displayName: 'Testimony ID',
		name: 'testimonyId',
		placeholder: 'e.g. 83b7eaf3-0409-4863-9709-14e28ab9cfa7',
		description: 'ID of the testimony to replace, as returned by Testimony > Create',
	}),
	{
		...caseIdLocator,
		description: 'The case the testimony belongs to. Pick it from the list or enter its ID.',
	},
	...testimonyProperties,
];

export const description = updateDisplayOptions(
	{ show: { resource: ['testimony'], operation: ['update'] } },
	properties,
);

/**
 * POST /testimony/id/{testimonyId}/update/case/id/{caseId} with the whole testimony (its type must stay the
 * one it was created with). Answers `{ id }`: the same ID, or a new one when the testimony is also used by
 * other cases (the API then leaves it as it was and attaches a new one to this case).
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runWriteForEachItem.call(
		this,
		async (itemIndex) => {
			const testimonyId = readId.call(this, itemIndex, 'testimonyId', 'Testimony ID');
			const caseId = readCaseId.call(this, itemIndex);
			const body = buildTestimonyBody.call(this, itemIndex);
			const response = await apiRequest.call(
				this,
				'POST',
				apiPath`/testimony/id/${testimonyId}/update/case/id/${caseId}`,
				{ body, itemIndex },
			);
			return {
				id: testimonyId,
				...asRecord(response, {}),
				caseId,
				testimonyTypeId: body.testimonyTypeId,
				updatedTestimonyId: testimonyId,
			};
		},
		TESTIMONY_OPTIONS,
	);
}
