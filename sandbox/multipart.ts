/**
 * `multipart/form-data` bodies, as the HTTP Request node sends a file (the example workflows' stand-in ATS
 * receives the report that way): text fields by name, and for each file its name, type, size and SHA-256
 * instead of its bytes. One pass over the body.
 */
import { createHash } from 'crypto';

import { badRequest } from './http';

export interface ReceivedFile {
	field: string;
	fileName: string;
	mimeType: string;
	size: number;
	sha256: string;
	/** The first bytes, as text, to tell what the file is (a PDF starts with `%PDF-`). */
	head: string;
}

export interface MultipartBody {
	fields: Record<string, string>;
	files: ReceivedFile[];
}

/** The boundary of a multipart/form-data Content-Type, or undefined for any other type. */
export function multipartBoundary(contentType: string | undefined): string | undefined {
	if (!/^multipart\/form-data\b/i.test(contentType ?? '')) return undefined;
	const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType ?? '');
	return boundary?.[1] ?? boundary?.[2];
}

export function parseMultipart(bytes: Buffer, boundary: string): MultipartBody {
	const delimiter = Buffer.from(`--${boundary}`);
	const body: MultipartBody = { fields: {}, files: [] };
	let start = bytes.indexOf(delimiter);
	if (start === -1) throw badRequest('The multipart body has no part');
	for (;;) {
		start += delimiter.length;
		if (bytes.subarray(start, start + 2).toString() === '--') return body;
		const next = bytes.indexOf(delimiter, start);
		if (next === -1) throw badRequest('The multipart body is not closed');
		// A part: CRLF, headers, a blank line, the content, CRLF before the next delimiter.
		const part = bytes.subarray(start + 2, next - 2);
		const split = part.indexOf('\r\n\r\n');
		if (split === -1) throw badRequest('A multipart part has no headers');
		const headers = part.subarray(0, split).toString('utf8');
		const content = part.subarray(split + 4);
		const disposition = /content-disposition:([^\r\n]*)/i.exec(headers)?.[1] ?? '';
		const name = /\bname="([^"]*)"/i.exec(disposition)?.[1];
		if (name === undefined) throw badRequest('A multipart part has no name');
		const fileName = /\bfilename="([^"]*)"/i.exec(disposition)?.[1];
		if (fileName === undefined) body.fields[name] = content.toString('utf8');
		else
			body.files.push({
				field: name,
				fileName,
				mimeType: /content-type:\s*([^\r\n;]*)/i.exec(headers)?.[1]?.trim() ?? '',
				size: content.length,
				sha256: createHash('sha256').update(content).digest('hex'),
				head: content.subarray(0, 8).toString('latin1'),
			});
		start = next;
	}
}
