import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { ApiFile } from '../../shared/transport';
import { FileItem } from './execute';
import { concurrencyField } from './fields';
import { invalidInput } from './inputChecks';

/** "Put Output File in Field": the binary field a downloaded file goes to (n8n's name for it). */
const binaryPropertyField: INodeProperties = {
	displayName: 'Put Output File in Field',
	name: 'binaryPropertyName',
	type: 'string',
	default: 'data',
	required: true,
	hint: 'The name of the output binary field to put the file in',
	description: 'Name of the binary field of the output item that gets the downloaded file',
};

/** "File Name" of an Options collection: the name the downloaded file gets instead of the API's. */
const fileNameOption: INodeProperties = {
	displayName: 'File Name',
	name: 'fileName',
	type: 'string',
	default: '',
	placeholder: 'e.g. report.pdf',
	description:
		'Name of the file in the output, such as the name an ATS shows for the attachment. Empty: the name the API gives, or one made of the case ID.',
};

/**
 * The fields of an operation that outputs a file: Put Output File in Field, and an Options collection with the
 * operation's own options, File Name and Concurrent Requests.
 */
export function fileOutputProperties(options: INodeProperties[] = []): INodeProperties[] {
	return [
		binaryPropertyField,
		{
			displayName: 'Options',
			name: 'options',
			type: 'collection',
			placeholder: 'Add Option',
			default: {},
			options: [...options, fileNameOption, concurrencyField],
		},
	];
}

/** Where the PDF header may start: the PDF format allows bytes before it within the first kilobyte. */
const PDF_HEADER_WITHIN = 1024;

export function isPdf(content: Buffer): boolean {
	return content.subarray(0, PDF_HEADER_WITHIN + 5).includes('%PDF-');
}

/** Where a downloaded file goes, read (and checked) before any request. */
export interface FileOutput {
	binaryPropertyName: string;
	/** The name the user chose, '' for the API's (or the default). */
	fileName: string;
}

export function readFileOutput(this: IExecuteFunctions, itemIndex: number): FileOutput {
	const binaryPropertyName = String(
		this.getNodeParameter('binaryPropertyName', itemIndex, 'data') ?? '',
	).trim();
	if (binaryPropertyName === '')
		throw invalidInput(
			this.getNode(),
			itemIndex,
			'Put Output File in Field is empty',
			'Enter the name of the binary field for the file, such as data.',
		);
	const fileName = String(this.getNodeParameter('options.fileName', itemIndex, '') ?? '').trim();
	return { binaryPropertyName, fileName };
}

/**
 * A downloaded file as an output item: the bytes in the binary field the user named (n8n's binary data
 * conventions: file name, MIME type, extension), and beside them, in the JSON, what the file is. A PDF
 * download that is not a PDF is an error, not a file that a later step would send on to an ATS.
 */
export async function fileItem(
	this: IExecuteFunctions,
	itemIndex: number,
	output: FileOutput,
	file: ApiFile,
	expected: { what: string; fileName: string; pdf: boolean },
	json: IDataObject,
): Promise<FileItem> {
	if (file.content.length === 0)
		throw new NodeOperationError(this.getNode(), `The API sent ${expected.what} with no content`, {
			itemIndex,
			description: 'The document may not be ready yet; run the item again later.',
		});
	if (expected.pdf && !isPdf(file.content))
		throw new NodeOperationError(
			this.getNode(),
			`The API sent ${expected.what} that is not a PDF`,
			{
				itemIndex,
				description: `It sent ${file.content.length} bytes${file.mimeType ? ` of ${file.mimeType}` : ''} without a PDF header; nothing was output.`,
			},
		);
	const fileName = output.fileName || file.fileName || expected.fileName;
	const mimeType = expected.pdf ? 'application/pdf' : (file.mimeType ?? 'application/octet-stream');
	const binary = await this.helpers.prepareBinaryData(file.content, fileName, mimeType);
	return new FileItem(
		{ ...json, fileName, mimeType, fileSize: file.content.length },
		{ [output.binaryPropertyName]: binary },
	);
}
