/** n8n's own request timeout is unlimited; a stuck API or storage host must not hang a workflow. */
export const REQUEST_TIMEOUT_MS = 60_000;
