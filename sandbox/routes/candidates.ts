/**
 * The candidate of a case and their onboarding invitation: candidate info and update, the invitation, resending
 * and refreshing it, and the countries list (sandbox/invitations.ts holds the model).
 */
import { randomUUID } from 'crypto';

import { httpError, ok, requireObjectBody } from '../http';
import {
	INVITATION_MS,
	candidateOf,
	dobOf,
	invitationOf,
	invitationStatusOf,
	isCandidateLinked,
	isPiiLocked,
	newInvitation,
} from '../invitations';
import type { CaseRecord } from '../state';
import { invitationStatusFields } from '../statuses';
import type { SandboxContext } from '../world';
import { BodyProblems, requireOwnCase, type ApiRoute } from './common';

const unprocessable = (message: string) => httpError(422, message);

const withoutNulls = (fields: Record<string, unknown>) =>
	Object.fromEntries(
		Object.entries(fields).filter(([, value]) => value !== null && value !== undefined),
	);

/** A government ID as the reference shows it: all but the last four digits masked. */
const maskedGovtId = (govtId: string) => `XXX-XX-${govtId.replace(/\D/g, '').slice(-4)}`;

function candidateInfo(record: CaseRecord) {
	const candidate = candidateOf(record);
	const names = [record.candidateGivenName, record.candidateMiddleName, record.candidateFamilyName];
	return withoutNulls({
		id: record.candidateId,
		email: record.candidateEmail,
		password: '########',
		givenName: record.candidateGivenName,
		middleName: record.candidateMiddleName,
		familyName: record.candidateFamilyName,
		fullName: names.filter((name) => name).join(' '),
		govtId: candidate.govtId === null ? null : maskedGovtId(candidate.govtId),
		phone: record.candidatePhone,
		dob: dobOf(record),
		piiValidated: false,
		piiLocked: isPiiLocked(record) ? 1 : 0,
		enabled: true,
		crStamp: candidate.crStamp,
		modStamp: candidate.modStamp,
		// A candidate made from the customer's data has not secured an account of their own.
		secured: record.isCustomerProvidedPii === 1 ? 0 : 1,
		candidateId: record.candidateId,
		username: record.candidateEmail,
		accountNonExpired: true,
		accountNonLocked: true,
		credentialsNonExpired: true,
	});
}

type Update = { field: string; apply: () => void };

/**
 * `POST /candidate/id/{candidateId}/update/case/id/{caseId}`: the fields that can be set are set, the others
 * ignored (the reference); 400 when none can. Once PII is locked only `phone` changes, and `govtId` can be set
 * if it was not; `email`, `dob`, `givenName` and `familyName` cannot be emptied; an email of another candidate
 * of the group is not taken.
 */
function updateCandidate(
	record: CaseRecord,
	body: Record<string, unknown>,
	context: SandboxContext,
) {
	const problems = new BodyProblems();
	problems.checkBody(body, true);
	problems.throwIfAny(400);
	const candidate = candidateOf(record);
	const locked = isPiiLocked(record);
	const updates: Update[] = [];
	const ignored: string[] = [];
	const pii = (field: string, required: boolean, apply: (value: never) => void) => {
		if (!(field in body)) return;
		const value = body[field];
		if (locked) ignored.push(`${field} cannot be changed once PII is locked`);
		else if (required && (value === null || value === '')) ignored.push(`${field} cannot be empty`);
		else updates.push({ field, apply: () => apply(value as never) });
	};
	const email = typeof body.email === 'string' ? body.email.toLowerCase() : undefined;
	const takenEmail = context.world.store
		.casesOfGroup(record.groupProfileId)
		.some(
			(other) =>
				other.candidateId !== record.candidateId && other.candidateEmail.toLowerCase() === email,
		);
	if (takenEmail) ignored.push('email is associated with another candidate');
	else pii('email', true, (value: string) => (record.candidateEmail = value));
	pii('dob', true, (value: string) => (candidate.dob = value));
	pii('givenName', true, (value: string) => (record.candidateGivenName = value));
	pii('middleName', false, (value: string | null) => (record.candidateMiddleName = value));
	pii('familyName', true, (value: string) => (record.candidateFamilyName = value));
	if ('phone' in body)
		updates.push({
			field: 'phone',
			apply: () => (record.candidatePhone = body.phone as string | null),
		});
	if ('govtId' in body) {
		if (locked && candidate.govtId !== null)
			ignored.push('govtId cannot be changed once PII is locked');
		else
			updates.push({
				field: 'govtId',
				apply: () => (candidate.govtId = body.govtId as string | null),
			});
	}
	if (updates.length === 0) throw httpError(400, ['The request holds no valid update', ...ignored]);
	for (const update of updates) update.apply();
	const now = context.clock.nowIso();
	candidate.updatedStamp = candidate.modStamp = now;
}

function invitationView(record: CaseRecord, context: SandboxContext) {
	const invitation = invitationOf(record)!;
	return withoutNulls({
		id: invitation.id,
		email: invitation.email,
		givenName: record.candidateGivenName,
		familyName: record.candidateFamilyName,
		dob: candidateOf(record).dob,
		invitationToken: invitation.token,
		invitationStatusId: invitationStatusFields(invitationStatusOf(record, context.clock.now()))
			.invitationStatusId,
		packageId: record.packageId,
		expiresStamp: new Date(invitation.expiresAtMs).toISOString(),
		deletedStamp: invitation.deletedStamp,
		completedStamp: record.completedOnboardingStamp,
		crStamp: invitation.crStamp,
		modStamp: invitation.modStamp,
	});
}

