import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../../helpers/fields';
import * as downloadCaseReport from './downloadCaseReport.operation';
import * as downloadLegalDocument from './downloadLegalDocument.operation';
import * as downloadPreAdverseDocument from './downloadPreAdverseDocument.operation';

export const operations = { downloadCaseReport, downloadLegalDocument, downloadPreAdverseDocument };

export const description: INodeProperties[] = [
	operationSelector('report', [
		{
			name: 'Download Case Report',
			value: 'downloadCaseReport',
			description:
				'Download the case’s background-check report as a PDF file (the whole case, or chosen screenings), e.g. to attach it to the candidate in an ATS',
			action: 'Download a case report',
		},
		{
			name: 'Download Legal Document',
			value: 'downloadLegalDocument',
			description:
				'Download as a PDF file an authorization the candidate signed for the case (e-signature, FCRA, a disclosure)',
			action: 'Download a legal document of a case',
		},
		{
			name: 'Download Pre-Adverse Document',
			value: 'downloadPreAdverseDocument',
			description:
				'Download as a PDF file the pre-adverse action notice sent to the candidate, or the report it was based on',
			action: 'Download a pre-adverse action document',
		},
	]),
	...downloadCaseReport.description,
	...downloadLegalDocument.description,
	...downloadPreAdverseDocument.description,
];
