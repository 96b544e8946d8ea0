import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { withStatusHints, writeDone } from '../../helpers/answers';
import { withoutEmptyValues } from '../../helpers/body';
import { runForEachItem } from '../../helpers/execute';
import { caseIdLocator } from '../../helpers/fields';
import { invalidInput, requireIdList } from '../../helpers/inputChecks';
import { readCaseId } from '../../helpers/parameters';
import { apiPath, apiRequest } from '../../../shared/transport';

const properties: INodeProperties[] = [
	caseIdLocator,
	{
		displayName: 'Reason',
		name: 'reason',
		type: 'string',
		typeOptions: { rows: 3 },
		default: '',
		placeholder: 'e.g. The drug test result does not meet the requirements of the position.',
		description:
			'Why the adverse action process is started, sent as reason. The candidate sees it in the pre-adverse action notice.',
	},
	{
		displayName: 'Screening Names or IDs',
		name: 'adverseScreeningSelections',
		type: 'multiOptions',
		typeOptions: {
			loadOptionsMethod: 'getOrderedScreenings',
			loadOptionsDependsOn: ['caseId.value'],
		},
		default: [],
		description:
			'The screenings of the case whose results are the basis of the action (the list shows the screenings ordered for the chosen case), sent as adverseScreeningSelections. The candidate sees them in the pre-adverse action notice. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['adverseAction'], operation: ['startPreAdverse'] } },
	properties,
);

/**
 * POST /case/id/{caseId}/action/preadverse with `{ reason, adverseScreeningSelections }`: the case goes into
 * Pre-Adverse Action and the API emails the candidate the pre-adverse action notice, which shows both. The
 * reference makes the body optional; at least one of them is required here, so that the notice says why (and
 * n8n sends an empty object as no body at all). The API answers 200 with no body, or 422 when the case is
 * not complete. A write: sent once, one item after the other.
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runForEachItem.call(
		this,
		async (itemIndex) => {
			const node = this.getNode();
			const caseId = readCaseId.call(this, itemIndex);
			const reason = String(this.getNodeParameter('reason', itemIndex, '') ?? '').trim();
			const screenings = [
				...new Set(
					requireIdList(
						node,
						this.getNodeParameter('adverseScreeningSelections', itemIndex, []),
						'Screenings',
						itemIndex,
					),
				),
			];
			if (reason === '' && screenings.length === 0)
				throw invalidInput(
					node,
					itemIndex,
					'Reason and Screenings are empty',
					'Give the reason, the screenings whose results are the basis of the action, or both: the candidate sees them in the pre-adverse action notice.',
				);
			const body: IDataObject = withoutEmptyValues({
				reason,
				adverseScreeningSelections: screenings,
			});
			const response = await withStatusHints(
				apiRequest.call(this, 'POST', apiPath`/case/id/${caseId}/action/preadverse`, {
					body,
					itemIndex,
				}),
				{
					422: 'The case cannot be put into Pre-Adverse Action, most likely because it is not complete (every screening must have reached a complete status, clear or with records).',
				},
			);
			return writeDone(
				node,
				response,
				{ caseId, preAdverseActionStarted: true, ...body },
				{
					endpoint: 'POST /case/id/{caseId}/action/preadverse',
					itemIndex,
					checkWith: 'Case > Get (adverseActionStatusName)',
				},
			);
		},
		{ write: true },
	);
}
