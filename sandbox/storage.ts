/**
 * The sandbox's storage for downloads, in the way of a cloud storage bucket: the API hands out a pre-signed URL
 * (as `text/html`, the URL itself being the body), and a plain `GET` of that URL, outside the API, gives the file.
 *
 *   http://<host>/storage/downloads/<key>/<file name>?expires=<unix seconds>&signature=<HMAC>
 *
 * The URL is the authorization: a request carrying an Authorization header is refused (403), and so is one after
 * the URL's expiry on the real clock (SandboxStore.storageNow says why) (403), or with a signature that does not fit (403). Until it expires, a
 * URL can be used any number of times. Reports live 60 s (the reference: "a time to live of 60 seconds"), secure
 * documents 60 min.
 */
import { createHmac, randomUUID, timingSafeEqual } from 'crypto';

import { HttpError, errorBody, type ApiResponse } from './http';
import type { SandboxStore } from './state';

/** Where the pre-signed download URLs point, outside the API's paths (like the upload URLs). */
export const DOWNLOAD_PATH_PREFIX = '/storage/downloads/';
/** How long a report download URL is valid, in seconds. */
export const REPORT_URL_SECONDS = 60;
/** How long a secure document download URL is valid, in seconds. */
export const SECURE_DOCUMENT_URL_SECONDS = 60 * 60;

const SIGNING_KEY = randomUUID();

/** What one download URL serves. The bytes are made when downloaded (a report can be large). */
export interface DownloadRecord {
	key: string;
	fileName: string;
	contentType: string;
	expiresAtMs: number;
	bytes: () => Buffer;
}

const signature = (key: string, expires: number) =>
	createHmac('sha256', SIGNING_KEY).update(`${key}:${expires}`).digest('base64url');

/**
 * A pre-signed URL serving `bytes` as `fileName` until `seconds` have passed. Downloads that
 * expired are forgotten on the way.
 */
export function presignDownload(
	store: SandboxStore,
	host: string,
	download: { fileName: string; contentType: string; seconds: number; bytes: () => Buffer },
): string {
	const now = store.storageNow();
	for (const [key, existing] of store.downloads)
		if (existing.expiresAtMs <= now) store.downloads.delete(key);
	const key = randomUUID();
	const expiresAtMs = now + download.seconds * 1000;
	store.downloads.set(key, {
		key,
		fileName: download.fileName,
		contentType: download.contentType,
		expiresAtMs,
		bytes: download.bytes,
	});
	const expires = Math.ceil(expiresAtMs / 1000);
	return `http://${host}${DOWNLOAD_PATH_PREFIX}${key}/${encodeURIComponent(download.fileName)}?expires=${expires}&signature=${signature(key, expires)}`;
}

const refused = (message: string) => new HttpError(403, errorBody(403, message));

/** A GET of a pre-signed download URL: the file, or 403 (see the module comment). */
export function serveDownload(
	store: SandboxStore,
	path: string,
	query: URLSearchParams,
	authorization: string | undefined,
): ApiResponse {
	if (authorization !== undefined)
		throw refused('A pre-signed download URL takes no Authorization header');
	const key = decodeURIComponent(path.slice(DOWNLOAD_PATH_PREFIX.length).split('/')[0]);
	const expires = Number(query.get('expires'));
	const expected = Buffer.from(signature(key, expires));
	const offered = Buffer.from(query.get('signature') ?? '');
	const download = store.downloads.get(key);
	if (!download || expected.length !== offered.length || !timingSafeEqual(expected, offered))
		throw refused('The download URL is not valid');
	if (store.storageNow() >= download.expiresAtMs) throw refused('Request has expired');
	const bytes = download.bytes();
	return {
		status: 200,
		body: bytes,
		headers: {
			'content-type': download.contentType,
			'content-disposition': `attachment; filename="${download.fileName.replace(/"/g, '')}"`,
		},
	};
}
