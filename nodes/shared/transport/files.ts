/**
 * Files: what an answer's headers say of the file in it, and the files at pre-signed storage addresses the API
 * hands out (uploads of secure documents, downloads of reports
 * and documents). Such an address carries its own authorization: it is called with n8n's plain request helper,
 * so the credential's token never goes to it, and errors name its host only (its query is a signature).
 */
import type { IExecuteFunctions, INode } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { REQUEST_TIMEOUT_MS } from './timeout';

/** A file the API answered with (a PDF), as bytes with what its headers say of it. */
export interface ApiFile {
	content: Buffer;
	/** The media type of the answer's Content-Type, without parameters; undefined when none was sent. */
	mimeType?: string;
	/** The file name of the answer's Content-Disposition, if it gave one. */
	fileName?: string;
}

/** What the Content-Type and Content-Disposition headers of an answer say of the file in it. */
export function fileHeaders(headers: Record<string, unknown> | undefined): {
	mimeType?: string;
	fileName?: string;
} {
	const header = (name: string) => {
		const value = headers?.[name];
		return typeof value === 'string' ? value : undefined;
	};
	const mimeType = header('content-type')?.split(';')[0].trim().toLowerCase() || undefined;
	const disposition = header('content-disposition') ?? '';
	const encoded = /filename\*\s*=\s*(?:UTF-8'[^']*')?([^;]+)/i.exec(disposition)?.[1];
	let fileName = /filename\s*=\s*"?([^";]+)"?/i.exec(disposition)?.[1]?.trim();
	if (encoded !== undefined) {
		try {
			fileName = decodeURIComponent(encoded.trim().replace(/^"|"$/g, ''));
		} catch {
			// A malformed encoded name: the plain one (if any) stands.
		}
	}
	// Only a base name: a name with a path could place the file elsewhere when a later node writes it to disk.
	fileName = fileName?.split(/[\\/]/).pop()?.trim() || undefined;
	return { ...(mimeType ? { mimeType } : {}), ...(fileName ? { fileName } : {}) };
}

/** The address an API answer gives as its whole body: an absolute http(s) URL, or an error naming `what`. */
export function presignedUrlOf(
	node: INode,
	answer: unknown,
	what: string,
	itemIndex: number,
): string {
	const text = typeof answer === 'string' ? answer.trim() : '';
	let url: URL | undefined;
	try {
		url = new URL(text);
	} catch {
		url = undefined;
	}
	if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:'))
		throw new NodeOperationError(node, `The API answered no download address for ${what}`, {
			itemIndex,
			description: `It answered ${describeAnswer(answer)} where the reference gives a URL as text.`,
		});
	return url.toString();
}

function describeAnswer(answer: unknown): string {
	if (answer === undefined || answer === null || answer === '') return 'nothing';
	if (typeof answer === 'string') return `text of ${answer.length} characters that is not a URL`;
	return Array.isArray(answer) ? 'a JSON list' : `a JSON ${typeof answer}`;
}

function storageError(
	context: IExecuteFunctions,
	itemIndex: number,
	url: string,
	message: string,
	description: string,
	status?: number,
): NodeApiError {
	return new NodeApiError(
		context.getNode(),
		{ message },
		{
			message,
			description: `${description} (storage host ${new URL(url).host})`,
			httpCode: status === undefined ? undefined : String(status),
			itemIndex,
		},
	);
}

/** GET of a pre-signed download address, as bytes; the address is used at once (the API's live 60 seconds). */
export async function fetchPresigned(
	this: IExecuteFunctions,
	url: string,
	what: string,
	itemIndex: number,
): Promise<ApiFile> {
	let response: { statusCode: number; body: unknown; headers?: Record<string, unknown> };
	try {
		response = (await this.helpers.httpRequest({
			method: 'GET',
			url,
			encoding: 'arraybuffer',
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			timeout: REQUEST_TIMEOUT_MS,
		})) as typeof response;
	} catch (error) {
		throw storageError(
			this,
			itemIndex,
			url,
			`Downloading ${what} failed (${(error as Error).message || 'no answer'})`,
			'The download address the API gave did not answer; run the item again for a new address',
		);
	}
	if (response.statusCode < 200 || response.statusCode >= 300)
		throw storageError(
			this,
			itemIndex,
			url,
			`Downloading ${what} failed (HTTP ${response.statusCode})`,
			'The download address the API gave refused the download; it lives 60 seconds, so run the item again for a new one',
			response.statusCode,
		);
	const body = response.body;
	const content = Buffer.isBuffer(body)
		? body
		: body instanceof ArrayBuffer
			? Buffer.from(body)
			: Buffer.from(typeof body === 'string' ? body : '', 'utf8');
	return { content, ...fileHeaders(response.headers) };
}

/** PUT of bytes to a pre-signed upload address. */
export async function putPresigned(
	this: IExecuteFunctions,
	url: string,
	file: { content: Buffer; mimeType: string; fileName: string },
	itemIndex: number,
): Promise<void> {
	const failed = (detail: string, status?: number) =>
		storageError(
			this,
			itemIndex,
			url,
			`Storing '${file.fileName}' at the upload address failed (${detail})`,
			'The upload did not succeed; no document record was created. This item can be run again',
			status,
		);
	let response: { statusCode: number };
	try {
		response = (await this.helpers.httpRequest({
			method: 'PUT',
			url,
			body: file.content,
			headers: { 'Content-Type': file.mimeType },
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			timeout: REQUEST_TIMEOUT_MS,
		})) as { statusCode: number };
	} catch (error) {
		throw failed((error as Error).message || 'no answer');
	}
	if (response.statusCode < 200 || response.statusCode >= 300)
		throw failed(`HTTP ${response.statusCode}`, response.statusCode);
}
