// Mutation testing of the trigger's delivery path (a request to its URL, activation, the hand-off of found
// changes, the settings, the execution's first step) against the test that drives it with deliveries the
// sandbox signs and sends over HTTP: `npm run test:mutation:delivery`, about an hour on 2 cores.
import { triggerRun } from './stryker.config.mjs';

const modules = ['deliveryPolicy', 'activation', 'handoff', 'configuration', 'latestCase'];

export default triggerRun(
	modules,
	['**/BackgroundCheckTrigger.node.integration.test.ts'],
	'delivery',
);
