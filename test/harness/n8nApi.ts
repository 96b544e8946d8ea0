/**
 * The e2e tests' view of n8n's public API: the client and the workflow/webhook helpers live in
 * test/harness/n8n/publicApi.ts (shared with `npm start`); this module re-exports them.
 */
export * from './n8n/publicApi';
