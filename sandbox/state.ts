/**
 * What the sandbox remembers: API clients, cases and their case data, testimonies and secure documents.
 * Records are kept in the shape the API returns them; the views below only join and copy.
 */

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

export interface CaseDataRecord {
	id: string;
	caseId: string;
	serviceId: string;
	serviceName: string;
	serviceTypeId: string;
	categoryId: string | null;
	subcategoryId: string | null;
	status: string;
	statusId: string;
	pendingStatus: string | null;
	pendingStatusId: string | null;
	details: CaseDataDetails;
	crStamp: string;
	modStamp: string;
}

export interface Candidate {
	firstName: string;
	lastName: string;
	email: string;
	[field: string]: unknown;
}

export interface CaseRecord {
	id: string;
	companyId: string;
	groupProfileId: string;
	caseStatus: string;
	caseStatusId: string;
	secondaryStatus: string | null;
	secondaryCaseStatusId: string | null;
	packageId: string | null;
	candidate: Candidate;
	aliases: Record<string, unknown>[];
	caseDataIds: string[];
	excludeServices: string[];
	orderConfig: Record<string, unknown> | null;
	orderData: Record<string, unknown>[];
	apiTrackingCode: string | null;
	apiTrackingUser: string | null;
	crStamp: string;
	modStamp: string;
}

export interface TestimonyField {
	fieldId: string;
	value: string;
}

export interface TestimonyRecord {
	id: string;
	caseId: string;
	cplcId: string;
	fields: TestimonyField[];
	staffingAgency: string | null;
	secureDocumentIds: string[];
	crStamp: string;
	modStamp: string;
}

export interface SecureDocumentRecord {
	id: string;
	groupProfileId: string;
	fileName: string;
	fileFormat: string | null;
	description: string | null;
	sizeBytes: number;
	crStamp: string;
}

export type CaseDataView = CaseDataRecord;

export type CaseServiceSummary = Pick<
	CaseDataRecord,
	| 'serviceId'
	| 'serviceName'
	| 'serviceTypeId'
	| 'status'
	| 'statusId'
	| 'pendingStatus'
	| 'pendingStatusId'
> & { caseDataId: string };

export type CaseView = Omit<CaseRecord, 'caseDataIds'> & { services: CaseServiceSummary[] };

export class SandboxStore {
	/** API clients by `apiKey` + `clientAccessToken` pair; revoked ones stay in `clientsById` only. */
	readonly clientsByPair = new Map<string, ApiClient>();
	readonly clientsById = new Map<string, ApiClient>();
	readonly cases = new Map<string, CaseRecord>();
	readonly caseData = new Map<string, CaseDataRecord>();
	readonly testimonies = new Map<string, TestimonyRecord>();
	readonly secureDocuments = new Map<string, SecureDocumentRecord>();

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
		const caseFields: Omit<CaseRecord, 'caseDataIds'> & Partial<CaseRecord> =
			structuredClone(record);
		delete caseFields.caseDataIds;
		return {
			...caseFields,
			services: this.caseDataOf(record).map((data) => ({
				serviceId: data.serviceId,
				serviceName: data.serviceName,
				serviceTypeId: data.serviceTypeId,
				caseDataId: data.id,
				status: data.status,
				statusId: data.statusId,
				pendingStatus: data.pendingStatus,
				pendingStatusId: data.pendingStatusId,
			})),
		};
	}

	caseDataView(record: CaseDataRecord): CaseDataView {
		return structuredClone(record);
	}
}
