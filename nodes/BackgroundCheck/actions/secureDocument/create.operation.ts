import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { mergeBody, withoutEmptyValues } from '../../helpers/body';
import { runWriteForEachItem } from '../../helpers/execute';
import { concurrencyField } from '../../helpers/fields';
import { recordsOf } from '../../../shared/transport/listResponses';
import { readJsonObject } from '../../helpers/parameters';
import { checkBody, invalidInput } from '../../helpers/inputChecks';
import { apiPath, apiRequest } from '../../../shared/transport';

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
			'Name of the binary field of the input item that holds the file, such as a license scan or a diploma. Several names separated by commas create one document each, in one request.',
	},
	{
		displayName: 'File Format',
		name: 'fileFormat',
		type: 'string',
		default: '',
		placeholder: 'e.g. pdf',
		description:
			'Optional fileFormat of each record (spec: secure document records accept an optional fileFormat; its values are not shown). Leave empty to send the file’s extension, e.g. pdf.',
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		options: [
			{
				displayName: 'File Name',
				name: 'fileName',
				type: 'string',
				default: '',
				description:
					'Name to store the document under instead of the binary file’s own name. Sent as fileName (key name from the sandbox; the spec does not show the record).',
			},
			{
				displayName: 'Description',
				name: 'description',
				type: 'string',
				default: '',
				description: 'What the document is. Sent as description (key name from the sandbox).',
			},
			concurrencyField,
		],
	},
	{
		displayName: 'Additional Document Fields (JSON)',
		name: 'additionalDocumentFields',
		type: 'json',
		default: '{}',
		description:
			'Record keys the API accepts but this node has no field for, merged into every document record after the fields above. Example: { "category": "license" }.',
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['secureDocument'], operation: ['create'] } },
	properties,
);

async function documentRecord(
	this: IExecuteFunctions,
	itemIndex: number,
	binaryPropertyName: string,
	shared: { fileFormat: string; fileName: string; description: string; additional: IDataObject },
): Promise<IDataObject> {
	const binary = this.helpers.assertBinaryData(itemIndex, binaryPropertyName);
	const content = await this.helpers.getBinaryDataBuffer(itemIndex, binaryPropertyName);
	const extension = binary.fileExtension ?? binary.fileName?.split('.').pop();
	const record = withoutEmptyValues({
		fileName: shared.fileName || binary.fileName,
		fileFormat: shared.fileFormat || extension?.toLowerCase(),
		description: shared.description,
		content: content.toString('base64'),
	});
	return mergeBody(record, shared.additional);
}

/**
 * POST /document/secure/create with `{ documents: [{ fileName, fileFormat, description, content }] }`
 * (content is the file in base64; the shape is the sandbox's). One output item per created document, whose
 * `id` goes into secureDocumentIds of order data and testimony. A write: sent once, several items at a time.
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runWriteForEachItem.call(this, async (itemIndex) => {
		const names = (this.getNodeParameter('binaryPropertyName', itemIndex, '') as string)
			.split(',')
			.map((name) => name.trim())
			.filter(Boolean);
		if (names.length === 0) {
			throw invalidInput(
				this.getNode(),
				itemIndex,
				'Input Binary Field is empty',
				'Enter the name of the binary field that holds the file, such as data.',
			);
		}
		const options = this.getNodeParameter('options', itemIndex, {}) as {
			fileName?: string;
			description?: string;
		};
		const shared = {
			fileFormat: (this.getNodeParameter('fileFormat', itemIndex, '') as string).trim(),
			fileName: options.fileName?.trim() ?? '',
			description: options.description?.trim() ?? '',
			additional: readJsonObject.call(
				this,
				itemIndex,
				'additionalDocumentFields',
				'Additional Document Fields (JSON)',
			),
		};
		const documents: IDataObject[] = [];
		for (const name of names)
			documents.push(await documentRecord.call(this, itemIndex, name, shared));
		const body = { documents };
		checkBody(this.getNode(), body, itemIndex);
		const response = await apiRequest.call(this, 'POST', apiPath`/document/secure/create`, {
			body,
			itemIndex,
		});
		return recordsOf(response, 'secureDocumentList');
	});
}
