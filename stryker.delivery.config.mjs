// Mutation testing of the trigger's delivery path (a request to its URL, activation, the hand-off of found
// changes, the settings, the execution's first step) and of its watchdog (its decisions, reads and schedule) against the
// tests that drive them with deliveries the sandbox signs and sends over HTTP and with looks at the sandbox's
// cases: `npm run test:mutation:delivery`, about 75 minutes on 2 cores.
import { triggerRun } from './stryker.config.mjs';

const modules = ['deliveryPolicy', 'activation', 'handoff', 'configuration', 'latestCase'];

export default triggerRun(
	[...modules, 'watchdog', 'watchdogReads', 'watchdogSchedule'],
	['**/BackgroundCheckTrigger.node.integration.test.ts', '**/watchdog.integration.test.ts'],
	'delivery',
);
