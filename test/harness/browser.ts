/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- repository tooling: runs in Node.js, never inside n8n */
/**
 * A headless Chromium on the n8n editor, for tests that look at the nodes as a person does.
 * playwright-core drives Debian's Chromium (scripts/ensure-chromium.mjs installs it when missing; no
 * browser download). Requests to anything but the n8n under test are blocked and recorded, and so are
 * HTTP errors and console errors, for the test to assert on.
 *
 *   const ui = await launchEditorBrowser({ baseUrl: n8n.baseUrl, screenshotDir });
 *   await signIn(ui.page, n8n.baseUrl, n8n.owner);
 *   await ui.shot('01-signed-in');
 *   await ui.close();
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { chromium, selectors, type BrowserContext, type Locator, type Page } from 'playwright-core';

import { REPO_DIR } from './n8nInstance';

const CHROMIUM_ARGS = [
	'--headless=new',
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
];

/** Path of Debian's Chromium, installed with apt-get by scripts/ensure-chromium.mjs when missing. */
export function ensureChromiumPath(): string {
	const out = spawnSync(process.execPath, [path.join(REPO_DIR, 'scripts', 'ensure-chromium.mjs')], {
		encoding: 'utf8',
		timeout: 15 * 60_000,
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	const found = /chromium: (\S+)\s*$/.exec(out.stdout ?? '');
	if (out.status !== 0 || !found)
		throw new Error(`scripts/ensure-chromium.mjs failed (exit ${out.status}): ${out.stdout}`);
	return found[1];
}

export interface HttpError {
	status: number;
	method: string;
	url: string;
}

export interface EditorBrowser {
	context: BrowserContext;
	page: Page;
	/** Requests to another origin than the n8n under test; all were aborted. */
	blockedRequests: string[];
	/** Responses with status >= 400 from the n8n under test. */
	httpErrors: HttpError[];
	/** console.error messages and uncaught page errors. */
	consoleErrors: string[];
	/** Full-window screenshot into the screenshot folder as <name>.png; returns its path. */
	shot(name: string): Promise<string>;
	/**
	 * Closes the browser and removes its profile. Bounded: Chromium processes still running after 10 s
	 * (found by their own fresh profile folder, nothing else) are killed.
	 */
	close(): Promise<void>;
}

/** Process ids whose command line names `marker` (here: this browser's own profile folder). */
function pidsWithArgument(marker: string): number[] {
	const pids: number[] = [];
	for (const entry of fs.readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			if (fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker))
				pids.push(Number(entry));
		} catch {
			/* process ended meanwhile */
		}
	}
	return pids;
}

export async function launchEditorBrowser(opts: {
	baseUrl: string;
	screenshotDir: string;
	viewport?: { width: number; height: number };
	/** Default timeout of every locator wait and action. */
	timeoutMs?: number;
}): Promise<EditorBrowser> {
	const executablePath = ensureChromiumPath();
	// n8n's own page objects use data-test-id; getByTestId follows it from here on.
	selectors.setTestIdAttribute('data-test-id');
	const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bgc-chromium-profile-'));
	const context = await chromium.launchPersistentContext(profileDir, {
		executablePath,
		args: CHROMIUM_ARGS,
		timeout: 60_000,
		viewport: opts.viewport ?? { width: 1440, height: 900 },
		colorScheme: 'light',
		locale: 'en-US',
		timezoneId: 'UTC',
	});
	context.setDefaultTimeout(opts.timeoutMs ?? 15_000);
	const origin = new URL(opts.baseUrl).origin;
	const blockedRequests: string[] = [];
	const httpErrors: HttpError[] = [];
	const consoleErrors: string[] = [];
	await context.route(
		(url) => url.origin !== origin,
		(route) => {
			blockedRequests.push(route.request().url());
			return route.abort('blockedbyclient');
		},
	);
	const page = context.pages()[0] ?? (await context.newPage());
	page.on('response', (res) => {
		if (res.status() >= 400 && res.url().startsWith(origin)) {
			httpErrors.push({
				status: res.status(),
				method: res.request().method(),
				url: res.url().slice(origin.length),
			});
		}
	});
	page.on('console', (msg) => {
		if (msg.type() === 'error') consoleErrors.push(msg.text());
	});
	page.on('pageerror', (err) => consoleErrors.push(`pageerror: ${err.message}`));

	fs.mkdirSync(opts.screenshotDir, { recursive: true });
	const shot = async (name: string) => {
		const file = path.join(opts.screenshotDir, `${name}.png`);
		await page.screenshot({ path: file, animations: 'disabled', caret: 'hide' });
		return file;
	};

	let closed: Promise<void> | undefined;
	const close = () => {
		closed ??= (async () => {
			const timer = new Promise<void>((resolve) => setTimeout(resolve, 10_000).unref());
			await Promise.race([context.close().catch(() => undefined), timer]);
			for (const pid of pidsWithArgument(profileDir)) {
				try {
					process.kill(pid, 'SIGKILL');
				} catch {
					/* already gone */
				}
			}
			fs.rmSync(profileDir, { recursive: true, force: true });
		})();
		return closed;
	};

	return { context, page, blockedRequests, httpErrors, consoleErrors, shot, close };
}

/** Signs in through n8n's sign-in page, as a person does, and waits to leave it. */
export async function signIn(
	page: Page,
	baseUrl: string,
	owner: { email: string; password: string },
	onFilled?: () => Promise<unknown>,
): Promise<void> {
	await page.goto(`${baseUrl}/signin`);
	await page.getByTestId('emailOrLdapLoginId').locator('input').fill(owner.email);
	await page.getByTestId('password').locator('input').fill(owner.password);
	await onFilled?.();
	await page.getByTestId('form-submit-button').click();
	await page.waitForURL((url) => !url.pathname.startsWith('/signin'));
}

/**
 * Polls `read` until `done(value)` holds or the time is up, and returns the last value (for a
 * jest expect with a readable diff). For lists that render in steps, where a locator wait is not enough.
 */
export async function settle<T>(
	read: () => Promise<T>,
	done: (value: T) => boolean,
	timeoutMs = 10_000,
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	let value = await read();
	while (!done(value) && Date.now() < deadline) {
		await new Promise((resolve) => setTimeout(resolve, 100));
		value = await read();
	}
	return value;
}

/** Whether an <img> finished loading and decoded to a picture of non-zero width. */
export function imageLoaded(img: Locator): Promise<boolean> {
	return img.evaluate((el) => {
		const image = el as unknown as { complete: boolean; naturalWidth: number };
		return image.complete && image.naturalWidth > 0;
	});
}

/** Headlines of the options in the open (visible) dropdown of an n8n options parameter. */
export function openDropdownOptions(page: Page): Locator {
	return page
		.locator('.el-select__popper:visible')
		.getByTestId('parameter-input-item')
		.locator('.option-headline');
}
