/**
 * What the sandbox remembers: API clients, cases and their case data, testimonies and secure documents.
 * Records hold the fields of the API reference's shapes; the views below answer them as the reference does.
 */
import { invitationOf, invitationStatusOf } from './invitations';
import { invitationStatusFields } from './statuses';
import type { DownloadRecord } from './storage';

/** The API client resource of spec 2.1, plus what the sandbox needs to authorize and revoke it. */
export interface ApiClient {
	id: string;
	username: string;
	token: string;
	groupProfileId: string;
	companyId: string;
	revoked: boolean;
}

/** A search inside one case data: an employment / education record or a county criminal jurisdiction. */
export interface SearchRecord {
	searchId: string;
	status: string;
	statusId: string;
	[detail: string]: unknown;
}

export interface CaseDataDetails {
	/** Employment, employment income and education verification: one record per employer / school. */
	records?: SearchRecord[];
	/** County criminal search: one entry per county searched. */
	jurisdictions?: SearchRecord[];
}

/** A case data (one per service in a case): the reference's `CaseData` fields plus its search records. */
export interface CaseDataRecord {
	id: string;
	caseId: string;
	candidateId: string;
	groupProfileId: string;
	storageId: string;
	description: string;
	serviceId: string;
	serviceName: string;
	serviceTypeId: string;
	serviceTypeName: string;
	serviceCategoryId: string | null;
	serviceSubCategoryId: string | null;
	status: string;
	statusId: string;
	statusDisplayName: string;
	pendingStatus: string | null;
	pendingStatusId: string | null;
	/** Answered as the reference's `details` (a string): the JSON text of these. */
	searches: CaseDataDetails;
	crStamp: string;
	modStamp: string;
}

/**
 * A case: the reference's `CaseSummary` fields the sandbox keeps (null where there is no value: left out of
 * answers), and what the order said (`orderData`, `orderConfig`, `excludeServices`).
 */
export interface CaseRecord {
	id: string;
	companyId: string;
	companyName: string;
	groupProfileId: string;
	groupName: string;
	crUserId: string;
	caseStatus: string;
	caseStatusId: string;
	secondaryStatus: string | null;
	secondaryCaseStatusId: string | null;
	resultType: string;
	resultTypeId: string;
	packageId: string;
	packageName: string;
	candidateId: string;
	candidateEmail: string;
	candidateGivenName: string;
	candidateMiddleName: string | null;
	candidateFamilyName: string;
	candidatePhone: string | null;
	caseInvitationId: string;
	isCustomerProvidedPii: 0 | 1;
	archived: 0 | 1;
	/** The user the case was ordered for (`karmacheck-on-behalf-of`), when given. */
	orderedBy: string | null;
	caseDataIds: string[];
	excludeServices: string[];
	orderConfig: Record<string, unknown> | null;
	orderData: Record<string, unknown>[];
	apiTrackingCode: string | null;
	apiTrackingUser: string | null;
	crStamp: string;
	modStamp: string;
	/** The reference's processing stamps, set by the lifecycle as the case reaches steps 2, 3 and 4. */
	beginOnboardingStamp?: string;
	completedOnboardingStamp?: string;
	beginProcessingStamp?: string;
	completedInitialProcessingStamp?: string;
	completedLatestProcessingStamp?: string;
	/** The onboarding invitation, made when first needed (sandbox/invitations.ts); none for customer-provided PII. */
	invitation?: InvitationRecord;
	/** What is known of the candidate beyond the case's own fields (sandbox/invitations.ts `candidateOf`). */
	candidate?: CandidateRecord;
	/** The adverse action process, from `POST /case/id/{caseId}/action/preadverse` on. */
	adverseAction?: AdverseActionRecord;
}

/** A case's onboarding invitation (`GET /invitation/case/{caseId}`). */
export interface InvitationRecord {
	id: string;
	token: string;
	email: string;
	crStamp: string;
	modStamp: string;
	/** Sandbox time the invitation expires unless the candidate has completed onboarding. */
	expiresAtMs: number;
	/** Set when the case is canceled: the invitation is `cancelled` from then on. */
	deletedStamp: string | null;
}

/** The candidate's data the case fields do not hold (`GET /candidate/info/case/id/{caseId}`). */
export interface CandidateRecord {
	dob: string | null;
	govtId: string | null;
	/** Set by the first candidate update: the candidate is linked to the case from then on. */
	updatedStamp: string | null;
	crStamp: string;
	modStamp: string;
}

/** A pre-adverse action: what it said, and the case data as they stood (the report it was based on). */
export interface AdverseActionRecord {
	id: string;
	statusName: string;
	statusId: string;
	reason: string | null;
	serviceIds: string[];
	crStamp: string;
	caseData: Array<{ id: string; serviceName: string; status: string; statusDisplayName: string }>;
}

/** The reference's `Testimony`, as created for a case. */
export interface TestimonyRecord {
	id: string;
	caseId: string;
	testimonyTypeId: string;
	testimonySubType: string | null;
	description: string | null;
	details: Record<string, unknown> | null;
	crStamp: string;
	modStamp: string;
}

/** A file put at a pre-signed upload URL (`POST /document/secure/upload`). */
export interface UploadRecord {
	fileKey: string;
	groupProfileId: string;
	documentTypeId: string;
	mimeType: string;
	/** Undefined until the file is put at the URL. */
	bytes?: Buffer;
}

