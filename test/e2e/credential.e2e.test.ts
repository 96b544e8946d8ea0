/**
 * The "Background Check API" credential in real n8n (the pinned runtime) against the sandbox: n8n's credential test
 * (POST /rest/credentials/test, what the editor's "Test" button calls), the token exchanged once and
 * reused by later executions, a revoked token exchanged again, the HTTP Request node using the credential
 * as a predefined credential type for an endpoint the node does not cover, and no secret in what n8n
 * saves or logs (n8n runs at log level debug here so that its log says as much as it can).
 */
import { httpRequest } from '../harness/n8n/http';
import type { Sandbox } from '../../sandbox';
import { startRecordingServer, type RecordingServer } from '../helpers/recordingServer';
import {
	API_CREDENTIAL,
	JWT_PATTERN,
	actionNode,
	byId,
	createApiCredential,
	credentialRef,
	executionError,
	leakedSecrets,
	requestLine,
	requestsFrom,
	runOnce,
	startTestSandbox,
} from '../harness/backgroundCheck';
import {
	deployWebhookWorkflow,
	linearWebhookWorkflow,
	nodeOutput,
	type Credential,
	type N8nNode,
} from '../harness/n8nApi';
import { startTestN8n, type TestN8n } from '../harness/n8nInstance';

let n8n: TestN8n;
let sandbox: Sandbox;
/** Another origin on this machine: it must never see the token or the key pair. */
let collector: RecordingServer;
/** An "API" that exchanges a token and then redirects to the collector. */
let redirector: RecordingServer;
const REDIRECTOR_TOKEN = 'redirector-bearer-token-that-must-stay-home';
/** Every secret value this file hands to n8n, by a name for the failure message. */
const secrets: Record<string, string> = {};

beforeAll(async () => {
	sandbox = await startTestSandbox();
	collector = await startRecordingServer();
	redirector = await startRecordingServer(({ method, path }) => {
		if (method === 'POST' && path === '/auth/api')
			return { status: 200, body: { id: 'client-r', token: REDIRECTOR_TOKEN } };
		if (path === '/moving/auth/api')
			return { status: 307, headers: { location: `${collector.url}/auth/api` } };
		return { status: 302, headers: { location: `${collector.url}/collect` } };
	});
	secrets.redirectorToken = REDIRECTOR_TOKEN;
	n8n = await startTestN8n('credential', { env: { N8N_LOG_LEVEL: 'debug' } });
	sandbox.demoCredentials.forEach((demo, index) => {
		secrets[`apiKey`] = demo.apiKey;
		secrets[`clientAccessToken[${index}]`] = demo.clientAccessToken;
	});
}, 180_000);

afterAll(async () => {
	await n8n?.stop();
	await sandbox?.stop();
	await collector?.close();
	await redirector?.close();
});

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** What the editor's "Test" button does: POST /rest/credentials/test with the stored credential's data. */
async function testCredential(
	credential: Credential,
	data: Record<string, unknown>,
): Promise<{ status: string; message?: string }> {
	const answer = await n8n.rest('POST', '/rest/credentials/test', {
		credentials: { id: credential.id, name: credential.name, type: credential.type, data },
	});
	expect(answer.status).toBe(200);
	return answer.body.data ?? answer.body;
}

function credentialData(sandboxGroup: number, overrides: Record<string, unknown> = {}) {
	const demo = sandbox.demoCredentials[sandboxGroup];
	return {
		environment: 'custom',
		customBaseUrl: sandbox.url,
		apiKey: demo.apiKey,
		clientAccessToken: demo.clientAccessToken,
		...overrides,
	};
}

const listShipmentMasks = (credential: Credential, name?: string): N8nNode =>
	actionNode({ resource: 'shipmentMask', operation: 'getMany', returnAll: true }, credential, {
		name,
	});

