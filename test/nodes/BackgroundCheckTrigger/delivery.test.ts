import {
	caseIdOf,
	configurationProblems,
	contentKey,
	orderingSubject,
	outputItem,
	parseEvent,
	parseStatusList,
	unselectedEventType,
	unselectedStatus,
	verifyDelivery,
	type VerificationConfig,
} from '../../../nodes/BackgroundCheckTrigger/delivery';
import {
	generateWebhookSecret,
	signLegacyWebhook,
	signStandardWebhook,
} from '../../../nodes/shared/webhookSignature';

const SECRET = generateWebhookSecret();
const LEGACY_SECRET = 'a1b2c3d4e5f6';
const NOW_MS = 1_760_000_000_000;
const NOW = NOW_MS / 1000;

const config = (overrides: Partial<VerificationConfig> = {}): VerificationConfig => ({
	scheme: 'standard',
	signingSecrets: [SECRET, ''],
	legacySecret: LEGACY_SECRET,
	legacyHeaderName: '',
	toleranceSeconds: 300,
	...overrides,
});

const caseEvent = {
	messageId: 'msg_1',
	event: 'case.statuschange',
	apiTrackingCode: 'T-1',
	apiTrackingUser: null,
	eventObject: {
		id: 'case-1',
		caseStatus: 'Complete',
		caseStatusId: 'case-status-complete',
		secondaryStatus: null,
		secondaryCaseStatusId: null,
		modStamp: '2025-03-01T10:00:00.000Z',
	},
};
const body = Buffer.from(JSON.stringify(caseEvent));

const standardHeaders = (rawBody: Buffer = body, secret = SECRET) => ({
	'webhook-id': 'msg_1',
	'webhook-timestamp': String(NOW),
	'webhook-signature': signStandardWebhook(secret, 'msg_1', NOW, rawBody),
});
const legacyHeaders = (name = 'acme-signature', rawBody: Buffer = body) => ({
	[name]: signLegacyWebhook(LEGACY_SECRET, NOW_MS, rawBody),
});

describe('configurationProblems', () => {
	it('accepts a whsec_ secret for Standard and a legacy secret for Legacy', () => {
		expect(configurationProblems(config())).toEqual([]);
		expect(configurationProblems(config({ scheme: 'legacy', signingSecrets: ['', ''] }))).toEqual(
			[],
		);
		expect(
			configurationProblems(
				config({ scheme: 'both', signingSecrets: [SECRET, generateWebhookSecret()] }),
			),
		).toEqual([]);
	});

	it('names a signing secret that is not whsec_ base64, without repeating it', () => {
		const problems = configurationProblems(
			config({ signingSecrets: ['MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', ''] }),
		);
		expect(problems).toEqual([expect.stringContaining('is not a whsec_ secret')]);
		expect(problems.join()).not.toContain('MfKQ9r8G');
	});

	it('names each missing or malformed value for the chosen scheme', () => {
		expect(configurationProblems(config({ signingSecrets: ['', ''] }))).toEqual([
			expect.stringContaining('no Signing Secret'),
		]);
		expect(configurationProblems(config({ signingSecrets: [SECRET, 'old-secret'] }))).toEqual([
			expect.stringContaining('Previous Signing Secret is not a whsec_ secret'),
		]);
		expect(
			configurationProblems(config({ scheme: 'both', legacySecret: '', signingSecrets: ['', ''] })),
		).toHaveLength(2);
		expect(
			configurationProblems(config({ scheme: 'legacy', legacyHeaderName: 'bad header:' })),
		).toEqual([expect.stringContaining('not a valid header name')]);
		expect(configurationProblems(config({ toleranceSeconds: 0 }))).toEqual([
			expect.stringContaining('tolerance'),
		]);
	});

	it('does not ask for the legacy secret under Standard, nor the whsec_ secret under Legacy', () => {
		expect(configurationProblems(config({ legacySecret: '' }))).toEqual([]);
		expect(
			configurationProblems(config({ scheme: 'legacy', signingSecrets: ['junk', 'junk'] })),
		).toEqual([]);
	});
});

