import { reconciliationCosts } from './lib/reconciliation';
void (async () => {
	const before = process.memoryUsage();
	const result = await reconciliationCosts(10_000);
	const after = process.memoryUsage();
	console.log(JSON.stringify({ ...result, rssMbAfter: after.rss / 1048576, heapMbAfter: after.heapUsed / 1048576, heapMbBefore: before.heapUsed / 1048576 }, null, 1));
})();
