import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runReadForEachItem } from '../../helpers/execute';
import { caseIdLocator } from '../../helpers/fields';
import { fileItem, fileOutputProperties, readFileOutput } from '../../helpers/files';
import { readCaseId, readId } from '../../helpers/parameters';
import { apiDownload, apiPath } from '../../../shared/transport';

const properties: INodeProperties[] = [
	caseIdLocator,
	{
		displayName: 'Legal Document Name or ID',
		name: 'serviceId',
		type: 'options',
		typeOptions: {
			loadOptionsMethod: 'getCaseLegalServices',
			loadOptionsDependsOn: ['caseId.value'],
		},
		required: true,
		default: '',
		description:
			'The authorization the candidate signed for the case (e-signature, FCRA, a disclosure): one of the case’s legal services. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
	},
	...fileOutputProperties(),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['report'], operation: ['downloadLegalDocument'] } },
	properties,
);

/** GET /case/id/{caseId}/data/{serviceId}/pdf/download: the PDF of one legal service of the case. */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runReadForEachItem.call(this, async (itemIndex) => {
		const output = readFileOutput.call(this, itemIndex);
		const caseId = readCaseId.call(this, itemIndex);
		const serviceId = readId.call(this, itemIndex, 'serviceId', 'Legal Document');
		const file = await apiDownload.call(
			this,
			'GET',
			apiPath`/case/id/${caseId}/data/${serviceId}/pdf/download`,
			{ itemIndex, headers: { Accept: 'application/pdf, application/json' } },
		);
		return await fileItem.call(
			this,
			itemIndex,
			output,
			file,
			{ what: 'the legal document', fileName: `${serviceId}-${caseId}.pdf`, pdf: true },
			{ caseId, serviceId },
		);
	});
}