describe('verifyDelivery', () => {
	it('verifies a Standard delivery and reports its ID', () => {
		expect(verifyDelivery(standardHeaders(), body, config(), NOW_MS)).toEqual({
			valid: true,
			scheme: 'standard',
			timestampSeconds: NOW,
			deliveryId: 'msg_1',
		});
	});

	it('accepts the previous secret during a rotation', () => {
		const previous = generateWebhookSecret();
		expect(
			verifyDelivery(
				standardHeaders(body, previous),
				body,
				config({ signingSecrets: [SECRET, previous] }),
				NOW_MS,
			).valid,
		).toBe(true);
		expect(verifyDelivery(standardHeaders(body, previous), body, config(), NOW_MS).valid).toBe(
			false,
		);
	});

	it('joins a repeated webhook-signature header', () => {
		const headers = {
			...standardHeaders(),
			'webhook-signature': ['v1,AAAA', standardHeaders()['webhook-signature']],
		};
		expect(verifyDelivery(headers, body, config(), NOW_MS).valid).toBe(true);
	});

	it('refuses a legacy delivery under Standard and a Standard one under Legacy', () => {
		expect(verifyDelivery(legacyHeaders(), body, config(), NOW_MS)).toEqual({
			valid: false,
			reason: 'missing webhook headers',
		});
		expect(verifyDelivery(standardHeaders(), body, config({ scheme: 'legacy' }), NOW_MS)).toEqual({
			valid: false,
			reason: 'missing signature header',
		});
	});

	it('finds the legacy header by itself when no name is configured', () => {
		const result = verifyDelivery(
			{ ...legacyHeaders('acme-signature'), 'content-type': 'application/json' },
			body,
			config({ scheme: 'legacy' }),
			NOW_MS,
		);
		expect(result).toEqual({ valid: true, scheme: 'legacy', timestampSeconds: NOW });
	});

	it('does not guess between two legacy-looking headers', () => {
		const headers = { ...legacyHeaders('acme-signature'), ...legacyHeaders('other-signature') };
		expect(verifyDelivery(headers, body, config({ scheme: 'legacy' }), NOW_MS).valid).toBe(false);
		expect(
			verifyDelivery(
				headers,
				body,
				config({ scheme: 'legacy', legacyHeaderName: 'acme-signature' }),
				NOW_MS,
			).valid,
		).toBe(true);
	});

	it('reads only the configured legacy header', () => {
		expect(
			verifyDelivery(
				legacyHeaders('acme-signature'),
				body,
				config({ scheme: 'legacy', legacyHeaderName: 'x-signature' }),
				NOW_MS,
			),
		).toEqual({
			valid: false,
			reason: 'missing signature header',
		});
	});

	it('with Both, verifies whichever scheme the headers carry', () => {
		expect(
			verifyDelivery(standardHeaders(), body, config({ scheme: 'both' }), NOW_MS),
		).toMatchObject({ valid: true, scheme: 'standard' });
		expect(verifyDelivery(legacyHeaders(), body, config({ scheme: 'both' }), NOW_MS)).toMatchObject(
			{ valid: true, scheme: 'legacy' },
		);
		expect(verifyDelivery({}, body, config({ scheme: 'both' }), NOW_MS)).toEqual({
			valid: false,
			reason: 'missing signature headers',
		});
	});

	it('with Both and both headers, accepts either valid signature and otherwise gives the Standard reason', () => {
		const badStandard = { ...standardHeaders(), 'webhook-signature': 'v1,AAAA' };
		expect(
			verifyDelivery(
				{ ...badStandard, ...legacyHeaders() },
				body,
				config({ scheme: 'both' }),
				NOW_MS,
			),
		).toMatchObject({ valid: true, scheme: 'legacy' });
		const badLegacy = { 'acme-signature': `t=${NOW_MS},v1=00` };
		expect(
			verifyDelivery({ ...badStandard, ...badLegacy }, body, config({ scheme: 'both' }), NOW_MS),
		).toEqual({
			valid: false,
			reason: 'signature mismatch',
		});
	});

	it('refuses a tampered body and a stale or future delivery', () => {
		const tampered = Buffer.from(body.toString().replace('Complete', 'Pending!'));
		expect(verifyDelivery(standardHeaders(), tampered, config(), NOW_MS).valid).toBe(false);
		expect(verifyDelivery(standardHeaders(), body, config(), NOW_MS + 301_000)).toEqual({
			valid: false,
			reason: 'timestamp too old',
		});
		expect(verifyDelivery(standardHeaders(), body, config(), NOW_MS - 301_000)).toEqual({
			valid: false,
			reason: 'timestamp too far in the future',
		});
		expect(
			verifyDelivery(standardHeaders(), body, config({ toleranceSeconds: 600 }), NOW_MS + 301_000)
				.valid,
		).toBe(true);
	});
});

