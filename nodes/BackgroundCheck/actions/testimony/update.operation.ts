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
import { invalidInput } from '../../helpers/inputChecks';
import { apiPath, apiRequest } from '../../../shared/transport';

const properties: INodeProperties[] = [
	idField({
		displayName: 'Testimony ID',
		name: 'testimonyId',
		placeholder: 'e.g. 3f2b9c7d-...',
		description: 'ID of the testimony to change, as returned by Testimony > Create',
	}),
	{
		...caseIdLocator,
		description: 'The case the testimony belongs to. Pick it from the list or enter its ID.',
	},
	...testimonyProperties(true),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['testimony'], operation: ['update'] } },
	properties,
);

/** PUT /testimony/id/{testimonyId}/update/case/id/{caseId} with only the parts to change. */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runWriteForEachItem.call(
		this,
		async (itemIndex) => {
			const testimonyId = readId.call(this, itemIndex, 'testimonyId', 'Testimony ID');
			const caseId = readCaseId.call(this, itemIndex);
			const body = buildTestimonyBody.call(this, itemIndex, true);
			if (Object.keys(body).length === 0) {
				throw invalidInput(
					this.getNode(),
					itemIndex,
					'Nothing to update',
					'Add at least one license field, option or additional field.',
				);
			}
			const response = await apiRequest.call(
				this,
				'PUT',
				apiPath`/testimony/id/${testimonyId}/update/case/id/${caseId}`,
				{ body, itemIndex },
			);
			return asRecord(response, { id: testimonyId, caseId, success: true });
		},
		TESTIMONY_OPTIONS,
	);
}
