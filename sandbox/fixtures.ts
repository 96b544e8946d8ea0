/**
 * The sandbox's fixed reference data: the demo company, its groups and credentials, and the records the
 * spec names without showing (packages, CPLC definitions, shipment masks, users, verification book).
 * Service IDs and statuses always come from the shared catalog; everything here is sandbox-invented.
 */
import { findService, isKnownServiceId } from '../nodes/shared/catalog';

export const DEMO_COMPANY = {
	companyId: 'company-sandbox-demo',
	name: 'Sandbox Demo Company',
} as const;

/** One partner apiKey; one clientAccessToken per company group (spec section 5). */
export const DEMO_API_KEY = 'sandbox-api-key-demo-partner';

export interface DemoGroup {
	groupProfileId: string;
	name: string;
	clientAccessToken: string;
}

export const DEMO_GROUPS: readonly DemoGroup[] = [
	{
		groupProfileId: '4e0c2a8e-5b1f-4d3c-9a7e-2f6b1c8d3e01',
		name: 'East Region Hiring',
		clientAccessToken: 'sandbox-client-access-token-east',
	},
	{
		groupProfileId: '7a9d4c1b-2e3f-4a5b-8c6d-9e0f1a2b3c02',
		name: 'West Region Hiring',
		clientAccessToken: 'sandbox-client-access-token-west',
	},
];

export interface DemoCredential {
	apiKey: string;
	clientAccessToken: string;
	groupProfileId: string;
	groupName: string;
	companyId: string;
}

export const DEMO_CREDENTIALS: readonly DemoCredential[] = DEMO_GROUPS.map((group) => ({
	apiKey: DEMO_API_KEY,
	clientAccessToken: group.clientAccessToken,
	groupProfileId: group.groupProfileId,
	groupName: group.name,
	companyId: DEMO_COMPANY.companyId,
}));

const REFERENCE_STAMP = '2024-06-25T12:00:00.000Z';

export interface SandboxPackage {
	packageId: string;
	packageName: string;
	serviceIds: readonly string[];
}

const SSN_TRACE = '29cd44ab-a8f0-4b27-868e-dc4be88ff541';
const NATIONAL_CRIMINAL = 'd8e3dbdb-c2d7-4787-9736-86fffab74da4';
const COUNTY_CRIMINAL = 'fa226cb7-1214-4cdf-9296-6120a7376926';
const SEX_OFFENDER = '03635d39-c9df-418f-948d-10d38a7e06db';
const FACIS = '2c6bbd00-dce3-4ecd-ae91-b0f3dab268f7';
const MOTOR_VEHICLE_REPORT = '9a1aa5db-1292-423e-a17c-4a7ab380de58';
const EDUCATION_VERIFICATION = '85307784-1f84-471a-8596-c8ea088c3a62';
const EMPLOYMENT_VERIFICATION = '9ac65633-b4c4-4062-875c-3556db9d2a08';

/** Packages are company-wide: every demo group may order every one of them. */
export const PACKAGES: readonly SandboxPackage[] = [
	{
		packageId: 'pkg-basic-criminal',
		packageName: 'Basic Criminal',
		serviceIds: [SSN_TRACE, NATIONAL_CRIMINAL, COUNTY_CRIMINAL, SEX_OFFENDER],
	},
	{
		packageId: 'pkg-healthcare',
		packageName: 'Healthcare Professional',
		serviceIds: [
			SSN_TRACE,
			NATIONAL_CRIMINAL,
			FACIS,
			'service-oig-exclusions-search',
			EDUCATION_VERIFICATION,
			EMPLOYMENT_VERIFICATION,
			'service-cplc',
			'service-ohs-tb-quantiferon-gold',
			'service-drug-10-panel',
		],
	},
	{
		packageId: 'pkg-driver',
		packageName: 'Driver',
		serviceIds: [
			'service-idv-id',
			MOTOR_VEHICLE_REPORT,
			'service-ohs-dotphysical',
			'service-drug-10-panel',
		],
	},
];

for (const pkg of PACKAGES) {
	const unknown = pkg.serviceIds.filter((id) => !isKnownServiceId(id));
	if (unknown.length > 0)
		throw new Error(
			`Sandbox package ${pkg.packageId} lists unknown services ${unknown.join(', ')}`,
		);
}

