/* eslint-disable @n8n/community-nodes/no-restricted-imports -- repository tooling: runs in Node.js, never inside n8n */
/**
 * Seen as a person sees it: Chromium opens the real n8n editor with the packed package installed,
 * signs in through the sign-in page, adds the Background Check Trigger and the Background Check node
 * from the node panel, and checks what renders: the icons (light and dark, served with HTTP 200 and
 * the very files the package ships), the trigger's Production URL and its notice, the actions list,
 * and the Resource and Operation dropdowns. A screenshot of each step goes to test-artifacts/editor/.
 *
 *   npx jest -c jest.e2e.config.js test/e2e/editor.e2e.test.ts
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import type { Locator, Page } from 'playwright-core';

import {
	imageLoaded,
	launchEditorBrowser,
	openDropdownOptions,
	settle,
	signIn,
	type EditorBrowser,
} from '../harness/browser';
import { REPO_DIR, packageJsonUnderTest, startTestN8n, type TestN8n } from '../harness/n8nInstance';

const SCREENSHOT_DIR = path.join(REPO_DIR, 'test-artifacts', 'editor');

const PACKAGE = packageJsonUnderTest().name;
const ACTION_TYPE = `${PACKAGE}.backgroundCheck`;
const TRIGGER_TYPE = `${PACKAGE}.backgroundCheckTrigger`;
const ICON_URL = {
	action: `/icons/${PACKAGE}/dist/nodes/BackgroundCheck/backgroundCheck.svg`,
	actionDark: `/icons/${PACKAGE}/dist/nodes/BackgroundCheck/backgroundCheck.dark.svg`,
	trigger: `/icons/${PACKAGE}/dist/nodes/BackgroundCheckTrigger/backgroundCheck.svg`,
};

/** Display names as written in nodes/BackgroundCheck/actions (n8n lists options in this order). */
const RESOURCES = [
	'Adverse Action',
	'Case',
	'Case Data',
	'Company User',
	'Invitation',
	'Package',
	'Professional License (CPLC)',
	'Report',
	'Secure Document',
	'Shipment Mask',
	'Testimony',
	'Verification Book',
];
const CASE_OPERATIONS = [
	'Add Services',
	'Archive',
	'Begin Processing',
	'Cancel',
	'Cancel Services',
	'Create',
	'Get',
	'Get Candidate Info',
	'Get Data',
	'Get Many',
	'Get Order Configuration',
	'Get Services',
	'Place',
	'Unarchive',
	'Update Candidate Info',
];
const TRIGGER_ACTIONS = ['On any event', 'On case data status change', 'On case status change'];

interface OptionsProperty {
	name: string;
	type: string;
	displayOptions?: { show?: Record<string, unknown[]> };
	options?: Array<{ name: string; value: string; action?: string }>;
}

let n8n: TestN8n;
let ui: EditorBrowser;
let page: Page;
/** The action node's properties as this n8n loaded them (what the editor renders from). */
let actionProperties: OptionsProperty[];

beforeAll(async () => {
	fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
	for (const old of fs.readdirSync(SCREENSHOT_DIR))
		if (old.endsWith('.png')) fs.rmSync(path.join(SCREENSHOT_DIR, old));
	n8n = await startTestN8n('editor');
	ui = await launchEditorBrowser({ baseUrl: n8n.baseUrl, screenshotDir: SCREENSHOT_DIR });
	page = ui.page;
	const loaded = (await n8n.loadedNodeTypes()).find((t) => t.name === ACTION_TYPE);
	actionProperties = (loaded?.properties ?? []) as OptionsProperty[];
}, 240_000);

afterAll(async () => {
	await ui?.close();
	await n8n?.stop();
}, 60_000);

/** The file n8n serves for an icon URL: the installed package's copy (installed from the packed tarball). */
function installedFile(iconUrl: string): Buffer {
	const rel = iconUrl.replace(`/icons/${PACKAGE}/`, '');
	return fs.readFileSync(path.join(n8n.userFolder, '.n8n', 'nodes', 'node_modules', PACKAGE, rel));
}

