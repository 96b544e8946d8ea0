/** nodes/BackgroundCheckTrigger/event.ts: reading, filtering, keying and shaping a verified event. */
import { createHash } from 'crypto';

import {
	caseIdOf,
	caseStatusOf,
	changeOf,
	eventKeyOf,
	outputEventKey,
	outputItem,
	parseEvent,
	parseStatusList,
	unselectedEventType,
	unselectedStatus,
} from '../../../nodes/BackgroundCheckTrigger/event';
import { caseEvent, caseEventBody as body, caseStatusId } from '../../fixtures/caseStatusEvent';

const COMPLETE = caseStatusId('Complete');

const NOW_MS = 1_760_000_000_000;
const NOW = NOW_MS / 1000;

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
			unselectedStatus(event, { caseStatuses: [COMPLETE], secondaryStatuses: [] }),
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
		const standard = eventKeyOf(parseEvent(body)!);
		const legacyCopy = parseEvent(
			Buffer.from(
				JSON.stringify({ ...caseEvent, messageId: 'legacy-9', username: 'u', password: 'p' }),
			),
		)!;
		expect(standard).toBe(`case:["case-1","${COMPLETE}",null,"2025-03-01T10:00:00.000Z"]`);
		expect(eventKeyOf(legacyCopy)).toBe(standard);
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
		expect(eventKeyOf(delivered)).toBe('casedata:["cd-1","s",null,"2025-03-01T10:00:00.000Z"]');
		expect(eventKeyOf(fromApi)).toBe(eventKeyOf(delivered));
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
		expect(eventKeyOf(a)).toBe(eventKeyOf(b));
		expect(eventKeyOf(a)).not.toBe(eventKeyOf(c));
	});

	it('names what modStamp orders and the statuses the event sets', () => {
		expect(changeOf(parseEvent(body)!)).toEqual({
			eventKey: eventKeyOf(parseEvent(body)!),
			subject: 'case:case-1',
			status: `["${COMPLETE}",null]`,
			modStamp: '2025-03-01T10:00:00.000Z',
		});
		expect(
			changeOf(
				parseEvent(
					Buffer.from(
						'{"event":"casedata.statuschange","eventObject":{"id":"cd-1","statusId":"s","modStamp":"m"}}',
					),
				)!,
			),
		).toMatchObject({ subject: 'casedata:cd-1', status: '["s",null]', modStamp: 'm' });
		expect(
			changeOf(parseEvent(Buffer.from('{"event":"x","eventObject":{"id":"1","modStamp":"m"}}'))!),
		).toEqual({
			eventKey: 'content:["x",{"id":"1","modStamp":"m"}]',
			subject: 'x:1',
			modStamp: 'm',
		});
		expect(changeOf(parseEvent(Buffer.from('{"event":"x","eventObject":{"id":"1"}}'))!)).toEqual({
			eventKey: 'content:["x",{"id":"1"}]',
		});
	});
});

describe('pending and secondary statuses', () => {
	it('are part of the key and of the statuses the watchdog compares, when they are set', () => {
		const caseData = parseEvent(
			Buffer.from(
				'{"event":"casedata.statuschange","eventObject":{"id":"cd-1","statusId":"s","pendingStatusId":"p","modStamp":"m"}}',
			),
		)!;
		expect(changeOf(caseData)).toEqual({
			eventKey: 'casedata:["cd-1","s","p","m"]',
			subject: 'casedata:cd-1',
			status: '["s","p"]',
			modStamp: 'm',
		});
		expect(caseStatusOf({ caseStatusId: 'a', secondaryCaseStatusId: 'b' })).toBe('["a","b"]');
	});
});

describe('eventKey', () => {
	const legacyCopy = parseEvent(
		Buffer.from(
			JSON.stringify({ ...caseEvent, messageId: 'legacy-9', username: 'u', password: 'p' }),
		),
	)!;
	/** The same change as the watchdog builds it from GET /case/list (watchdog.ts): other order, a field left out. */
	const fromWatchdog = {
		event: 'case.statuschange',
		body: {},
		eventObject: {
			modStamp: '2025-03-01T10:00:00.000Z',
			secondaryStatus: null,
			caseStatusId: COMPLETE,
			caseStatus: 'Complete',
			groupProfileId: '4e0c2a8e-5b1f-4d3c-9a7e-2f6b1c8d3e01',
			id: 'case-1',
		},
	};

	it("is the SHA-256 of the event key: the same in a delivery, its legacy copy and the watchdog's event of the same content", () => {
		const delivered = parseEvent(body)!;
		const expected = createHash('sha256').update(eventKeyOf(delivered)).digest('base64url');
		expect(outputEventKey(delivered)).toBe(expected);
		expect(outputEventKey(legacyCopy)).toBe(expected);
		expect(outputEventKey(fromWatchdog)).toBe(expected);
		expect(
			outputItem(legacyCopy, { valid: true, scheme: 'legacy', timestampSeconds: NOW }),
		).toMatchObject({ eventKey: expected });
		expect(outputItem(fromWatchdog)).toMatchObject({
			eventKey: expected,
			source: 'reconciliation',
		});
	});

	it('differs when the status or the modStamp differs', () => {
		const other = (patch: Record<string, unknown>) => ({
			...fromWatchdog,
			eventObject: { ...fromWatchdog.eventObject, ...patch },
		});
		const keys = new Set([
			outputEventKey(fromWatchdog),
			outputEventKey(other({ caseStatusId: caseStatusId('Pending') })),
			outputEventKey(other({ secondaryCaseStatusId: 'x' })),
			outputEventKey(other({ modStamp: '2025-03-01T10:00:00.001Z' })),
		]);
		expect(keys.size).toBe(4);
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
			eventKey: outputEventKey(parseEvent(body)!),
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
