import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runReadForEachItem } from '../../helpers/execute';
import { idField } from '../../helpers/fields';
import { fileItem, fileOutputProperties, readFileOutput } from '../../helpers/files';
import { readId } from '../../helpers/parameters';
import { apiPath, requestDownloadUrl } from '../../../shared/transport';
import { fetchPresigned } from '../../../shared/transport/files';

const properties: INodeProperties[] = [
	idField({
		displayName: 'Secure Document ID',
		name: 'secureDocumentId',
		placeholder: 'e.g. 5f0c2a8e-...',
		description:
			'ID of the document to download: the ID of an item of Secure Document > Get Many, or of an upload',
	}),
	...fileOutputProperties(),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['secureDocument'], operation: ['download'] } },
	properties,
);

/**
 * GET /document/secure/id/{secureDocumentId}/download/url answers a pre-signed address, fetched at once
 * without the credential; the file keeps the type the storage gives it.
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await runReadForEachItem.call(this, async (itemIndex) => {
		const output = readFileOutput.call(this, itemIndex);
		const secureDocumentId = readId.call(this, itemIndex, 'secureDocumentId', 'Secure Document ID');
		const what = `the secure document ${secureDocumentId}`;
		const url = await requestDownloadUrl.call(
			this,
			'GET',
			apiPath`/document/secure/id/${secureDocumentId}/download/url`,
			what,
			{ itemIndex },
		);
		const file = await fetchPresigned.call(this, url, what, itemIndex);
		const fromUrl = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '');
		return await fileItem.call(
			this,
			itemIndex,
			output,
			file,
			{ what, fileName: file.fileName ?? (fromUrl || secureDocumentId), pdf: false },
			{ secureDocumentId },
		);
	});
}