describe("n8n's credential test", () => {
	test('passes for a good key pair', async () => {
		const credential = await createApiCredential(n8n.api, sandbox, { name: 'test: good' });
		const requests = requestsFrom(sandbox);
		const result = await testCredential(credential, credentialData(0));
		expect(result).toEqual({ status: 'OK', message: 'Connection successful!' });
		// n8n runs preAuthentication (the exchange), then the test request (POST /auth/api) with the token attached.
		expect(requests.all().map(requestLine)).toEqual(['POST /auth/api 200', 'POST /auth/api 200']);
	});

	test('fails with a plain message for a client access token that is not accepted', async () => {
		const bad = 'sandbox-client-access-token-nobody-has-this';
		secrets.badClientAccessToken = bad;
		const credential = await createApiCredential(n8n.api, sandbox, {
			name: 'test: bad token',
			clientAccessToken: bad,
		});
		const requests = requestsFrom(sandbox);
		const result = await testCredential(credential, credentialData(0, { clientAccessToken: bad }));
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(
			/^Background Check API credential: the API key or client access token was not accepted \(POST \/auth\/api answered 403\)/,
		);
		expect(result.message).not.toContain(bad);
		expect(requests.all().map(requestLine)).toEqual(['POST /auth/api 403']);
	});

	test('fails with a plain message when nothing answers at the base URL', async () => {
		const closed = 'http://127.0.0.1:9'; // discard port: nothing listens there
		const credential = await createApiCredential(n8n.api, sandbox, {
			name: 'test: no server',
			baseUrl: closed,
		});
		const result = await testCredential(credential, credentialData(0, { customBaseUrl: closed }));
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(
			/^Background Check API credential: could not obtain an access token from http:\/\/127\.0\.0\.1:9\/auth\/api: check the base URL/,
		);
	});

	test('refuses a base URL with a user name and password, a query or a fragment, without repeating the password', async () => {
		const withPassword = sandbox.url.replace('http://', 'http://user:s3cr3t-in-url@');
		secrets.urlPassword = 's3cr3t-in-url';
		for (const [baseUrl, reason] of [
			[withPassword, /contains a user name or password/],
			[`${sandbox.url}/?tenant=1`, /contains a query/],
			[`${sandbox.url}/#v1`, /contains a fragment/],
		] as const) {
			const credential = await createApiCredential(n8n.api, sandbox, {
				name: `test: base ${baseUrl.length}`,
				baseUrl,
			});
			const requests = requestsFrom(sandbox);
			const result = await testCredential(
				credential,
				credentialData(0, { customBaseUrl: baseUrl }),
			);
			expect(result.status).toBe('Error');
			expect(result.message).toMatch(reason);
			expect(result.message).not.toContain('s3cr3t-in-url');
			expect(requests.all()).toEqual([]);
		}
	});

	test('does not follow a redirect of the token exchange: the key pair stays with the base URL', async () => {
		// Under this base URL the redirector answers POST .../auth/api with a 307 to the collector, which would resend the body.
		const baseUrl = `${redirector.url}/moving`;
		const credential = await createApiCredential(n8n.api, sandbox, {
			name: 'test: exchange redirect',
			baseUrl,
		});
		const result = await testCredential(credential, credentialData(0, { customBaseUrl: baseUrl }));
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/could not obtain an access token .*\(HTTP 307\)/);
		expect(redirector.requests.map((entry) => `${entry.method} ${entry.path}`)).toContain(
			'POST /moving/auth/api',
		);
		expect(collector.requests).toEqual([]);
	});
});

