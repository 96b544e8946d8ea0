import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { withoutEmptyValues } from '../../helpers/body';
import { runWriteForEachItem } from '../../helpers/execute';
import { concurrencyField } from '../../helpers/fields';
import { invalidInput, itemLabel, requireId } from '../../helpers/inputChecks';
import { recordsOf } from '../../../shared/transport/listResponses';
import { apiPath, apiRequest } from '../../../shared/transport';
import { putPresigned } from '../../../shared/transport/files';
import { isPlainObject } from '../../../shared/values';

/** The file formats the API stores, with the media type each is uploaded as. */
const FILE_FORMATS = new Map([
	['pdf', 'application/pdf'],
	['jpg', 'image/jpeg'],
	['jpeg', 'image/jpeg'],
	['png', 'image/png'],
]);
const FORMAT_LIST = [...FILE_FORMATS.keys()].join(', ');

const DISCLOSURES_AND_AUTHORIZATIONS = 'candidate-disclosures-and-authorizations';

const properties: INodeProperties[] = [
	{
		displayName: 'Input Binary Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		placeholder: 'e.g. data',
		hint: 'The name of the input binary field containing the file to upload',
		description:
			'Name of the binary field of the input item that holds the file, such as a signed authorization. Several names separated by commas upload one document each, in one request.',
	},
	{
		displayName: 'Document Type Name or ID',
		name: 'documentTypeId',
		type: 'options',
		typeOptions: { loadOptionsMethod: 'getDocumentTypes' },
		default: DISCLOSURES_AND_AUTHORIZATIONS,
		description:
			'The type of the document, sent as documentTypeId; the candidate’s signed disclosures and authorizations are candidate-disclosures-and-authorizations. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
	},
	{
		displayName: 'File Format',
		name: 'fileFormat',
		type: 'options',
		options: [
			{ name: 'From the File Name', value: '', description: 'The extension of the file' },
			{ name: 'JPEG (.jpeg)', value: 'jpeg' },
			{ name: 'JPEG (.jpg)', value: 'jpg' },
			{ name: 'PDF', value: 'pdf' },
			{ name: 'PNG', value: 'png' },
		],
		default: '',
		description: `The format of the file, sent as fileFormat; the API stores ${FORMAT_LIST}`,
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Case ID (Access)',
				name: 'accessCaseId',
				type: 'string',
				default: '',
				placeholder: 'e.g. a09215ff-f46c-49a6-9767-762da1f3afd2',
				description: 'The case that may use the document, sent as accessGrants.caseId',
			},
			concurrencyField,
			{
				displayName: 'Description',
				name: 'description',
				type: 'string',
				default: '',
				description: 'What the document is, sent as description',
			},
			{
				displayName: 'File Name',
				name: 'fileName',
				type: 'string',
				default: '',
				description:
					'Name to store the document under instead of the binary file’s own name, sent as originalFileName',
			},
			{
				displayName: 'Title',
				name: 'title',
				type: 'string',
				default: '',
				description: 'A title for the document, sent as title',
			},
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['secureDocument'], operation: ['create'] } },
	properties,
);

interface FileToUpload {
	fileName: string;
	fileFormat: string;
	mimeType: string;
	content: Buffer;
}

/** One binary field of the item, with its name, format and media type, or an error naming what is wrong. */
async function fileOf(
	this: IExecuteFunctions,
	itemIndex: number,
	binaryPropertyName: string,
	chosen: { fileFormat: string; fileName: string },
): Promise<FileToUpload> {
	const binary = this.helpers.assertBinaryData(itemIndex, binaryPropertyName);
	const fileName = chosen.fileName || binary.fileName || `${binaryPropertyName}`;
	const extension = (binary.fileExtension ?? binary.fileName?.split('.').pop() ?? '').toLowerCase();
	const fileFormat = chosen.fileFormat || extension;
	const formatMimeType = FILE_FORMATS.get(fileFormat);
	if (formatMimeType === undefined)
		throw invalidInput(
			this.getNode(),
			itemIndex,
			fileFormat === ''
				? `The file in '${binaryPropertyName}' has no file format`
				: `The file format "${fileFormat}" of '${binaryPropertyName}' is not one the API stores`,
			`The API stores ${FORMAT_LIST} files. Choose the File Format, or convert the file first.`,
		);
	const content = await this.helpers.getBinaryDataBuffer(itemIndex, binaryPropertyName);
	return { fileName, fileFormat, mimeType: binary.mimeType || formatMimeType, content };
}