/**
 * The legal services (authorizations the candidate gives while onboarding) every sandbox case has, by the
 * reference's legal types: the sandbox's packages list screenings only, so these are its legal documents.
 */
export const LEGAL_SERVICES: Readonly<Record<string, string>> = {
	esig: 'Electronic Signature Consent',
	fcra: 'FCRA Summary of Rights acknowledgment',
	disclosure: 'Disclosure and Authorization for Background Check',
};

export function serviceName(serviceId: string): string {
	return findService(serviceId)?.name ?? `Drug Screening: ${serviceId}`;
}

/** CPLC field keys of spec 2.3 in display order, with the required flags observed there. */
const CPLC_FIELD_LAYOUT = [
	{
		fieldId: 'firstName',
		label: 'First Name',
		required: true,
		placeholder: 'First name as on the license',
	},
	{ fieldId: 'middleInitial', label: 'Middle Initial', required: false, placeholder: 'M' },
	{
		fieldId: 'lastName',
		label: 'Last Name',
		required: true,
		placeholder: 'Last name as on the license',
	},
	{
		fieldId: 'licenseNumber',
		label: 'License Number',
		required: true,
		placeholder: 'e.g. RN123456',
	},
	{ fieldId: 'state', label: 'State', required: false, placeholder: 'Two-letter state code' },
	{
		fieldId: 'certifyingBody',
		label: 'Certifying Body',
		required: true,
		placeholder: 'Issuing board or body',
	},
	{ fieldId: 'issueDate', label: 'Issue Date', required: false, placeholder: 'YYYY-MM-DD' },
	{
		fieldId: 'expirationDate',
		label: 'Expiration Date',
		required: false,
		placeholder: 'YYYY-MM-DD',
	},
	{
		fieldId: 'additionalInfo',
		label: 'Additional Information',
		required: false,
		placeholder: 'Anything else',
	},
] as const;

export interface CplcField {
	id: string;
	fieldId: string;
	cplcId: string;
	label: string;
	displayLabel: string;
	required: boolean;
	ordinal: number;
	placeholder: string;
	crStamp: string;
	modStamp: string;
}

export interface CplcDefinition {
	id: string;
	name: string;
	category: string;
	enabled: boolean;
	crStamp: string;
	modStamp: string;
	fields: CplcField[];
}

function cplcDefinition(
	id: string,
	name: string,
	category: string,
	enabled: boolean,
): CplcDefinition {
	return {
		id,
		name,
		category,
		enabled,
		crStamp: REFERENCE_STAMP,
		modStamp: REFERENCE_STAMP,
		fields: CPLC_FIELD_LAYOUT.map((field, ordinal) => ({
			id: `${id}-field-${field.fieldId}`,
			fieldId: field.fieldId,
			cplcId: id,
			label: field.label,
			displayLabel: field.required ? `${field.label} *` : field.label,
			required: field.required,
			ordinal,
			placeholder: field.placeholder,
			crStamp: REFERENCE_STAMP,
			modStamp: REFERENCE_STAMP,
		})),
	};
}

export const CPLC_DEFINITIONS: readonly CplcDefinition[] = [
	cplcDefinition('cplc-registered-nurse', 'RN', 'Healthcare', true),
	cplcDefinition('cplc-licensed-practical-nurse', 'LPN', 'Healthcare', true),
	cplcDefinition('cplc-basic-life-support', 'BLS', 'Healthcare', true),
	cplcDefinition('cplc-commercial-driver', 'CDL', 'Other', false),
];

/** Collection-kit masks, as `GET /shipment/mask/list` lists them. */
export const SHIPMENT_MASKS = [
	{ sku: 'MASK-N95-M', name: 'N95 respirator, medium', inStock: true },
	{ sku: 'MASK-N95-L', name: 'N95 respirator, large', inStock: true },
	{ sku: 'MASK-SURGICAL', name: 'Surgical mask', inStock: false },
] as const;