function refreshInvitation(record: CaseRecord, context: SandboxContext): void {
	const invitation = invitationOf(record);
	if (!invitation)
		throw unprocessable('The case has no invitation: it was ordered with customer-provided PII');
	const status = invitationStatusOf(record, context.clock.now());
	if (status === 'cancelled') throw unprocessable('The invitation was canceled with its case');
	if (record.beginOnboardingStamp !== undefined)
		throw unprocessable('The candidate already began or finished onboarding.');
	if (status === 'expired')
		throw unprocessable('The invitation expired: resend it (POST .../action/resendinvite)');
	invitation.expiresAtMs = Math.floor(context.clock.now()) + INVITATION_MS;
	invitation.modStamp = context.clock.nowIso();
}

function resendInvitation(record: CaseRecord, email: string, context: SandboxContext): void {
	const refuse = (why: string) => unprocessable(`Could not resend the invitation: ${why}`);
	const invitation = invitationOf(record);
	if (!invitation) throw refuse('the case was ordered with customer-provided PII and has none');
	if (invitation.deletedStamp) throw refuse('the case is canceled');
	if (record.beginOnboardingStamp !== undefined)
		throw refuse('the existing invitation was already used to create a candidate');
	// A new invitation, new ID and token: the old one's link stops working.
	const now = context.clock.nowIso();
	record.invitation = newInvitation(randomUUID(), email, now, Math.floor(context.clock.now()));
	record.caseInvitationId = record.invitation.id;
	record.modStamp = now;
}

/** ISO 3166 codes and names of the countries the sandbox lists (a sample; testimony country codes use them). */
const COUNTRIES: ReadonlyArray<[string, string, string]> = [
	['US', 'USA', 'United States'],
	['CA', 'CAN', 'Canada'],
	['MX', 'MEX', 'Mexico'],
	['GB', 'GBR', 'United Kingdom'],
	['IE', 'IRL', 'Ireland'],
	['FR', 'FRA', 'France'],
	['DE', 'DEU', 'Germany'],
	['ES', 'ESP', 'Spain'],
	['IT', 'ITA', 'Italy'],
	['NL', 'NLD', 'Netherlands'],
	['PL', 'POL', 'Poland'],
	['PT', 'PRT', 'Portugal'],
	['SE', 'SWE', 'Sweden'],
	['CH', 'CHE', 'Switzerland'],
	['IN', 'IND', 'India'],
	['PH', 'PHL', 'Philippines'],
	['CN', 'CHN', 'China'],
	['JP', 'JPN', 'Japan'],
	['KR', 'KOR', 'Korea, Republic of'],
	['AU', 'AUS', 'Australia'],
	['NZ', 'NZL', 'New Zealand'],
	['BR', 'BRA', 'Brazil'],
	['AR', 'ARG', 'Argentina'],
	['CO', 'COL', 'Colombia'],
	['ZA', 'ZAF', 'South Africa'],
	['NG', 'NGA', 'Nigeria'],
];

export const candidateRoutes: ApiRoute[] = [
	{
		method: 'GET',
		path: '/candidate/info/case/id/{caseId}',
		handle: (request, context) => {
			const record = requireOwnCase(context, request);
			if (!isCandidateLinked(record))
				throw httpError(
					404,
					`No candidate has been linked to case ${record.id} yet: the candidate has not begun onboarding (or their date of birth is not known)`,
				);
			return ok({ candidate: candidateInfo(record) });
		},
	},
	{
		method: 'POST',
		path: '/candidate/id/{candidateId}/update/case/id/{caseId}',
		handle: (request, context) => {
			const record = requireOwnCase(context, request);
			if (record.candidateId !== request.params.candidateId)
				throw httpError(
					403,
					`Candidate ${request.params.candidateId} is not the candidate of case ${record.id}`,
				);
			updateCandidate(record, requireObjectBody(request.body), context);
			return ok(undefined);
		},
	},
	{
		method: 'GET',
		path: '/invitation/case/{caseId}',
		handle: (request, context) => {
			const record = requireOwnCase(context, request);
			if (!invitationOf(record))
				throw httpError(
					404,
					`No invitation exists for case ${record.id}: it was ordered with customer-provided PII`,
				);
			return ok({ invitation: invitationView(record, context) });
		},
	},
	{
		method: 'PUT',
		path: '/case/id/{caseId}/action/refreshinvite',
		handle: (request, context) => {
			refreshInvitation(requireOwnCase(context, request), context);
			return ok(undefined);
		},
	},
	{
		method: 'POST',
		path: '/case/id/{caseId}/action/resendinvite',
		handle: (request, context) => {
			const record = requireOwnCase(context, request);
			resendInvitation(record, String(requireObjectBody(request.body).email), context);
			return ok(undefined);
		},
	},
	{
		method: 'GET',
		path: '/candidate/countries',
		handle: () =>
			ok({
				list: COUNTRIES.map(([iso31662, iso31663, country]) => ({ iso31662, iso31663, country })),
			}),
	},
];