describe('token exchange', () => {
	test('the token is exchanged once and reused by later executions and other workflows', async () => {
		const credential = await createApiCredential(n8n.api, sandbox, { name: 'reuse' });
		const requests = requestsFrom(sandbox);
		const deployed = await deployWebhookWorkflow(
			n8n.api,
			linearWebhookWorkflow('e2e: token reuse', 'token-reuse', [listShipmentMasks(credential)]),
		);
		for (let run = 0; run < 3; run++) expect((await deployed.run()).status).toBe(200);
		// Another workflow with the same credential.
		const other = await runOnce(n8n.api, sandbox, 'token reuse other workflow', [
			listShipmentMasks(credential),
		]);
		expect(other.execution.status).toBe('success');

		const executions = await n8n.api.waitForExecutions(deployed.workflow.id, 3);
		expect(executions.map((execution) => execution.status)).toEqual([
			'success',
			'success',
			'success',
		]);
		for (const execution of executions)
			expect(nodeOutput(execution, 'Background Check')).toHaveLength(3);
		expect(requests.all().map(requestLine)).toEqual([
			'POST /auth/api 200',
			'GET /shipment/mask/list 200',
			'GET /shipment/mask/list 200',
			'GET /shipment/mask/list 200',
			'GET /shipment/mask/list 200',
		]);
	});

	test('a revoked token is exchanged again once, the run succeeds, and the new token is kept', async () => {
		// The West group, so that revoking its clients leaves the other tests' tokens alone.
		const credential = await createApiCredential(n8n.api, sandbox, {
			group: 1,
			name: 'revocation',
		});
		const deployed = await deployWebhookWorkflow(
			n8n.api,
			linearWebhookWorkflow('e2e: revocation', 'token-revocation', [listShipmentMasks(credential)]),
		);
		expect((await deployed.run()).status).toBe(200);
		expect(
			sandbox.admin.revokeToken({ groupProfileId: '7a9d4c1b-2e3f-4a5b-8c6d-9e0f1a2b3c02' }).revoked,
		).toBe(1);

		const afterRevocation = requestsFrom(sandbox);
		const answer = await deployed.run<Json[]>();
		expect(answer.status).toBe(200);
		expect(answer.body).toHaveLength(3);
		expect(afterRevocation.all().map(requestLine)).toEqual([
			// The API refuses a revoked token with 403: the transport empties the token, so n8n's request helper
			// exchanges the key pair again before it resends the request, once.
			'GET /shipment/mask/list 403',
			'POST /auth/api 200',
			'GET /shipment/mask/list 200',
		]);

		// n8n saved the new token: the next execution uses it without another exchange.
		const later = requestsFrom(sandbox);
		expect((await deployed.run()).status).toBe(200);
		expect(later.all().map(requestLine)).toEqual(['GET /shipment/mask/list 200']);
		const executions = await n8n.api.waitForExecutions(deployed.workflow.id, 3);
		expect(executions.map((execution) => execution.status)).toEqual([
			'success',
			'success',
			'success',
		]);
	});
	test('with Concurrent Requests, one exchange after a revocation serves every item of the run', async () => {
		// The node loads the credential once per run and hands it to n8n with every request: the token n8n
		// exchanges on the first item (which runs alone) must reach the items after it, with no exchange of theirs.
		const credential = await createApiCredential(n8n.api, sandbox, {
			group: 1,
			name: 'revocation, concurrent items',
		});
		const items: N8nNode = {
			name: 'Items',
			type: 'n8n-nodes-base.code',
			typeVersion: 2,
			position: [220, 0],
			parameters: { jsCode: 'return Array.from({ length: 12 }, (_, i) => ({ json: { i } }));' },
		};
		const lists = actionNode(
			{
				resource: 'shipmentMask',
				operation: 'getMany',
				returnAll: true,
				options: { concurrency: 5 },
			},
			credential,
		);
		const deployed = await deployWebhookWorkflow(
			n8n.api,
			linearWebhookWorkflow('e2e: revocation, concurrent items', 'token-revocation-concurrent', [
				items,
				lists,
			]),
		);
		expect((await deployed.run()).status).toBe(200);
		sandbox.admin.revokeToken({ groupProfileId: '7a9d4c1b-2e3f-4a5b-8c6d-9e0f1a2b3c02' });

		const afterRevocation = requestsFrom(sandbox);
		expect((await deployed.run()).status).toBe(200);
		expect(afterRevocation.all().map(requestLine)).toEqual([
			'GET /shipment/mask/list 403',
			'POST /auth/api 200',
			...Array(12).fill('GET /shipment/mask/list 200'),
		]);
		const executions = await n8n.api.waitForExecutions(deployed.workflow.id, 2);
		expect(executions.map((execution) => execution.status)).toEqual(['success', 'success']);
		expect(nodeOutput(executions[1], 'Background Check')).toHaveLength(12 * 3);
	});
});

