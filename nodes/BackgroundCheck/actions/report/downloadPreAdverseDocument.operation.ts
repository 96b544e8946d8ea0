import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runReadForEachItem } from '../../helpers/execute';
import { caseIdLocator } from '../../helpers/fields';
import { fileItem, fileOutputProperties, readFileOutput } from '../../helpers/files';
import { invalidInput } from '../../helpers/inputChecks';
import { readCaseId } from '../../helpers/parameters';
import { apiDownload, apiPath } from '../../../shared/transport';

/** The two documents of a pre-adverse action, as the reference names them in the path. */
const DOCUMENTS = [
	{
		name: 'Notice',
		value: 'notice',
		description: 'The pre-adverse action notice the candidate was sent',
	},
	{
		name: 'Report',
		value: 'report',
		description: 'The case report as it stood when the pre-adverse action started',
	},
] as const;

const properties: INodeProperties[] = [
	caseIdLocator,
	{
		displayName: 'Type',
		name: 'type',
		type: 'options',
		options: [...DOCUMENTS],
		default: 'notice',
		description: 'Which document of the case’s pre-adverse action to download',
	},
	...fileOutputProperties(),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['report'], operation: ['downloadPreAdverseDocument'] } },
	properties,
);

/**
 * GET /case/id/{caseId}/preadverse/{type}/pdf/download (`notice` or `report`): a document of the case's
 * pre-adverse action; the API answers 422 for a case not in an adverse action process.
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runReadForEachItem.call(this, async (itemIndex) => {
		const output = readFileOutput.call(this, itemIndex);
		const caseId = readCaseId.call(this, itemIndex);
		const type = String(this.getNodeParameter('type', itemIndex, '') ?? '');
		if (!DOCUMENTS.some((entry) => entry.value === type))
			throw invalidInput(
				this.getNode(),
				itemIndex,
				`Type "${type}" is not a pre-adverse action document`,
				'Choose Notice or Report.',
			);
		const file = await apiDownload.call(
			this,
			'GET',
			apiPath`/case/id/${caseId}/preadverse/${type}/pdf/download`,
			{ itemIndex, headers: { Accept: 'application/pdf, application/json' } },
		);
		return await fileItem.call(
			this,
			itemIndex,
			output,
			file,
			{
				what: `the pre-adverse action ${type}`,
				fileName: `pre-adverse-${type}-${caseId}.pdf`,
				pdf: true,
			},
			{ caseId, type },
		);
	});
}
