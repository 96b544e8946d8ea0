/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets, @n8n/community-nodes/no-restricted-globals -- repository tooling: runs in Node.js, never inside n8n */
// nodes/shared/transport/index.ts (apiRequest) and session.ts, through an imitation of n8n-core's request helpers.
// Waits are taken with n8n's sleep: here it moves a fake clock (Date.now in the "pushed back" tests) instead.
const clock = { now: 1_760_000_000_000 };
jest.mock('n8n-workflow', () => ({
	...jest.requireActual('n8n-workflow'),
	sleep: jest.fn(async (ms: number) => {
		clock.now += ms;
	}),
}));

import type {
	IAdditionalCredentialOptions,
	IExecuteFunctions,
	IHttpRequestOptions,
	INode,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { CREDENTIAL_ERROR_PREFIX } from '../../../../credentials/BackgroundCheckApi.credentials';
import { apiPath, apiRequest, type ApiRequestOptions } from '../../../../nodes/shared/transport';
import { CREDENTIAL_SECRETS as SECRETS } from '../../../fixtures/credentialSecrets';
import { rejectionOf } from '../../../helpers/rejection';
import {
	MAX_SPACING_MS,
	MAX_TOTAL_WAIT_MS,
	PushBack,
} from '../../../../nodes/shared/transport/retryAfter';

const node = {
	name: 'Background Check',
	type: 'n8n-nodes-background-check.backgroundCheck',
} as INode;

type Responder = (
	options: IHttpRequestOptions,
	attempt: number,
	additional?: IAdditionalCredentialOptions,
) => unknown;

/**
 * A node context whose httpRequestWithAuthentication answers like n8n-core's, one responder call per request;
 * `loads` counts getCredentials calls, `additional` keeps what the node passed with each request and `sentAt`
 * the fake clock's time of each request.
 */
function contextAnswering(responder: Responder, credentials: Record<string, unknown> = {}) {
	const sent: IHttpRequestOptions[] = [];
	const sentAt: number[] = [];
	const additional: Array<IAdditionalCredentialOptions | undefined> = [];
	const counters = { loads: 0 };
	const context = {
		getNode: () => node,
		getCredentials: async () => {
			counters.loads++;
			return {
				environment: 'custom',
				customBaseUrl: 'https://api.example.com',
				...SECRETS,
				...credentials,
			};
		},
		helpers: {
			httpRequestWithAuthentication: async (
				_type: string,
				options: IHttpRequestOptions,
				extra?: IAdditionalCredentialOptions,
			) => {
				sent.push(options);
				sentAt.push(clock.now);
				additional.push(extra);
				return await responder(options, sent.length, extra);
			},
		},
	} as unknown as IExecuteFunctions;
	return { context, sent, sentAt, additional, counters };
}

const answering = (statusCode: number, body: unknown) =>
	contextAnswering(() => ({ statusCode, body, headers: {} }));
const throwing = (error: Error) =>
	contextAnswering(() => {
		throw error;
	});
const plainHttp = () =>
	contextAnswering(() => ({ statusCode: 200 }), { customBaseUrl: 'http://api.example.com' });

/** What n8n-core raises for a failed request: a NodeApiError around the axios error, which holds the token. */
const n8nFailure = (message: string, fields: object) =>
	new NodeApiError(
		node,
		Object.assign(new Error(message), fields, {
			config: { headers: { Authorization: `Bearer ${SECRETS.token}` } },
		}) as never,
	);

const getList = (context: IExecuteFunctions, options?: ApiRequestOptions) =>
	apiRequest.call(context, 'GET', apiPath`/case/list`, options);
const create = (context: IExecuteFunctions, options: ApiRequestOptions = { body: {} }) =>
	apiRequest.call(context, 'POST', apiPath`/case/create`, options);
const getCase = (context: IExecuteFunctions, id: string, options?: ApiRequestOptions) =>
	apiRequest.call(context, 'GET', apiPath`/case/id/${id}`, options);
const caught = (promise: Promise<unknown>) => rejectionOf<NodeApiError>(promise);

describe('path encoding', () => {
	it('sends the encoded path to the base URL of the credential', async () => {
		const { context, sent } = answering(200, { ok: true });
		await getCase(context, 'a/b');
		expect(sent[0]).toMatchObject({
			method: 'GET',
			url: 'https://api.example.com/case/id/a%2Fb',
			json: true,
		});
		expect(new URL(sent[0].url).pathname).toBe('/case/id/a%2Fb');
	});

	it('does not call the API when the credential points at plain HTTP on a remote host', async () => {
		const { context, sent } = plainHttp();
		await expect(getList(context, { itemIndex: 3 })).rejects.toBeInstanceOf(NodeOperationError);
		expect(sent).toHaveLength(0);
	});
});

describe('the credential of a run', () => {
	it('is loaded once per node context and handed to n8n with every request', async () => {
		const { context, additional, counters } = answering(200, { ok: true });
		for (let i = 0; i < 3; i++) await getCase(context, `c${i}`, { itemIndex: i });
		await Promise.all([1, 2, 3].map((itemIndex) => getList(context, { itemIndex })));
		expect(counters.loads).toBe(1);
		expect(additional).toHaveLength(6);
		const data = additional[0]?.credentialsDecrypted?.data;
		expect(additional[0]?.credentialsDecrypted).toMatchObject({
			type: 'backgroundCheckApi',
			data: { apiKey: SECRETS.apiKey, token: SECRETS.token },
		});
		for (const extra of additional) expect(extra?.credentialsDecrypted?.data).toBe(data);

		const other = answering(200, { ok: true });
		await getList(other.context);
		expect(other.counters.loads).toBe(1);
		expect(other.additional[0]?.credentialsDecrypted?.data).not.toBe(data);
	});

	it('is loaded again by the next request when loading failed', async () => {
		const { context, sent } = answering(200, { ok: true });
		const load = jest
			.spyOn(context, 'getCredentials')
			.mockRejectedValueOnce(new NodeOperationError(node, 'Credentials not found'));
		await expect(getList(context)).rejects.toThrow('Credentials not found');
		await expect(getList(context)).resolves.toEqual({ ok: true });
		expect(load).toHaveBeenCalledTimes(2);
		expect(sent).toHaveLength(1);
	});

	it('refuses an unusable base URL for every item, each error with its own item index', async () => {
		const { context, sent, counters } = plainHttp();
		const errors = await Promise.all(
			[0, 1, 2].map((itemIndex) => caught(getList(context, { itemIndex }))),
		);
		expect(errors.map((error) => error.context.itemIndex)).toEqual([0, 1, 2]);
		expect(new Set(errors).size).toBe(3);
		for (const error of errors) expect(error).toBeInstanceOf(NodeOperationError);
		expect(counters.loads).toBe(1);
		expect(sent).toHaveLength(0);
	});

	it('redacts a token n8n exchanged during the run', async () => {
		const newToken = 'fresh-token-789-not-a-jwt';
		const { context } = contextAnswering((_options, attempt, extra) => {
			if (attempt === 1) {
				// n8n-core's preAuthentication writes the new token into the credential object it was given.
				Object.assign(extra!.credentialsDecrypted!.data!, { token: newToken });
				return { statusCode: 200, body: {} };
			}
			return { statusCode: 400, body: { message: `token ${newToken} rejected` } };
		});
		await getList(context);
		const error = await caught(getList(context));
		expect(error.message).not.toContain(newToken);
		expect(error.message).toContain('[redacted]');
	});

	it('lets requests refused together wait for one exchange, then retry with the new token', async () => {
		let token = SECRETS.token;
		let exchanges = 0;
		let release!: () => void;
		const exchanged = new Promise<void>((resolve) => (release = resolve));
		const { context, sent } = contextAnswering(async (options, _attempt, extra) => {
			const data = extra!.credentialsDecrypted!.data!;
			if (options.ignoreHttpStatusErrors)
				return data.token === token
					? { statusCode: 200, body: { token: data.token } }
					: { statusCode: 401, body: {} };
			// n8n's throwing path: refused again with the old token, so it exchanges (slowly) and retries.
			if (data.token !== token) {
				exchanges++;
				await exchanged;
				data.token = token;
			}
			return { statusCode: 200, body: { token: data.token } };
		});
		await getList(context);
		token = 'token-after-revocation';
		const requests = [0, 1, 2, 3].map((itemIndex) => getList(context, { itemIndex }));
		await new Promise((resolve) => setTimeout(resolve, 10));
		release();
		await expect(Promise.all(requests)).resolves.toEqual(
			Array(4).fill({ token: 'token-after-revocation' }),
		);
		expect(exchanges).toBe(1);
		// One first attempt each, then one retry each.
		expect(sent).toHaveLength(1 + 4 + 4);
	});
});

describe('API error shapes', () => {
	it('shows the API message of a { message, error, statusCode } body', async () => {
		const { context } = answering(400, {
			message: 'lastName contains invalid characters',
			error: 'Bad Request',
			statusCode: 400,
		});
		const error = await caught(create(context, { body: {}, itemIndex: 2 }));
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toBe('lastName contains invalid characters');
		expect(error.httpCode).toBe('400');
		expect(error.context.itemIndex).toBe(2);
	});

	it('shows a bare text body such as the 404 "Invalid case"', async () => {
		const { context } = answering(404, 'Invalid case');
		const error = await caught(getCase(context, 'nope'));
		expect(error.message).toBe('Invalid case');
		expect(error.httpCode).toBe('404');
	});

	it('says a request that timed out got no answer within 60 s, not "The connection was aborted" (n8n on ECONNABORTED)', async () => {
		const timeout = Object.assign(new Error('timeout of 60000ms exceeded'), {
			code: 'ECONNABORTED',
			isAxiosError: true,
		});
		const error = await caught(create(throwing(new NodeApiError(node, timeout as never)).context));
		expect(error.message).toBe('The request POST /case/create got no answer within 60 seconds');
		expect(error.description).toMatch(/may or may not have been carried out/);
	});
});

describe('secrets never leave in an error', () => {
	it('shows a bounded, redacted excerpt of a long error body through the whole request path', async () => {
		const { context } = answering(400, { message: `${SECRETS.token} ${'y'.repeat(200_000)}` });
		const error = await caught(create(context));
		expect(error.message.length).toBeLessThan(1000);
		expect(error.message.startsWith('[redacted] yyy')).toBe(true);
	});

	it('builds a fresh error that does not carry the request (and its Authorization header)', async () => {
		const { context } = answering(400, {
			message: `bad token ${SECRETS.token} for key ${SECRETS.apiKey}`,
			statusCode: 400,
		});
		const error = await caught(getList(context));
		const serialised = JSON.stringify({
			...error,
			message: error.message,
			description: error.description,
			cause: error.cause,
		});
		for (const secret of Object.values(SECRETS)) expect(serialised).not.toContain(secret);
		expect(error.message).toContain('[redacted]');
	});

	it('passes on the message of a failed token exchange', async () => {
		const exchangeFailure = new NodeApiError(
			node,
			new Error(
				`${CREDENTIAL_ERROR_PREFIX}the API key or client access token was not accepted`,
			) as never,
		);
		const { context } = throwing(exchangeFailure);
		const error = await caught(getList(context));
		expect(error.message).toContain('was not accepted');
		expect(error.description).toBeFalsy();
	});

	it('redacts the credential values from the message of a failed token exchange it passes on', async () => {
		const leaking = `${CREDENTIAL_ERROR_PREFIX}refused key ${SECRETS.apiKey} and token ${SECRETS.clientAccessToken}`;
		const { context } = throwing(new NodeApiError(node, new Error(leaking) as never));
		const error = await caught(getList(context));
		expect(error.message).toContain('refused key [redacted]');
		for (const secret of Object.values(SECRETS)) expect(error.message).not.toContain(secret);
	});
});

describe('reading the answer', () => {
	it('returns the body of a 2xx and asks n8n for the full response without throwing on status', async () => {
		const { context, sent } = answering(201, { id: 'case-1' });
		await expect(create(context, { body: { a: 1 } })).resolves.toEqual({ id: 'case-1' });
		expect(sent[0]).toMatchObject({
			body: { a: 1 },
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
		});
		expect(sent[0].timeout).toBeGreaterThan(0);
	});

	it('hands a 401 to n8n once so it exchanges the key pair again and retries', async () => {
		const { context, sent } = contextAnswering((options, attempt) =>
			attempt === 1
				? { statusCode: 401, body: { message: 'Unauthorized' } }
				: { statusCode: 200, body: { refreshed: !options.ignoreHttpStatusErrors } },
		);
		await expect(getList(context)).resolves.toEqual({ refreshed: true });
		// The retry goes through n8n's throwing path (it exchanges the key pair on a 401), as a full response.
		expect(sent[1]).toMatchObject({ returnFullResponse: true });
		expect(sent[1].ignoreHttpStatusErrors).toBeUndefined();
		expect(sent).toHaveLength(2);
	});

	it('reports a refused token when the retry after the exchange still fails', async () => {
		const { context } = contextAnswering((_options, attempt) => {
			if (attempt === 1) return { statusCode: 401, body: {} };
			throw n8nFailure('Request failed with status code 401', {
				response: { status: 401, data: { message: 'Unauthorized' } },
			});
		});
		const error = await caught(getList(context));
		expect(error.message).toContain('refused the access token');
		expect(error.httpCode).toBe('401');
	});

	/**
	 * A context whose API refuses every token but `accepted()` with 403, and whose credential exchange (what
	 * n8n-core runs when the token is empty) yields `exchangeYields()`.
	 */
	function revokedTokenApi(accepted: () => string, exchangeYields: () => string) {
		const counts = { exchanges: 0 };
		const api = contextAnswering((_options, _attempt, extra) => {
			const data = extra!.credentialsDecrypted!.data!;
			if (data.token === '') {
				counts.exchanges++;
				data.token = exchangeYields();
			}
			return data.token === accepted()
				? { statusCode: 200, body: { token: data.token } }
				: { statusCode: 403, body: { message: 'Forbidden', statusCode: 403 } };
		});
		return { ...api, counts };
	}

	it('after a 403, exchanges the key pair again once and sends the refused request again, a write too (the API answers 403 for a revoked token)', async () => {
		const { context, sent, counts } = revokedTokenApi(
			() => 'token-after-revocation',
			() => 'token-after-revocation',
		);
		await expect(create(context, { body: { a: 1 } })).resolves.toEqual({
			token: 'token-after-revocation',
		});
		expect(counts.exchanges).toBe(1);
		expect(sent).toHaveLength(2);
		expect(sent[1].body).toEqual({ a: 1 });
	});

	it('reports a 403 that remains after the exchange as refused access, and does not exchange again in the same run', async () => {
		const { context, sent, counts } = revokedTokenApi(
			() => 'a token this credential never gets',
			() => SECRETS.token,
		);
		const error = await caught(getCase(context, 'case-of-another-group'));
		expect(error.httpCode).toBe('403');
		expect(error.message).toBe('The API refused access to this case (403)');
		expect(error.description).toContain('another company group');
		expect(counts.exchanges).toBe(1);
		expect(sent).toHaveLength(2);
		await caught(getCase(context, 'another'));
		expect(counts.exchanges).toBe(1);
		expect(sent).toHaveLength(3);
	});

	it('does not resend a request refused with 403 whose token n8n exchanged for it (a new credential: the token is fresh)', async () => {
		const counts = { exchanges: 0 };
		const { context, sent } = contextAnswering(
			(_options, _attempt, extra) => {
				const data = extra!.credentialsDecrypted!.data!;
				if (data.token === '') {
					counts.exchanges++;
					data.token = 'fresh-token';
				}
				return { statusCode: 403, body: { message: 'Forbidden', statusCode: 403 } };
			},
			{ token: '' },
		);
		const error = await caught(getCase(context, 'case-of-another-group'));
		expect(error.httpCode).toBe('403');
		expect(counts.exchanges).toBe(1);
		expect(sent).toHaveLength(1);
	});

	it('lets requests refused together with 403 share one exchange, each sent again once', async () => {
		let accepted = SECRETS.token;
		const { context, sent, counts } = revokedTokenApi(
			() => accepted,
			() => 'token-after-revocation',
		);
		await getList(context);
		accepted = 'token-after-revocation';
		const requests = [0, 1, 2, 3].map((itemIndex) => getList(context, { itemIndex }));
		await expect(Promise.all(requests)).resolves.toEqual(
			Array(4).fill({ token: 'token-after-revocation' }),
		);
		expect(counts.exchanges).toBe(1);
		expect(sent).toHaveLength(1 + 4 + 4);
	});

	it('says a write that got no answer may or may not have happened, without the token', async () => {
		const { context, sent } = throwing(
			n8nFailure('connect ECONNRESET 127.0.0.1:9', { code: 'ECONNRESET' }),
		);
		const error = await caught(create(context));
		expect(error.message).toContain('POST /case/create got no answer');
		expect(error.description).toContain('may or may not');
		expect(sent).toHaveLength(1);
		expect(JSON.stringify(error)).not.toContain(SECRETS.token);
	});
});

describe('a request the API pushes back on (429, or 503 with Retry-After)', () => {
	const sleepMock = sleep as jest.MockedFunction<typeof sleep>;
	const sleptMs = () => sleepMock.mock.calls.reduce((sum, [ms]) => sum + ms, 0);
	const pushedBack = (statusCode: number, retryAfter?: string) => ({
		statusCode,
		body: { message: 'Too many requests' },
		headers: retryAfter === undefined ? {} : { 'retry-after': retryAfter },
	});
	const ok = { statusCode: 200, body: { id: 'case-1' }, headers: {} };
	/** A context whose first request is answered `first`, every later one `later`. */
	const firstAnswered = (first: unknown, later: Responder = () => ok) =>
		contextAnswering((options, attempt) => (attempt === 1 ? first : later(options, attempt)));

	beforeEach(() => {
		sleepMock.mockClear();
		jest.spyOn(Date, 'now').mockImplementation(() => clock.now);
	});
	afterEach(() => {
		jest.restoreAllMocks();
	});

	it.each([
		['a 429 with Retry-After in seconds', () => pushedBack(429, '2'), 2000],
		['a 503 with Retry-After in seconds', () => pushedBack(503, '3'), 3000],
		[
			'a 429 with Retry-After as an HTTP date',
			() => pushedBack(429, new Date(clock.now + 4000).toUTCString()),
			4000,
		],
		['a 429 without Retry-After (1 s)', () => pushedBack(429), 1000],
	])("waits out %s with n8n's sleep, then sends the read again", async (_label, first, waitMs) => {
		const { context, sent } = firstAnswered(first());
		await expect(getCase(context, 'case-1')).resolves.toEqual({
			id: 'case-1',
		});
		expect(sent).toHaveLength(2);
		expect(sleptMs()).toBeGreaterThanOrEqual(waitMs - 1000);
		expect(sleptMs()).toBeLessThanOrEqual(waitMs);
	});

	it('does not send a read again after a 503 without Retry-After', async () => {
		const { context, sent } = contextAnswering(() => pushedBack(503));
		const error = await caught(getList(context));
		expect(error.message).toContain('HTTP 503');
		expect(sent).toHaveLength(1);
		expect(sleepMock).not.toHaveBeenCalled();
	});

	it.each([429, 503])(
		'sends a write again once the %i with Retry-After is waited out: the API said it did not carry it out',
		async (status) => {
			const { context, sent } = firstAnswered(pushedBack(status, '2'));
			await expect(create(context, { body: { n: 1 } })).resolves.toEqual({ id: 'case-1' });
			expect(sent).toHaveLength(2);
			expect(sent[1].body).toEqual(sent[0].body);
			expect(sleptMs()).toBeGreaterThanOrEqual(1000);
		},
	);

	it.each([
		['a 503 without Retry-After', () => pushedBack(503)],
		['a 500', () => ({ statusCode: 500, body: {}, headers: {} })],
	])('never sends a write again after %s', async (_label, answer) => {
		const { context, sent } = contextAnswering(answer);
		const error = await caught(create(context));
		expect(sent).toHaveLength(1);
		expect(sleepMock).not.toHaveBeenCalled();
		expect(error.description).toMatch(/may or may not have been carried out/);
	});

	it('a write given up on after push-backs says it was not carried out, not "may or may not"', async () => {
		const { context, sent } = contextAnswering(() => pushedBack(503, '120'));
		const error = await caught(create(context));
		expect(sent).toHaveLength(1);
		expect(error.message).toContain('the API asked to wait 120 s');
		expect(error.description).toContain('did not carry the request out');
		expect(error.description).not.toMatch(/may or may not/);
	});

	it('gives up at once when the API asks for a wait over the per-wait cap, saying the wait', async () => {
		const { context, sent } = contextAnswering(() => pushedBack(429, '120'));
		const error = await caught(getList(context));
		expect(sent).toHaveLength(1);
		expect(sleepMock).not.toHaveBeenCalled();
		expect(error.message).toContain('the API asked to wait 120 s');
		expect(error.httpCode).toBe('429');
	});

	it('waits at most the total cap per request, then gives up saying how long it waited', async () => {
		const { context, sent } = contextAnswering(() => pushedBack(429, '10'));
		const error = await caught(getList(context));
		expect(sleptMs()).toBeLessThanOrEqual(MAX_TOTAL_WAIT_MS);
		expect(sent).toHaveLength(MAX_TOTAL_WAIT_MS / 10_000 + 1);
		expect(error.message).toMatch(/asked to wait 10 s again after \d+ tries and 60 s of waiting/);
	});

	it('pauses every read of the run together: a request started during the pause waits for its end', async () => {
		let answered!: () => void;
		const firstSent = new Promise<void>((resolve) => (answered = resolve));
		const { context, sentAt } = contextAnswering((_options, attempt) => {
			if (attempt > 1) return ok;
			answered();
			return pushedBack(429, '5');
		});
		const start = clock.now;
		const first = getCase(context, 'a');
		await firstSent;
		await new Promise((resolve) => setImmediate(resolve));
		const second = getCase(context, 'b');
		await Promise.all([first, second]);
		expect(sentAt).toHaveLength(3);
		// Both later sends (the retry and the request that started during the pause) went after the pause.
		expect(Math.min(...sentAt.slice(1))).toBeGreaterThanOrEqual(start + 5000);
	});

	it('slows the run down to the rate the API accepted: later reads are spaced, and not refused again', async () => {
		const start = clock.now;
		// 4 reads accepted at once, the 5th refused with Retry-After 1: about 4 per second are accepted.
		const { context, sent, sentAt } = contextAnswering((_options, attempt) =>
			attempt === 5 ? pushedBack(429, '1') : ok,
		);
		for (let i = 0; i < 8; i++) await getCase(context, `case-${i}`);
		expect(sent).toHaveLength(9);
		expect(sentAt.slice(0, 5)).toEqual(Array(5).fill(start));
		// The retry at the end of the pause, then one read every 250 ms (1 s / 4 accepted).
		expect(sentAt.slice(5).map((at) => at - start)).toEqual([1000, 1250, 1500, 1750]);
	});

	it('sends a pushed-back write again after the wait, and the next write waits too', async () => {
		const start = clock.now;
		const { context, sent, sentAt } = firstAnswered(pushedBack(429, '2'), (_options, attempt) => ({
			statusCode: 201,
			body: { id: `case-${attempt}` },
			headers: {},
		}));
		await expect(create(context)).resolves.toEqual({ id: 'case-2' });
		await expect(create(context)).resolves.toEqual({ id: 'case-3' });
		expect(sent).toHaveLength(3);
		expect(sentAt[1] - start).toBeGreaterThanOrEqual(2000);
		expect(sentAt[2] - start).toBeGreaterThanOrEqual(2000);
	});

	describe('the pace of a run (PushBack)', () => {
		it('is not set until the API pushes back, and then spaces sends by the time per accepted request', () => {
			const pace = new PushBack();
			const start = clock.now;
			for (let i = 0; i < 20; i++) pace.accepted(start);
			clock.now += 50;
			expect(pace.spacing).toBe(0);
			pace.push(1000, clock.now - 10);
			// 20 accepted over 50 ms plus the 1 s asked: one every 52.5 ms.
			expect(pace.spacing).toBeCloseTo(1050 / 20, 5);
		});

		it('counts the accepted answers that arrive after the push-back in the period they were sent in', () => {
			// A limit answers its refusals at once, while the accepted requests sent before are still in flight.
			const pace = new PushBack();
			const sentAt = clock.now;
			clock.now += 5;
			pace.push(1000, sentAt);
			expect(pace.spacing).toBe(0);
			clock.now += 20;
			for (let i = 0; i < 20; i++) pace.accepted(sentAt);
			expect(pace.spacing).toBeCloseTo(1005 / 20, 5);
			// Requests sent after the pause count for the next period, not this one.
			clock.now += 2000;
			pace.accepted(clock.now);
			expect(pace.spacing).toBeCloseTo(1005 / 20, 5);
		});

		it('ignores push-backs on requests sent before it slowed down (they were in flight), and slows down again for later ones', () => {
			const pace = new PushBack();
			const inFlightSince = clock.now;
			for (let i = 0; i < 10; i++) pace.accepted(inFlightSince);
			clock.now += 100;
			pace.push(900, inFlightSince);
			const first = pace.spacing;
			expect(first).toBeCloseTo(100, 5);
			clock.now += 1;
			pace.push(899, inFlightSince);
			expect(pace.spacing).toBe(first);
			// A request sent after the slow-down and refused: at least 1.2x slower, even with nothing accepted since.
			clock.now += 2000;
			pace.push(1000, clock.now - 5);
			expect(pace.spacing).toBeCloseTo(first * 1.2, 5);
		});

		it('never spaces sends by more than the longest single wait', () => {
			const pace = new PushBack();
			pace.accepted(clock.now);
			clock.now += 20_000;
			pace.push(25_000, clock.now);
			expect(pace.spacing).toBe(MAX_SPACING_MS);
		});
	});
});