/** The pre-signed upload addresses of POST /document/secure/upload, one per file and in their order. */
function uploadTargets(
	this: IExecuteFunctions,
	itemIndex: number,
	response: unknown,
	count: number,
): Array<{ url: string; fileKey: string }> {
	const targets = recordsOf(response, 'list').filter(
		(entry): entry is { url: string; fileKey: string } =>
			isPlainObject(entry) &&
			typeof entry.url === 'string' &&
			/^https?:\/\//i.test(entry.url) &&
			typeof entry.fileKey === 'string' &&
			entry.fileKey !== '',
	);
	if (targets.length !== count)
		throw new NodeOperationError(
			this.getNode(),
			`The API gave ${targets.length} upload addresses for ${count} file(s) ${itemLabel(itemIndex)}`,
			{ itemIndex, description: 'Nothing was stored; this item can be run again.' },
		);
	return targets;
}

/**
 * Secure Document > Upload, in the API's three steps: POST /document/secure/upload `{ files: [{
 * documentTypeId, mimeType }] }` answers a pre-signed `url` and a `fileKey` per file; the bytes are PUT to
 * each url; POST /document/secure/create `{ list: [{ originalFileName, documentTypeId, fileKey, fileFormat }],
 * accessGrants? }` answers `{ list: [{ secureDocumentId }] }`. One output item per document. A write: sent
 * once, several items at a time.
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runWriteForEachItem.call(this, async (itemIndex) => {
		const node = this.getNode();
		const names = String(this.getNodeParameter('binaryPropertyName', itemIndex, '') ?? '')
			.split(',')
			.map((name) => name.trim())
			.filter(Boolean);
		if (names.length === 0)
			throw invalidInput(
				node,
				itemIndex,
				'Input Binary Field is empty',
				'Enter the name of the binary field that holds the file, such as data.',
			);
		const documentTypeId = requireId(
			node,
			this.getNodeParameter('documentTypeId', itemIndex, ''),
			'Document Type',
			itemIndex,
		);
		const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
		const chosen = {
			fileFormat: String(this.getNodeParameter('fileFormat', itemIndex, '') ?? '')
				.trim()
				.toLowerCase(),
			fileName: typeof options.fileName === 'string' ? options.fileName.trim() : '',
		};
		const accessCaseId =
			typeof options.accessCaseId === 'string' && options.accessCaseId.trim() !== ''
				? requireId(node, options.accessCaseId, 'Case ID (Access)', itemIndex)
				: undefined;
		const files: FileToUpload[] = [];
		for (const name of names) files.push(await fileOf.call(this, itemIndex, name, chosen));

		const upload = await apiRequest.call(this, 'POST', apiPath`/document/secure/upload`, {
			body: { files: files.map((file) => ({ documentTypeId, mimeType: file.mimeType })) },
			itemIndex,
		});
		const targets = uploadTargets.call(this, itemIndex, upload, files.length);
		for (const [index, file] of files.entries())
			await putPresigned.call(this, targets[index].url, file, itemIndex);

		const records = files.map((file, index) =>
			withoutEmptyValues({
				originalFileName: file.fileName,
				documentTypeId,
				fileKey: targets[index].fileKey,
				fileFormat: file.fileFormat,
				title: typeof options.title === 'string' ? options.title.trim() : undefined,
				description:
					typeof options.description === 'string' ? options.description.trim() : undefined,
			}),
		);
		const created = await apiRequest.call(this, 'POST', apiPath`/document/secure/create`, {
			body: {
				list: records,
				...(accessCaseId === undefined ? {} : { accessGrants: { caseId: accessCaseId } }),
			},
			itemIndex,
		});
		const ids = recordsOf(created, 'list');
		return records.map((record, index) => ({
			secureDocumentId: ids[index]?.secureDocumentId,
			...record,
			...(accessCaseId === undefined ? {} : { caseId: accessCaseId }),
		}));
	});
}
