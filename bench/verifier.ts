/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- repository tooling: runs in Node.js, never inside n8n */
/**
 * Verifier cost: Standard Webhooks verifications per second for a 1 KiB and a 1 MiB body, the trigger's
 * verifier (verifyDelivery -> verifyStandardWebhook, Node's crypto HMAC) against the `standardwebhooks` npm
 * package (pure-JavaScript SHA-256), on the same input: the same raw body bytes (a Buffer, as a receiver
 * holds it) and the same three headers, one signing secret, timestamp checked by both. The package is asked
 * not to parse the JSON (`jsonParse: false`): the trigger parses the body after verifying it, so the
 * comparison is verification against verification. In-process, no n8n, no network.
 *
 *   npm run bench -- verifier        (BENCH_ROUNDS=7)
 */
import { readFileSync } from 'node:fs';

import { Webhook } from 'standardwebhooks';

import {
	verifyDelivery,
	type VerificationConfig,
} from '../nodes/BackgroundCheckTrigger/verification';
import { generateWebhookSecret, signStandardWebhook } from '../nodes/shared/webhookSignature';
import { fmt, header, median, printTable, runMain, saveResult } from './lib/report';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const STANDARDWEBHOOKS_VERSION = (
	JSON.parse(readFileSync(require.resolve('standardwebhooks/package.json'), 'utf8')) as {
		version: string;
	}
).version;

/** A JSON delivery body of exactly `size` bytes (a case.statuschange padded with a note). */
function bodyOfSize(size: number): Buffer {
	const event = {
		messageId: 'msg_2f1c9a4e7b3d4e8f',
		event: 'case.statuschange',
		apiTrackingCode: 'HR-42',
		apiTrackingUser: 'ats-user-1',
		eventObject: {
			id: '2f1c9a4e-7b3d-4e8f-9a10-5c6d7e8f9a0b',
			caseStatus: 'Complete',
			caseStatusId: 'case-status-complete',
			modStamp: '2025-01-01T00:00:00.000Z',
		},
		note: '',
	};
	const bare = Buffer.byteLength(JSON.stringify(event));
	event.note = 'x'.repeat(size - bare);
	const body = Buffer.from(JSON.stringify(event));
	if (body.length !== size) throw new Error(`body is ${body.length} bytes, wanted ${size}`);
	return body;
}

interface Case {
	label: string;
	body: Buffer;
	/** Iterations per round for each implementation (bounded; sized so a round takes a fraction of a second). */
	iterations: { ours: number; theirs: number };
}

async function main(): Promise<void> {
	const machine = header(
		'verifier',
		`Standard Webhooks verifications per second, median of ${ROUNDS} rounds: the trigger's verifyDelivery vs standardwebhooks@${STANDARDWEBHOOKS_VERSION} Webhook.verify (jsonParse: false), same bytes and headers.`,
	);
	const secret = generateWebhookSecret();
	const webhook = new Webhook(secret);
	const config: VerificationConfig = {
		scheme: 'standard',
		signingSecrets: [secret],
		legacySecret: '',
		legacyHeaderName: '',
		toleranceSeconds: 300,
	};
	const cases: Case[] = [
		{ label: '1 KiB', body: bodyOfSize(1024), iterations: { ours: 20_000, theirs: 10_000 } },
		{ label: '1 MiB', body: bodyOfSize(1024 * 1024), iterations: { ours: 200, theirs: 20 } },
	];

	const rows: Array<Record<string, unknown>> = [];
	for (const { label, body, iterations } of cases) {
		const timestamp = Math.floor(Date.now() / 1000);
		const headers = {
			'webhook-id': 'msg_2f1c9a4e7b3d4e8f',
			'webhook-timestamp': String(timestamp),
			'webhook-signature': signStandardWebhook(secret, 'msg_2f1c9a4e7b3d4e8f', timestamp, body),
		};
		const ours = () => verifyDelivery(headers, body, config, Date.now()).valid;
		const theirs = () => {
			webhook.verify(body, headers, { jsonParse: false });
			return true;
		};
		// Same verdicts on the same input before anything is timed.
		const tampered = Buffer.from(body);
		tampered[tampered.length - 3] ^= 1;
		if (!ours() || !theirs()) throw new Error(`${label}: a verifier refused the valid delivery`);
		if (verifyDelivery(headers, tampered, config, Date.now()).valid)
			throw new Error(`${label}: ours accepted a tampered body`);
		if (
			!(() => {
				try {
					webhook.verify(tampered, headers, { jsonParse: false });
					return false;
				} catch {
					return true;
				}
			})()
		) {
			throw new Error(`${label}: standardwebhooks accepted a tampered body`);
		}

		const rate = (fn: () => boolean, n: number) => {
			const started = process.hrtime.bigint();
			for (let i = 0; i < n; i++) if (!fn()) throw new Error('verification failed');
			return n / (Number(process.hrtime.bigint() - started) / 1e9);
		};
		rate(ours, Math.ceil(iterations.ours / 10)); // warm-up
		rate(theirs, Math.ceil(iterations.theirs / 10));
		const oursRates: number[] = [];
		const theirsRates: number[] = [];
		for (let round = 0; round < ROUNDS; round++) {
			oursRates.push(rate(ours, iterations.ours));
			theirsRates.push(rate(theirs, iterations.theirs));
		}
		rows.push({
			body: label,
			oursPerSecond: median(oursRates),
			theirsPerSecond: median(theirsRates),
			ratio: median(oursRates) / median(theirsRates),
			oursRates,
			theirsRates,
		});
	}
	printTable(
		[
			'body',
			"this package's verifier (per s)",
			'standardwebhooks (per s)',
			'ratio (ours / theirs)',
		],
		rows.map((row) => [
			String(row.body),
			fmt(Number(row.oursPerSecond)),
			fmt(Number(row.theirsPerSecond)),
			`${fmt(Number(row.ratio), 1)}x`,
		]),
	);
	saveResult('verifier', { machine, rounds: ROUNDS, rows });
}

runMain(main);