describe('parseEvent', () => {
	it('reads the event and drops the legacy username and password', () => {
		const legacyBody = Buffer.from(
			JSON.stringify({
				...caseEvent,
				username: 'endpoint-user',
				password: 'endpoint-pass',
				futureField: 1,
			}),
		);
		const event = parseEvent(legacyBody)!;
		expect(event.event).toBe('case.statuschange');
		expect(event.messageId).toBe('msg_1');
		expect(event.body).not.toHaveProperty('username');
		expect(event.body).not.toHaveProperty('password');
		expect(event.body.futureField).toBe(1);
	});

	it.each(['not json', '[1,2]', '"text"', 'null', ''])('refuses %p', (text) => {
		expect(parseEvent(Buffer.from(text))).toBeUndefined();
	});

	it('tolerates a body without event or eventObject', () => {
		expect(parseEvent(Buffer.from('{}'))).toEqual({
			body: {},
			event: '',
			messageId: undefined,
			eventObject: {},
		});
	});
});

describe('filters', () => {
	const event = parseEvent(body)!;
	const dataEvent = parseEvent(
		Buffer.from(
			JSON.stringify({
				event: 'casedata.statuschange',
				eventObject: { id: 'cd-1', caseId: 'case-1' },
			}),
		),
	)!;

	it('selects by event type, "any" passing every type', () => {
		expect(unselectedEventType(event, 'case.statuschange')).toBeUndefined();
		expect(unselectedEventType(event, 'casedata.statuschange')).toBe(
			'event case.statuschange not selected',
		);
		expect(
			unselectedEventType(parseEvent(Buffer.from('{"event":"case.created"}'))!, 'any'),
		).toBeUndefined();
	});

	it('parses status lists', () => {
		expect(parseStatusList(' Complete, pending ,,')).toEqual(['complete', 'pending']);
		expect(parseStatusList(undefined)).toEqual([]);
	});

	it('matches case status by name or ID, ignoring case', () => {
		expect(
			unselectedStatus(event, { caseStatuses: ['complete'], secondaryStatuses: [] }),
		).toBeUndefined();
		expect(
			unselectedStatus(event, { caseStatuses: ['case-status-complete'], secondaryStatuses: [] }),
		).toBeUndefined();
		expect(unselectedStatus(event, { caseStatuses: ['pending'], secondaryStatuses: [] })).toBe(
			'case status not selected',
		);
	});

	it('matches a missing secondary status with "none"', () => {
		expect(
			unselectedStatus(event, { caseStatuses: [], secondaryStatuses: ['none'] }),
		).toBeUndefined();
		expect(
			unselectedStatus(event, {
				caseStatuses: [],
				secondaryStatuses: ['waiting for authorization'],
			}),
		).toBe('secondary status not selected');
	});

	it('lets every event through without status filters, and none without a case status when filtered', () => {
		expect(
			unselectedStatus(dataEvent, { caseStatuses: [], secondaryStatuses: [] }),
		).toBeUndefined();
		expect(unselectedStatus(dataEvent, { caseStatuses: ['complete'], secondaryStatuses: [] })).toBe(
			'case status not selected',
		);
	});
});