export interface SecureDocumentRecord {
	id: string;
	groupProfileId: string;
	originalFileName: string;
	documentTypeId: string;
	fileKey: string;
	fileFormat: string | null;
	title: string | null;
	description: string | null;
	sizeBytes: number;
	caseIds: string[];
	crStamp: string;
}

const CASE_TYPE = {
	caseTypeId: 'cde61186-4f22-45f4-9e19-429061365bce',
	caseType: 'Background Check',
};

/** A case as `GET /case/id/{caseId}` and the case lists answer it (the reference's `CaseSummary`). */
export type CaseView = Record<string, unknown> & { id: string; modStamp: string };

/** A case data as `GET /case/id/{caseId}/data/{serviceTypeId}` answers it (the reference's `CaseData`). */
export type CaseDataView = Record<string, unknown> & { id: string; status: string };

const withoutNulls = (fields: Record<string, unknown>) =>
	Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null));

export class SandboxStore {
	/** API clients by `apiKey` + `clientAccessToken` pair; revoked ones stay in `clientsById` only. */
	readonly clientsByPair = new Map<string, ApiClient>();
	readonly clientsById = new Map<string, ApiClient>();
	readonly cases = new Map<string, CaseRecord>();
	readonly caseData = new Map<string, CaseDataRecord>();
	readonly testimonies = new Map<string, TestimonyRecord>();
	readonly secureDocuments = new Map<string, SecureDocumentRecord>();
	/** Files put at a pre-signed upload URL, by file key, until a secure document is created from them. */
	readonly uploads = new Map<string, UploadRecord>();
	/** What the pre-signed download URLs handed out serve, by key (sandbox/storage.ts). */
	readonly downloads = new Map<string, DownloadRecord>();
	/**
	 * The time pre-signed download URLs expire by: the real clock, not the sandbox's. Their 60 seconds bound the
	 * client's own delay between asking and downloading, which a sandbox clock moved forward by a test (a day of
	 * case steps in a moment) or scaled would not measure. Tests replace it.
	 */
	storageNow: () => number = Date.now;

	/** `now`: sandbox time in ms (the world's clock), for what is read lazily (an invitation's expiry). */
	constructor(readonly now: () => number = Date.now) {}

	casesOfGroup(groupProfileId: string): CaseRecord[] {
		return [...this.cases.values()].filter((record) => record.groupProfileId === groupProfileId);
	}

	caseDataOf(record: CaseRecord): CaseDataRecord[] {
		return record.caseDataIds
			.map((id) => this.caseData.get(id))
			.filter((data): data is CaseDataRecord => !!data);
	}

	testimoniesOf(caseId: string): TestimonyRecord[] {
		return [...this.testimonies.values()].filter((testimony) => testimony.caseId === caseId);
	}

	caseView(record: CaseRecord): CaseView {
		return withoutNulls({
			id: record.id,
			crStamp: record.crStamp,
			crUserId: record.crUserId,
			...CASE_TYPE,
			caseStatusId: record.caseStatusId,
			caseStatus: record.caseStatus,
			secondaryCaseStatusId: record.secondaryCaseStatusId,
			secondaryStatus: record.secondaryStatus,
			resultType: record.resultType,
			resultTypeId: record.resultTypeId,
			modStamp: record.modStamp,
			candidateId: record.candidateId,
			candidateEmail: record.candidateEmail,
			candidateGivenName: record.candidateGivenName,
			candidateFamilyName: record.candidateFamilyName,
			packageName: record.packageName,
			packageId: record.packageId,
			groupProfileId: record.groupProfileId,
			groupName: record.groupName,
			caseInvitationId: record.caseInvitationId,
			invitationEmail: invitationOf(record)?.email ?? record.candidateEmail,
			...(invitationOf(record) === undefined
				? {}
				: invitationStatusFields(invitationStatusOf(record, this.now()))),
			invitationGivenName: record.candidateGivenName,
			invitationFamilyName: record.candidateFamilyName,
			companyId: record.companyId,
			companyName: record.companyName,
			companyReadableName: record.companyName,
			isMinorCandidate: 0,
			hasParentalConsent: 0,
			isCustomerProvidedPii: record.isCustomerProvidedPii,
			archived: record.archived,
			orderedStamp: record.crStamp,
			apiTrackingCode: record.apiTrackingCode,
			apiTrackingUser: record.apiTrackingUser,
			adverseActionId: record.adverseAction?.id ?? null,
			adverseActionStatusName: record.adverseAction?.statusName ?? null,
			adverseActionStatusId: record.adverseAction?.statusId ?? null,
			beginOnboardingStamp: record.beginOnboardingStamp ?? null,
			completedOnboardingStamp: record.completedOnboardingStamp ?? null,
			beginProcessingStamp: record.beginProcessingStamp ?? null,
			completedInitialProcessingStamp: record.completedInitialProcessingStamp ?? null,
			completedLatestProcessingStamp: record.completedLatestProcessingStamp ?? null,
		}) as CaseView;
	}

	caseDataView(record: CaseDataRecord): CaseDataView {
		const { searches, ...fields } = record;
		return withoutNulls({ ...fields, details: JSON.stringify(searches) }) as CaseDataView;
	}
}