/** The <img> shows `iconUrl`, decoded to a picture, and the editor's server answers it with our file. */
async function expectIcon(img: Locator, iconUrl: string): Promise<void> {
	await img.waitFor({ state: 'visible' });
	expect(await img.getAttribute('src')).toBe(iconUrl);
	expect(await settle(() => imageLoaded(img), Boolean)).toBe(true);
	const res = await page.request.get(`${n8n.baseUrl}${iconUrl}`);
	expect(res.status()).toBe(200);
	expect(res.headers()['content-type']).toMatch(/^image\/svg\+xml/);
	const body = await res.body();
	expect(body.toString('utf8')).toMatch(/^<svg[\s>]/);
	expect(body.equals(installedFile(iconUrl))).toBe(true);
}

/** The "action" texts of every operation of the action node, as loaded: what the node panel lists. */
const loadedActionNames = () =>
	actionProperties.flatMap((p) =>
		p.name === 'operation' ? (p.options ?? []).map((o) => o.action ?? o.name) : [],
	);

const nodeCreator = () => page.getByTestId('node-creator');
const ndv = () => page.getByTestId('ndv');
const canvasNode = (type: string) =>
	page.locator(`[data-test-id="canvas-node"][data-node-type="${type}"]`);

/** Opens the node panel with its + button and searches; returns the one "Background Check" result. */
async function searchNodePanel(text: string): Promise<Locator> {
	await page.getByTestId('node-creator-plus-button').click();
	await nodeCreator().waitFor();
	await page.getByTestId('node-creator-search-bar').fill(text);
	const item = nodeCreator()
		.getByTestId('item-iterator-item')
		.filter({
			has: page
				.getByTestId('node-creator-item-name')
				.getByText('Background Check', { exact: true }),
		});
	await item.waitFor();
	return item;
}

/** Opens an options parameter's dropdown; returns the option names once they stop changing. */
async function openDropdown(parameter: string, expectedCount: number): Promise<string[]> {
	await ndv().getByTestId(`parameter-input-${parameter}`).click();
	await openDropdownOptions(page).first().waitFor();
	return settle(
		() => openDropdownOptions(page).allInnerTexts(),
		(names) => names.length >= expectedCount,
	);
}

/** The NDV's title (the node's name), as shown in its header. */
async function expectNdvTitle(title: string): Promise<void> {
	const shown = ndv().getByTestId('node-title-container').getByTestId('inline-edit-preview');
	await shown.waitFor();
	expect(
		await settle(
			() => shown.innerText(),
			(text) => text === title,
		),
	).toBe(title);
}

async function closeDropdown(): Promise<void> {
	await page.keyboard.press('Escape');
	await page.locator('.el-select__popper:visible').waitFor({ state: 'hidden' });
	await ndv().waitFor();
}

/**
 * The steps below are one walk through the editor: each starts where the one before it left the page. A step
 * runs only after the one before it passed; run alone (a -t filter) or after a failure, it fails saying so
 * instead of checking a page in some other state (or, for the last one, checking nothing).
 */
let lastPassed = -1;
let declared = 0;
function step(name: string, fn: () => Promise<void> | void, timeout?: number): void {
	const index = declared++;
	const previous = index - 1;
	test(
		name,
		async () => {
			if (lastPassed !== previous)
				throw new Error(
					`this step needs step ${previous + 1} of this file to have passed just before it: run the whole file`,
				);
			await fn();
			lastPassed = index;
		},
		timeout,
	);
}