describe('content keys', () => {
	it("keys a case status change on spec 6.5's fields, whichever delivery system sent it", () => {
		const standard = contentKey(parseEvent(body)!);
		const legacyCopy = parseEvent(
			Buffer.from(
				JSON.stringify({ ...caseEvent, messageId: 'legacy-9', username: 'u', password: 'p' }),
			),
		)!;
		expect(standard).toBe('case:["case-1","case-status-complete",null,"2025-03-01T10:00:00.000Z"]');
		expect(contentKey(legacyCopy)).toBe(standard);
	});

	it("keys a case data status change on the same fields of the case data, so the watchdog's copy built from the API matches", () => {
		const delivered = parseEvent(
			Buffer.from(
				'{"event":"casedata.statuschange","eventObject":{"id":"cd-1","caseId":"c","serviceName":"x","statusId":"s","pendingStatusId":null,"modStamp":"2025-03-01T10:00:00.000Z"}}',
			),
		)!;
		const fromApi = {
			event: 'casedata.statuschange',
			body: {},
			eventObject: { modStamp: '2025-03-01T10:00:00.000Z', statusId: 's', id: 'cd-1', details: {} },
		};
		expect(contentKey(delivered)).toBe('casedata:["cd-1","s",null,"2025-03-01T10:00:00.000Z"]');
		expect(contentKey(fromApi)).toBe(contentKey(delivered));
	});

	it('keys other events on their whole eventObject, independent of key order', () => {
		const a = parseEvent(
			Buffer.from('{"event":"casedata.statuschange","eventObject":{"id":"cd-1","statusId":"s"}}'),
		)!;
		const b = parseEvent(
			Buffer.from('{"event":"casedata.statuschange","eventObject":{"statusId":"s","id":"cd-1"}}'),
		)!;
		const c = parseEvent(
			Buffer.from('{"event":"casedata.statuschange","eventObject":{"statusId":"t","id":"cd-1"}}'),
		)!;
		expect(contentKey(a)).toBe(contentKey(b));
		expect(contentKey(a)).not.toBe(contentKey(c));
	});

	it('names what modStamp orders', () => {
		expect(orderingSubject(parseEvent(body)!)).toEqual({
			subject: 'case.statuschange|case-1',
			modStamp: '2025-03-01T10:00:00.000Z',
		});
		expect(
			orderingSubject(parseEvent(Buffer.from('{"event":"x","eventObject":{"id":"1"}}'))!),
		).toBeUndefined();
	});
});

describe('output', () => {
	it('carries the event, its tracking fields and the delivery', () => {
		const verification = {
			valid: true as const,
			scheme: 'standard' as const,
			timestampSeconds: NOW,
			deliveryId: 'msg_1',
		};
		expect(outputItem(parseEvent(body)!, verification)).toEqual({
			...caseEvent,
			deliveryId: 'msg_1',
			deliveryTimestamp: new Date(NOW_MS).toISOString(),
			signatureScheme: 'standard',
			source: 'webhook',
		});
	});

	it('finds the case of a case event and of a case data event', () => {
		expect(caseIdOf(parseEvent(body)!)).toBe('case-1');
		expect(
			caseIdOf(
				parseEvent(
					Buffer.from(
						'{"event":"casedata.statuschange","eventObject":{"id":"cd-1","caseId":"case-2"}}',
					),
				)!,
			),
		).toBe('case-2');
		expect(
			caseIdOf(
				parseEvent(Buffer.from('{"event":"casedata.statuschange","eventObject":{"id":"cd-1"}}'))!,
			),
		).toBeUndefined();
	});
});
