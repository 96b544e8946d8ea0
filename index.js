// n8n loads the classes listed in package.json's "n8n" section; this entry point only re-exports them
// for people who require the package directly.
module.exports = {
	...require('./dist/credentials/BackgroundCheckApi.credentials'),
	...require('./dist/credentials/BackgroundCheckWebhookApi.credentials'),
	...require('./dist/nodes/BackgroundCheck/BackgroundCheck.node'),
	...require('./dist/nodes/BackgroundCheckTrigger/BackgroundCheckTrigger.node'),
};
