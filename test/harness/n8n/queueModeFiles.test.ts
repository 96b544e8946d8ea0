/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- repository tooling: runs in Node.js, never inside n8n */
/**
 * The files of docs/queue-mode/ users copy: the load balancers' (what the suite fills in is what each file
 * documents) and the gate workflows for round robin.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

import {
	LOAD_BALANCERS,
	ROUND_ROBIN,
	loadBalancerConfigFile,
	type LoadBalancerName,
	placeholders,
	renderConfig,
	selectedLoadBalancer,
} from './loadBalancers';

const root = join(__dirname, '..', '..', '..');
const docs = join(root, 'docs');
// The set-up users follow: the Set-up section of docs/queue-mode.md, up to the next top-level section.
const queueModeDoc = readFileSync(join(docs, 'queue-mode.md'), 'utf8');
const setUpSection = queueModeDoc.slice(
	queueModeDoc.indexOf('## Set-up'),
	queueModeDoc.indexOf('\n## ', queueModeDoc.indexOf('## Set-up') + 1),
);

describe.each<LoadBalancerName>([...LOAD_BALANCERS, ROUND_ROBIN])(
	'docs/queue-mode file of %s',
	(name) => {
		const file = loadBalancerConfigFile(name);
		const text = readFileSync(file, 'utf8');
		const header = text.slice(0, text.search(/^[^#\n]/m));

		it('has only port placeholders, each explained in the comment at its top', () => {
			const found = placeholders(text);
			expect(found).toEqual(
				expect.arrayContaining(['LB_PORT', 'WEBHOOK_1_PORT', 'WEBHOOK_2_PORT']),
			);
			for (const placeholder of found) {
				expect(placeholder).toMatch(/_PORT$/);
				expect(header).toContain(`{{${placeholder}}}`);
			}
		});

		it('routes by the URL path (or, the round-robin one, takes turns) and listens on 127.0.0.1 only', () => {
			const config = text
				.split('\n')
				.filter((line) => !line.trim().startsWith('#'))
				.join('\n');
			expect(config).toMatch(
				{
					haproxy: /balance uri/,
					nginx: /hash \$request_uri consistent;/,
					caddy: /lb_policy uri_hash/,
					'round-robin': /balance roundrobin/,
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

		it('is linked from the set-up in docs/queue-mode.md', () => {
			expect(setUpSection).toContain(`](${relative(docs, file)})`);
		});
	},
);

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

describe.each(['postgres', 'redis'])(
	'docs/queue-mode/gate-%s.json, the gate for round robin',
	(gate) => {
		const file = join(root, 'docs', 'queue-mode', `gate-${gate}.json`);
		const workflow = JSON.parse(readFileSync(file, 'utf8')) as {
			nodes: Array<{ name: string; type: string; parameters: Record<string, any> }>; // eslint-disable-line @typescript-eslint/no-explicit-any
			connections: Record<string, { main: Array<Array<{ node: string }>> }>;
		};
		const next = (name: string) =>
			workflow.connections[name]?.main.map((out) => out.map((c) => c.node));
		const trigger = workflow.nodes.find(
			(node) => node.type === 'n8n-nodes-background-check.backgroundCheckTrigger',
		);

		it("claims the trigger's eventKey, then lets only a first claim through to the side effect", () => {
			expect(trigger).toBeDefined();
			const [[claimName]] = next(trigger!.name);
			const claim = workflow.nodes.find((node) => node.name === claimName)!;
			expect(JSON.stringify(claim.parameters)).toContain('$json.eventKey');
			if (gate === 'postgres') {
				expect(claim.type).toBe('n8n-nodes-base.postgres');
				expect(claim.parameters.query).toBe(
					'INSERT INTO bgc_event_gate (event_key) VALUES ($1) ON CONFLICT (event_key) DO NOTHING RETURNING event_key',
				);
			} else {
				expect(claim.type).toBe('n8n-nodes-base.redis');
				expect(claim.parameters).toMatchObject({ operation: 'incr', expire: true });
			}
			const [[ifName]] = next(claimName);
			expect(workflow.nodes.find((node) => node.name === ifName)?.type).toBe('n8n-nodes-base.if');
			const [passed, stopped] = next(ifName);
			expect(passed).toHaveLength(1);
			expect(stopped ?? []).toEqual([]);
		});

		it('is linked from the set-up in docs/queue-mode.md, with the table the Postgres gate needs', () => {
			expect(setUpSection).toContain(`](${relative(docs, file)})`);
			expect(setUpSection).toContain(
				'CREATE TABLE bgc_event_gate (event_key text PRIMARY KEY, claimed_at timestamptz NOT NULL DEFAULT now());',
			);
		});
	},
);
