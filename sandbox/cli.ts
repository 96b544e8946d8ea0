/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- repository tooling: runs in Node.js, never inside n8n */
/**
 * `npx tsx sandbox/cli.ts [--port 7450] [--time-scale 60] [--step-seconds 300] [--report-pdf-bytes 262144]`
 * Starts the sandbox on 127.0.0.1 and prints the demo credentials. Ctrl+C stops it.
 */
import { parseArgs } from 'util';

import { DEFAULT_PORT, DEFAULT_TIME_SCALE, describeSandbox, startSandbox } from './sandbox';

function numberOption(value: string | undefined, name: string, fallback: number): number {
	if (value === undefined) return fallback;
	const number = Number(value);
	if (!Number.isFinite(number) || number < 0)
		throw new Error(`--${name} must be a number >= 0, got ${value}`);
	return number;
}

async function main(): Promise<void> {
	const { values } = parseArgs({
		options: {
			port: { type: 'string' },
			'time-scale': { type: 'string' },
			'step-seconds': { type: 'string' },
			'report-pdf-bytes': { type: 'string' },
			help: { type: 'boolean', short: 'h' },
		},
	});
	if (values.help) {
		process.stdout.write(
			'Usage: npx tsx sandbox/cli.ts [--port 7450] [--time-scale 60] [--step-seconds 300] [--report-pdf-bytes 262144]\n',
		);
		return;
	}
	const sandbox = await startSandbox({
		port: numberOption(values.port ?? process.env.SANDBOX_PORT, 'port', DEFAULT_PORT),
		timeScale: numberOption(values['time-scale'], 'time-scale', DEFAULT_TIME_SCALE),
		stepSeconds:
			values['step-seconds'] === undefined
				? undefined
				: numberOption(values['step-seconds'], 'step-seconds', 0),
		reportPdfBytes:
			values['report-pdf-bytes'] === undefined
				? undefined
				: numberOption(values['report-pdf-bytes'], 'report-pdf-bytes', 0),
	});
	process.stdout.write(`${describeSandbox(sandbox)}\n`);
	const shutdown = () => void sandbox.stop().then(() => process.exit(0));
	process.once('SIGINT', shutdown);
	process.once('SIGTERM', shutdown);
}

main().catch((error: unknown) => {
	process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
	process.exit(1);
});
