import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runReadForEachItem } from '../../helpers/execute';
import { caseIdLocator } from '../../helpers/fields';
import { fileItem, fileOutputProperties, readFileOutput } from '../../helpers/files';
import { requireIdList } from '../../helpers/inputChecks';
import { readCaseId } from '../../helpers/parameters';
import { SCREENING_SERVICE_TYPE_ID } from '../../../shared/catalog';
import { recordsOf } from '../../../shared/transport/listResponses';
import { apiPath, apiRequest, requestDownloadUrl } from '../../../shared/transport';
import { fetchPresigned } from '../../../shared/transport/files';

const properties: INodeProperties[] = [
	caseIdLocator,
	...fileOutputProperties([
		{
			displayName: 'Screening Names or IDs',
			name: 'caseDataIds',
			type: 'multiOptions',
			typeOptions: {
				loadOptionsMethod: 'getCaseScreenings',
				loadOptionsDependsOn: ['caseId.value'],
			},
			default: [],
			description:
				'The screenings (case data) to put in the report; each must be complete. Without any, the report covers the whole case. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
		},
		{
			displayName: 'Exclude Attachments',
			name: 'excludeAttachments',
			type: 'boolean',
			default: false,
			description:
				'Whether to leave out the attachments some screenings have (search results, supporting documents)',
		},
	]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['report'], operation: ['downloadCaseReport'] } },
	properties,
);

/**
 * The case report as a PDF: GET /case/id/{caseId}/report/pdf/download/url (the whole case), or its POST with
 * `{ caseDataIds, excludeCaseDataAttachments }` (chosen screenings, or all of them without attachments). The
 * API answers a pre-signed address living 60 seconds, fetched at once without the credential.
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runReadForEachItem.call(this, async (itemIndex) => {
		const output = readFileOutput.call(this, itemIndex);
		const caseId = readCaseId.call(this, itemIndex);
		const chosen = requireIdList(
			this.getNode(),
			this.getNodeParameter('options.caseDataIds', itemIndex, []),
			'Screening',
			itemIndex,
		);
		const excludeAttachments = this.getNodeParameter(
			'options.excludeAttachments',
			itemIndex,
			false,
		) as boolean;
		let caseDataIds: string[] | undefined = chosen.length > 0 ? chosen : undefined;
		if (caseDataIds === undefined && excludeAttachments) {
			const screenings = await apiRequest.call(
				this,
				'GET',
				apiPath`/case/id/${caseId}/data/${SCREENING_SERVICE_TYPE_ID}`,
				{ itemIndex },
			);
			caseDataIds = recordsOf(screenings, 'data')
				.map((record) => record.id)
				.filter((id): id is string => typeof id === 'string');
		}
		const path = apiPath`/case/id/${caseId}/report/pdf/download/url`;
		const url =
			caseDataIds === undefined
				? await requestDownloadUrl.call(this, 'GET', path, 'the case report', { itemIndex })
				: await requestDownloadUrl.call(this, 'POST', path, 'the case report', {
						itemIndex,
						body: { caseDataIds, excludeCaseDataAttachments: excludeAttachments },
					});
		const file = await fetchPresigned.call(this, url, 'the case report', itemIndex);
		return await fileItem.call(
			this,
			itemIndex,
			output,
			file,
			{ what: 'the case report', fileName: `case-report-${caseId}.pdf`, pdf: true },
			{ caseId, ...(caseDataIds === undefined ? {} : { caseDataIds }), excludeAttachments },
		);
	});
}
