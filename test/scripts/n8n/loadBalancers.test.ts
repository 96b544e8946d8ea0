/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- repository tooling: runs in Node.js, never inside n8n */
/** The load balancers' files users copy (docs/queue-mode/): what the suite fills in is what each file documents. */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

import {
	LOAD_BALANCERS,
	loadBalancerConfigFile,
	placeholders,
	renderConfig,
	selectedLoadBalancer,
} from '../../../scripts/n8n/loadBalancers';

const root = join(__dirname, '..', '..', '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const queueModeSection = readme.slice(
	readme.indexOf('## Running in queue mode'),
	readme.indexOf('\n## ', readme.indexOf('## Running in queue mode') + 1),
);

describe.each(LOAD_BALANCERS)('docs/queue-mode file of %s', (name) => {
	const file = loadBalancerConfigFile(name);
	const text = readFileSync(file, 'utf8');
	const header = text.slice(0, text.search(/^[^#\n]/m));

	it('has only port placeholders, each explained in the comment at its top', () => {
		const found = placeholders(text);
		expect(found).toEqual(expect.arrayContaining(['LB_PORT', 'WEBHOOK_1_PORT', 'WEBHOOK_2_PORT']));
		for (const placeholder of found) {
			expect(placeholder).toMatch(/_PORT$/);
			expect(header).toContain(`{{${placeholder}}}`);
		}
	});

	it('routes by the URL path and listens on 127.0.0.1 only', () => {
		const config = text
			.split('\n')
			.filter((line) => !line.trim().startsWith('#'))
			.join('\n');
		expect(config).toMatch(
			{
				haproxy: /balance uri/,
				nginx: /hash \$request_uri consistent;/,
				caddy: /lb_policy uri_hash/,
			}[name],
		);
		// `bind <address>` (HAProxy, Caddy), `listen <address>;` (nginx); HAProxy's `listen <section name>` is not one.
		for (const listen of config.match(/^\s*(bind\s|listen\s+[\d{[]).*$/gm) ?? [])
			expect(listen).toMatch(/127\.0\.0\.1/);
	});

	it('renders with every placeholder filled, and refuses to leave one unfilled', () => {
		const values = Object.fromEntries(placeholders(text).map((p, index) => [p, 40000 + index]));
		const rendered = renderConfig(text, values, file);
		expect(placeholders(rendered)).toEqual([]);
		expect(rendered).toContain(`127.0.0.1:${values.WEBHOOK_1_PORT}`);
		expect(rendered).toContain(`127.0.0.1:${values.WEBHOOK_2_PORT}`);
		const { WEBHOOK_2_PORT, ...withoutOne } = values;
		expect(WEBHOOK_2_PORT).toBeDefined();
		expect(() => renderConfig(text, withoutOne, file)).toThrow(
			`${file}: no value for {{WEBHOOK_2_PORT}}`,
		);
	});

	it("is linked from the README's queue-mode section", () => {
		expect(queueModeSection).toContain(`](${relative(root, file)})`);
	});
});

describe('BGC_QUEUE_BALANCER', () => {
	const saved = process.env.BGC_QUEUE_BALANCER;
	afterEach(() => {
		if (saved === undefined) delete process.env.BGC_QUEUE_BALANCER;
		else process.env.BGC_QUEUE_BALANCER = saved;
	});

	it('picks nginx when unset, and names the choices when it is something else', () => {
		delete process.env.BGC_QUEUE_BALANCER;
		expect(selectedLoadBalancer()).toBe('nginx');
		process.env.BGC_QUEUE_BALANCER = 'traefik';
		expect(() => selectedLoadBalancer()).toThrow(
			'BGC_QUEUE_BALANCER is "traefik"; the load balancers are: haproxy, nginx, caddy',
		);
	});
});
