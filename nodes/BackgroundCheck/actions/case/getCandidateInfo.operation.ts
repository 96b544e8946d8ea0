import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { recordIn, withStatusHints } from '../../helpers/answers';
import { runReadForEachItem } from '../../helpers/execute';
import { caseIdLocator, concurrencyOptions } from '../../helpers/fields';
import { readCaseId } from '../../helpers/parameters';
import { outputParameters, readOutput, shapeOutput } from '../../helpers/simplify';
import { apiPath, apiRequest } from '../../../shared/transport';

const properties: INodeProperties[] = [
	caseIdLocator,
	...outputParameters('candidate'),
	concurrencyOptions,
];

export const description = updateDisplayOptions(
	{ show: { resource: ['case'], operation: ['getCandidateInfo'] } },
	properties,
);

/** What the API links to a case before a candidate exists (reference, 404 of this endpoint). */
const NO_CANDIDATE_YET =
	'No candidate is linked to the case yet: in the candidate onboarding flow, the candidate has not begun onboarding; with customer-provided data, a candidate may already exist under that email with other personal data.';

/**
 * GET /candidate/info/case/id/{caseId}, which answers `{ candidate }`: the output item is the candidate (id,
 * email, names, phone, dob, govtId with only its last 4 digits, piiLocked, ...), without `password` (the API
 * sends an obfuscated one; it is no data about the candidate and never output). With Output > Simplified (the
 * default), only the fields of SIMPLIFIED_FIELDS.candidate.
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runReadForEachItem.call(this, async (itemIndex) => {
		const outputChoice = readOutput.call(this, itemIndex, 'candidate');
		const caseId = readCaseId.call(this, itemIndex);
		const response = await withStatusHints(
			apiRequest.call(this, 'GET', apiPath`/candidate/info/case/id/${caseId}`, { itemIndex }),
			{ 404: NO_CANDIDATE_YET },
		);
		const candidate = {
			...recordIn(this.getNode(), response, 'candidate', {
				endpoint: 'GET /candidate/info/case/id/{caseId}',
				itemIndex,
			}),
		};
		delete candidate.password;
		return shapeOutput(outputChoice, 'candidate', candidate);
	});
}