describe('HTTP Request node with the credential as a predefined credential type', () => {
	function httpRequestNode(
		credential: Credential,
		method: string,
		url: string,
		jsonBody?: string,
	): N8nNode {
		return {
			name: 'HTTP Request',
			type: 'n8n-nodes-base.httpRequest',
			typeVersion: 4.2,
			position: [660, 0],
			parameters: {
				method,
				url,
				authentication: 'predefinedCredentialType',
				nodeCredentialType: API_CREDENTIAL,
				...(jsonBody ? { sendBody: true, contentType: 'json', specifyBody: 'json', jsonBody } : {}),
				options: {},
			},
			credentials: { [API_CREDENTIAL]: credentialRef(credential) },
		};
	}

	test('reaches GET /testimony/case/{caseId} (not an operation of the node) with the exchanged token', async () => {
		const credential = await createApiCredential(n8n.api, sandbox, { name: 'http request' });
		const email = `http-request-${Date.now()}@example.com`;
		const result = await runOnce<Json>(n8n.api, sandbox, 'http request node', [
			actionNode(
				{
					resource: 'case',
					operation: 'create',
					packageId: byId('pkg-basic-criminal'),
					candidateFirstName: 'Ann',
					candidateLastName: 'Lee',
					candidateEmail: email,
				},
				credential,
			),
			httpRequestNode(credential, 'GET', `=${sandbox.url}/testimony/case/{{ $json.caseId }}`),
		]);
		expect(result.execution.status).toBe('success');
		const [read] = nodeOutput(result.execution, 'HTTP Request') as Json[];
		expect(read).toEqual({
			testimony: {
				address: [],
				driversLicense: [],
				parentalConsent: [],
				education: [],
				employment: [],
				customProfessionalLicense: [],
			},
		});
		// One exchange for both nodes; the bearer token reached the endpoint (the sandbox answers 403 without it).
		const caseId = (nodeOutput(result.execution, 'Background Check')[0] as Json).caseId;
		expect(result.requests.map(requestLine)).toEqual([
			'POST /auth/api 200',
			'POST /case/create 200',
			`GET /testimony/case/${caseId} 200`,
		]);
		const get = result.requests[2];
		expect(get.groupProfileId).toBe('4e0c2a8e-5b1f-4d3c-9a7e-2f6b1c8d3e01');
		expect(get.headers.authorization).toBe('Bearer [redacted]');
	});

	test('after a revocation the HTTP Request node also gets a new token and succeeds', async () => {
		const credential = await createApiCredential(n8n.api, sandbox, {
			group: 1,
			name: 'http request revocation',
		});
		const deployed = await deployWebhookWorkflow(
			n8n.api,
			linearWebhookWorkflow('e2e: http request revocation', 'http-request-revocation', [
				httpRequestNode(credential, 'GET', `${sandbox.url}/shipment/mask/list`),
			]),
		);
		expect((await deployed.run()).status).toBe(200);
		sandbox.admin.revokeToken({ groupProfileId: '7a9d4c1b-2e3f-4a5b-8c6d-9e0f1a2b3c02' });
		const requests = requestsFrom(sandbox);
		const answer = await deployed.run<Json[]>();
		expect(answer.status).toBe(200);
		expect(answer.body).toEqual([expect.objectContaining({ list: expect.any(Array) })]);
		// n8n's request helper of the HTTP Request node exchanges again after any failure, the API's 403 too.
		expect(requests.all().map(requestLine)).toEqual([
			'GET /shipment/mask/list 403',
			'POST /auth/api 200',
			'GET /shipment/mask/list 200',
		]);
	});

	test('refuses to attach the token to plain HTTP for a host that is not loopback', async () => {
		const credential = await createApiCredential(n8n.api, sandbox, {
			name: 'http request insecure',
		});
		// 0.0.0.0 reaches the sandbox on this machine, but it is not a loopback name: plain HTTP must be refused.
		const url = sandbox.url.replace('127.0.0.1', '0.0.0.0');
		const result = await runOnce<Json>(n8n.api, sandbox, 'http request insecure', [
			httpRequestNode(credential, 'GET', `${url}/shipment/mask/list`),
		]);
		expect(result.execution.status).toBe('error');
		expect(executionError(result.execution)).toMatch(
			/Refusing to send credentials to http:\/\/0\.0\.0\.0/,
		);
		expect(result.requests.filter((entry) => entry.path !== '/auth/api')).toEqual([]);
	});

	test('refuses to attach the token to any other origin: another port of the same host, another HTTPS host', async () => {
		const credential = await createApiCredential(n8n.api, sandbox, {
			name: 'http request other origin',
		});
		for (const [url, origin] of [
			[`${collector.url}/collect`, collector.url],
			['https://collector.other.example/collect', 'https://collector.other.example'],
		] as const) {
			const result = await runOnce<Json>(n8n.api, sandbox, 'http request other origin', [
				httpRequestNode(credential, 'POST', url, '{ "case": "x" }'),
			]);
			expect(result.execution.status).toBe('error');
			const message = executionError(result.execution) ?? '';
			expect(message).toContain(
				`Refusing to send the Background Check API token to ${origin}: it is sent only to ${sandbox.url}, the credential's base URL`,
			);
			expect(leakedSecrets(message, secrets)).toEqual([]);
			expect(result.requests.filter((entry) => entry.path !== '/auth/api')).toEqual([]);
		}
		expect(collector.requests).toEqual([]);
	});

	test('follows no redirect with the token: a redirect to another origin does not carry it there', async () => {
		const credential = await createApiCredential(n8n.api, sandbox, {
			name: 'http request redirect',
			baseUrl: redirector.url,
		});
		const result = await runOnce<Json>(n8n.api, sandbox, 'http request redirect', [
			httpRequestNode(credential, 'GET', `${redirector.url}/moved`),
		]);
		// The token reached its own origin (the exchange, then the request that was answered with the redirect)...
		expect(redirector.requests.map((entry) => `${entry.method} ${entry.path}`)).toEqual(
			expect.arrayContaining(['POST /auth/api', 'GET /moved']),
		);
		expect(
			redirector.requests.find((entry) => entry.path === '/moved')?.headers.authorization,
		).toBe(`Bearer ${REDIRECTOR_TOKEN}`);
		// ...and nothing went on to the collector, with or without the token.
		expect(collector.requests).toEqual([]);
		expect(result.execution.status).toBe('error');
	});
});

describe('secrets', () => {
	test("no token, API key, client access token appears in any execution's saved data or in n8n's log", async () => {
		// The current tokens of both groups: asking again returns the same client and token (spec 4.1).
		for (const [index, demo] of sandbox.demoCredentials.entries()) {
			const answer = await httpRequest(`${sandbox.url}/auth/api`, {
				method: 'POST',
				body: { apiKey: demo.apiKey, clientAccessToken: demo.clientAccessToken },
			});
			secrets[`token[${index}]`] = (answer.json as Json).token;
		}
		const executions = await n8n.api.listExecutions({ includeData: true, limit: 500 });
		expect(executions.length).toBeGreaterThanOrEqual(10);
		const saved = JSON.stringify(executions);
		expect(saved).toContain('MASK-N95-M'); // the data is really there
		expect(leakedSecrets(saved, secrets)).toEqual([]);
		expect(saved.match(JWT_PATTERN)).toBeNull();

		const log = n8n.readLog();
		expect(log).toMatch(/"level":"debug"/);
		expect(leakedSecrets(log, secrets)).toEqual([]);
		expect(log.match(JWT_PATTERN)).toBeNull();
	});
});