describe('the Background Check nodes in the n8n editor', () => {
	step('the owner signs in through the sign-in page and opens a new workflow', async () => {
		await signIn(page, n8n.baseUrl, n8n.owner, () => ui.shot('01-sign-in-form'));
		await page.goto(`${n8n.baseUrl}/workflow/new`);
		await page.getByTestId('canvas-add-button').waitFor();
		await ui.shot('02-new-workflow');
	});

	step('the node panel finds "Background Check" with its icon', async () => {
		const item = await searchNodePanel('Background Check');
		// Action node and trigger are one entry; no "Background Check Tool" outside an AI agent's tools.
		expect(await nodeCreator().getByTestId('node-creator-item-name').allInnerTexts()).toEqual([
			'Background Check',
		]);
		await expectIcon(item.locator('img').first(), ICON_URL.action);
		await ui.shot('03-node-panel-search');
	});

	step('its details list the trigger events and the 33 actions', async () => {
		await nodeCreator().getByTestId('item-iterator-item').first().click();
		await page.getByTestId('nodes-list-header').getByText('Node details').waitFor();
		const header = nodeCreator().locator('img').first();
		await expectIcon(header, ICON_URL.action);

		const triggerItems = nodeCreator().locator(
			`[data-test-id="item-iterator-item"][data-keyboard-nav-type="action"][data-keyboard-nav-id^="${TRIGGER_TYPE}-"]`,
		);
		expect(
			await settle(
				() => triggerItems.getByTestId('node-creator-item-name').allInnerTexts(),
				(n) => n.length === TRIGGER_ACTIONS.length,
			),
		).toEqual(TRIGGER_ACTIONS);
		await expectIcon(triggerItems.first().locator('img').first(), ICON_URL.trigger);

		const actionNames = loadedActionNames();
		expect(actionNames).toHaveLength(33);
		await expect(
			nodeCreator().getByTestId('node-creator-category-item').allInnerTexts(),
		).resolves.toEqual(
			expect.arrayContaining([
				`Triggers (${TRIGGER_ACTIONS.length})`,
				`Actions (${actionNames.length})`,
			]),
		);
		await ui.shot('04-node-details');
	});

	step(
		'the Background Check Trigger opens with its Production URL and the notice about it',
		async () => {
			await nodeCreator()
				.getByTestId('node-creator-item-name')
				.getByText('On case status change', { exact: true })
				.click();
			await ndv().waitFor();
			await expectNdvTitle('Background Check Trigger');
			await expectIcon(ndv().locator('header img').first(), ICON_URL.trigger);

			const notice = ndv().getByRole('alert').filter({ hasText: 'Production URL' });
			await notice.waitFor();
			expect(await notice.innerText()).toContain(
				"Subscriptions are made in the provider's webhook settings",
			);
			expect(await notice.innerText()).toContain(
				'The workflow must be active for the Production URL to answer.',
			);
			expect(await ndv().getByTestId('parameter-input-event').locator('input').inputValue()).toBe(
				'Case Status Change',
			);
			await ui.shot('05-trigger-ndv');

			await ndv().getByText('Webhook URLs').click();
			await ndv().getByTestId('radio-button-production').click();
			const productionUrl = ndv().getByText(
				new RegExp(`^${n8n.baseUrl.replace(/[.]/g, '\\.')}/webhook/[0-9a-f-]{36}/webhook$`),
			);
			await productionUrl.waitFor();
			await ui.shot('06-trigger-production-url');

			await ndv().getByTestId('ndv-close-button').click();
			await ndv().waitFor({ state: 'hidden' });
			await expectIcon(canvasNode(TRIGGER_TYPE).locator('img').first(), ICON_URL.trigger);
			await ui.shot('07-canvas-with-trigger');
		},
	);

	step('the actions list of the node panel matches the node description', async () => {
		await searchNodePanel('Background Check');
		await nodeCreator().getByTestId('item-iterator-item').first().click();
		const actionItems = nodeCreator().locator(
			`[data-test-id="item-iterator-item"][data-keyboard-nav-type="action"][data-keyboard-nav-id^="${ACTION_TYPE}-"]`,
		);
		const expected = loadedActionNames();
		const shown = await settle(
			() => actionItems.getByTestId('node-creator-item-name').allInnerTexts(),
			(n) => n.length === expected.length,
		);
		expect([...shown].sort()).toEqual([...expected].sort());
		expect(shown).toContain('Create a case');
		// The actions are grouped under one heading per resource ("Case Actions", ...).
		for (const resource of RESOURCES) {
			const heading = nodeCreator().getByText(
				new RegExp(`^${resource.replace(/[()]/g, '\\$&')} actions$`, 'i'),
			);
			expect(await heading.count()).toBe(1);
		}
		for (let i = 0; i < (await actionItems.count()); i++) {
			expect(await actionItems.nth(i).locator('img').first().getAttribute('src')).toBe(
				ICON_URL.action,
			);
		}
		await ui.shot('08-actions-list');
	});

	step('"Create a case" opens the node with Resource Case and Operation Create', async () => {
		await nodeCreator()
			.getByTestId('node-creator-item-name')
			.getByText('Create a case', { exact: true })
			.click();
		await ndv().waitFor();
		await expectNdvTitle('Create a case');
		await expectIcon(ndv().locator('header img').first(), ICON_URL.action);
		expect(await ndv().getByTestId('parameter-input-resource').locator('input').inputValue()).toBe(
			'Case',
		);
		expect(await ndv().getByTestId('parameter-input-operation').locator('input').inputValue()).toBe(
			'Create',
		);
		await ui.shot('09-action-ndv');
	});

	step('the Resource dropdown lists every resource', async () => {
		const names = await openDropdown('resource', RESOURCES.length);
		expect(names).toEqual(RESOURCES);
		const loaded = actionProperties.find((p) => p.name === 'resource')?.options?.map((o) => o.name);
		expect(names).toEqual(loaded);
		await ui.shot('10-resource-dropdown');
		await openDropdownOptions(page).last().scrollIntoViewIfNeeded();
		await ui.shot('11-resource-dropdown-scrolled');
		await closeDropdown();
	});

	step('the Operation dropdown of Case lists its operations', async () => {
		const names = await openDropdown('operation', CASE_OPERATIONS.length);
		expect(names).toEqual(CASE_OPERATIONS);
		const loaded = actionProperties
			.find((p) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes('case'))
			?.options?.map((o) => o.name);
		expect(names).toEqual(loaded);
		await ui.shot('12-operation-dropdown');
		await closeDropdown();
	});

	step('in dark mode the node shows its dark icon', async () => {
		await page.emulateMedia({ colorScheme: 'dark' });
		const icon = ndv().locator('header img').first();
		await settle(
			() => icon.getAttribute('src'),
			(src) => src === ICON_URL.actionDark,
		);
		await expectIcon(icon, ICON_URL.actionDark);
		await ui.shot('13-action-ndv-dark');
		await page.emulateMedia({ colorScheme: 'light' });
		await settle(
			() => icon.getAttribute('src'),
			(src) => src === ICON_URL.action,
		);
	});

	step(
		'the canvas shows the trigger connected to the new node, both with their icons',
		async () => {
			await ndv().getByTestId('ndv-close-button').click();
			await ndv().waitFor({ state: 'hidden' });
			const types = await page
				.getByTestId('canvas-node')
				.evaluateAll((els) => els.map((el) => el.getAttribute('data-node-type')));
			expect(types.sort()).toEqual([ACTION_TYPE, TRIGGER_TYPE].sort());
			await expectIcon(canvasNode(ACTION_TYPE).locator('img').first(), ICON_URL.action);
			await expectIcon(canvasNode(TRIGGER_TYPE).locator('img').first(), ICON_URL.trigger);
			expect(await page.getByTestId('edge').count()).toBe(1);
			await ui.shot('14-canvas-with-both-nodes');
		},
	);

	step('nothing failed to load and the browser reached nothing outside the machine', () => {
		// Expected: the sign-in page's session check before signing in (401), and the output-schema
		// preview files n8n asks every node package for (404: the package ships none).
		const unexpected = ui.httpErrors.filter(
			(e) =>
				!(e.status === 401 && e.url === '/rest/login') &&
				!(e.status === 404 && e.url.startsWith(`/schemas/${PACKAGE}.`)),
		);
		expect(unexpected).toEqual([]);
		// The editor looks the community package up on the public npm registry; blocked here.
		const hosts = [...new Set(ui.blockedRequests.map((u) => new URL(u).host))];
		expect(hosts.filter((h) => h !== 'registry.npmjs.org')).toEqual([]);
		const errors = ui.consoleErrors.filter((m) => !m.startsWith('Failed to load resource'));
		expect(errors).toEqual([]);
	});
});
