#!/usr/bin/env node
// The editor test drives Debian's Chromium with playwright-core (browser downloads are not possible here).
// Installs it with apt-get when it is missing; prints the path either way.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export const CHROMIUM_PATH = process.env.BGC_CHROMIUM_PATH ?? '/usr/bin/chromium';

export function ensureChromium() {
	if (existsSync(CHROMIUM_PATH)) return CHROMIUM_PATH;
	console.log('chromium: not found, installing Debian package chromium (once)');
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
	execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: 'inherit', env });
	if (!existsSync(CHROMIUM_PATH)) throw new Error(`chromium is still missing at ${CHROMIUM_PATH}`);
	return CHROMIUM_PATH;
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(`chromium: ${ensureChromium()}`);
