// Mutation testing of the trigger's modules that have tests of their own (the state model, the event, the
// verification of a delivery, the secret cache) against those tests, the exactly-once simulation among them:
// `npm run test:mutation:trigger`, about 15 minutes on 2 cores. The modules reached only by deliveries over
// HTTP have a run of their own, about an hour: stryker.delivery.config.mjs.
import { triggerRun } from './stryker.config.mjs';

const modules = ['memory', 'event', 'verification', 'secretCache'];

export default triggerRun(
	modules,
	[...modules.map((name) => `**/${name}.test.ts`), '**/exactlyOnce.simulation.test.ts'],
	'trigger',
);
