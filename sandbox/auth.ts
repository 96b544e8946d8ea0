/**
 * Spec 2.1 and 5: the apiKey + clientAccessToken exchange, the group-scoped bearer JWT and its revocation.
 * The token is a real HS256 JWT signed with a per-sandbox key; its `jti` is the client `id`.
 */
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'crypto';

import { DEMO_API_KEY, DEMO_COMPANY, DEMO_GROUPS } from './fixtures';
import { unauthorized } from './http';
import type { ApiClient, SandboxStore } from './state';

const base64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');

export interface TokenClaims {
	jti: string;
	sub: string;
	groupProfileId: string;
	companyId: string;
	iat: number;
}

export function signJwt(claims: TokenClaims, signingKey: string): string {
	const unsigned = `${base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${base64url(JSON.stringify(claims))}`;
	return `${unsigned}.${createHmac('sha256', signingKey).update(unsigned).digest('base64url')}`;
}

/** The claims of a token this sandbox signed, or undefined for anything else. */
export function verifyJwt(token: string, signingKey: string): TokenClaims | undefined {
	const [header, payload, signature, ...rest] = token.split('.');
	if (!header || !payload || !signature || rest.length > 0) return undefined;
	const expected = Buffer.from(
		createHmac('sha256', signingKey).update(`${header}.${payload}`).digest('base64url'),
	);
	const offered = Buffer.from(signature);
	if (expected.length !== offered.length || !timingSafeEqual(expected, offered)) return undefined;
	try {
		return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as TokenClaims;
	} catch {
		return undefined;
	}
}

export interface RevocationSelector {
	token?: string;
	clientId?: string;
	groupProfileId?: string;
}

/** The API client resource exactly as `POST /auth/api` returns it (spec 2.1). */
export function apiClientResource(client: ApiClient) {
	return {
		id: client.id,
		username: client.username,
		token: client.token,
		groupProfileId: client.groupProfileId,
	};
}

export class ApiClients {
	constructor(
		private readonly store: SandboxStore,
		private readonly signingKey: string,
		private readonly nowSeconds: () => number,
	) {}

	/**
	 * The client for an accepted pair, created on its first use; undefined for a pair the sandbox does not
	 * accept. After a revocation the same pair gets a new client and token.
	 */
	authenticate(apiKey: unknown, clientAccessToken: unknown): ApiClient | undefined {
		const group = DEMO_GROUPS.find(
			(candidate) => candidate.clientAccessToken === clientAccessToken,
		);
		if (apiKey !== DEMO_API_KEY || !group) return undefined;
		const pair = `${apiKey}\u0000${clientAccessToken}`;
		const existing = this.store.clientsByPair.get(pair);
		if (existing && !existing.revoked) return existing;

		const id = randomUUID();
		const username = `sandbox-api-${randomBytes(4).toString('hex')}`;
		const claims: TokenClaims = {
			jti: id,
			sub: username,
			groupProfileId: group.groupProfileId,
			companyId: DEMO_COMPANY.companyId,
			iat: Math.floor(this.nowSeconds()),
		};
		const client: ApiClient = {
			id,
			username,
			token: signJwt(claims, this.signingKey),
			groupProfileId: group.groupProfileId,
			companyId: DEMO_COMPANY.companyId,
			revoked: false,
		};
		this.store.clientsByPair.set(pair, client);
		this.store.clientsById.set(id, client);
		return client;
	}

	/** The client behind an `Authorization` header; throws the 401 to answer otherwise. */
	authorize(authorizationHeader: string | undefined): ApiClient {
		const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorizationHeader ?? '');
		if (!bearer) throw unauthorized('Missing bearer token: send Authorization: Bearer <token>');
		const claims = verifyJwt(bearer[1], this.signingKey);
		const client = claims && this.store.clientsById.get(claims.jti);
		if (!client) throw unauthorized('Invalid bearer token');
		if (client.revoked) throw unauthorized('This token has been revoked');
		return client;
	}

	/** Revokes every client matching the selector; returns how many were revoked. */
	revoke(selector: RevocationSelector): number {
		const tokenClientId = selector.token
			? verifyJwt(selector.token, this.signingKey)?.jti
			: undefined;
		let revoked = 0;
		for (const client of this.store.clientsById.values()) {
			const matches =
				(tokenClientId !== undefined && client.id === tokenClientId) ||
				(selector.clientId !== undefined && client.id === selector.clientId) ||
				(selector.groupProfileId !== undefined &&
					client.groupProfileId === selector.groupProfileId);
			if (matches && !client.revoked) {
				client.revoked = true;
				revoked++;
			}
		}
		return revoked;
	}
}