export interface CompanyUser {
	id: string;
	username: string;
	email: string;
	givenName: string;
	familyName: string;
	enabled: 1 | 0;
	groupProfileId: string;
	role: string;
}

export const COMPANY_USERS: readonly CompanyUser[] = [
	[
		'user-east-admin',
		'east.admin',
		'Avery',
		'Stone',
		'4e0c2a8e-5b1f-4d3c-9a7e-2f6b1c8d3e01',
		'Group Administrator',
	],
	[
		'user-east-recruiter',
		'east.recruiter',
		'Jordan',
		'Reyes',
		'4e0c2a8e-5b1f-4d3c-9a7e-2f6b1c8d3e01',
		'Recruiter',
	],
	[
		'user-west-admin',
		'west.admin',
		'Morgan',
		'Lee',
		'7a9d4c1b-2e3f-4a5b-8c6d-9e0f1a2b3c02',
		'Group Administrator',
	],
	[
		'user-west-recruiter',
		'west.recruiter',
		'Riley',
		'Okafor',
		'7a9d4c1b-2e3f-4a5b-8c6d-9e0f1a2b3c02',
		'Recruiter',
	],
].map(([id, username, givenName, familyName, groupProfileId, role]) => ({
	id,
	username,
	email: `${username}@sandbox-demo.example`,
	givenName,
	familyName,
	enabled: 1 as const,
	groupProfileId,
	role,
}));

export interface VerificationBookEntry {
	id: string;
	name: string;
	type: 'employer' | 'school';
	city: string;
	state: string;
	phone: string;
	verificationMethod: 'phone' | 'email' | 'online';
}

const VBOOK_ROWS: readonly [string, VerificationBookEntry['type'], string, string][] = [
	['Acme Logistics', 'employer', 'Dallas', 'TX'],
	['Blue Ridge Health System', 'employer', 'Asheville', 'NC'],
	['Cascade Freight Lines', 'employer', 'Portland', 'OR'],
	['Desert Sun Hospital', 'employer', 'Phoenix', 'AZ'],
	['Evergreen Home Care', 'employer', 'Seattle', 'WA'],
	['Franklin County Schools', 'employer', 'Columbus', 'OH'],
	['Great Lakes Manufacturing', 'employer', 'Detroit', 'MI'],
	['Harbor Point Clinic', 'employer', 'Baltimore', 'MD'],
	['Ironwood Construction', 'employer', 'Denver', 'CO'],
	['Juniper Retail Group', 'employer', 'Boise', 'ID'],
	['Keystone Medical Center', 'employer', 'Harrisburg', 'PA'],
	['Lone Star Transport', 'employer', 'Austin', 'TX'],
	['Magnolia Senior Living', 'employer', 'Jackson', 'MS'],
	['Northwind Staffing', 'employer', 'Minneapolis', 'MN'],
	['Oak Valley Pharmacy', 'employer', 'Sacramento', 'CA'],
	['Atlantic State University', 'school', 'Boston', 'MA'],
	['Bayview Community College', 'school', 'Tampa', 'FL'],
	['Central Plains University', 'school', 'Omaha', 'NE'],
	['Mountain West Nursing School', 'school', 'Salt Lake City', 'UT'],
	['Northern Technical Institute', 'school', 'Fargo', 'ND'],
	['Pacific Coast University', 'school', 'San Diego', 'CA'],
	['Riverside College of Health', 'school', 'Riverside', 'CA'],
	['Southern Heights University', 'school', 'Atlanta', 'GA'],
	['Three Rivers Community College', 'school', 'Pittsburgh', 'PA'],
	['Valley State University', 'school', 'Fresno', 'CA'],
];

const VERIFICATION_METHODS: readonly VerificationBookEntry['verificationMethod'][] = [
	'phone',
	'email',
	'online',
];

export const VERIFICATION_BOOK: readonly VerificationBookEntry[] = VBOOK_ROWS.map(
	([name, type, city, state], index) => ({
		id: `vbook-${String(index + 1).padStart(4, '0')}`,
		name,
		type,
		city,
		state,
		phone: `555-01${String(index).padStart(2, '0')}`,
		verificationMethod: VERIFICATION_METHODS[index % VERIFICATION_METHODS.length],
	}),
);
