import type {
	IDataObject,
	IExecuteFunctions,
	INodeProperties,
	INodePropertyCollection,
	INodePropertyOptions,
} from 'n8n-workflow';

import { withoutEmptyValues } from './body';
import { serviceIdField, type ServicePicker } from './fields';
import { invalidInput, parseJsonObject, requireId } from './inputChecks';

const byName = (a: INodePropertyOptions, b: INodePropertyOptions) => a.name.localeCompare(b.name);

/** Checks of one entry of a list parameter, naming the entry (e.g. "Order Data > Date of Birth 1"). */
interface EntryChecks {
	/** The trimmed text, or an error naming the field when it is empty. */
	text(value: unknown, field: string): string;
	/** The trimmed text, or undefined when empty. */
	optionalText(value: unknown): string | undefined;
	/** A service ID picked or entered; undefined when none. */
	serviceId(value: unknown): string | undefined;
	/** A JSON field's object, or an error naming the field. */
	json(value: unknown, field: string): IDataObject;
	fail(message: string, description?: string): never;
}

function entryChecks(this: IExecuteFunctions, itemIndex: number, where: string): EntryChecks {
	const node = this.getNode();
	const optionalText = (value: unknown) => {
		const text = typeof value === 'number' ? String(value) : value;
		return typeof text === 'string' && text.trim() !== '' ? text.trim() : undefined;
	};
	return {
		text: (value, field) => {
			const text = optionalText(value);
			if (text === undefined) throw invalidInput(node, itemIndex, `${where}: ${field} is empty`);
			return text;
		},
		optionalText,
		serviceId: (value) =>
			optionalText(value) === undefined
				? undefined
				: requireId(node, value, `${where}: Service`, itemIndex),
		json: (value, field) => parseJsonObject(node, value, `${where}: ${field}`, itemIndex),
		fail: (message, description) => {
			throw invalidInput(node, itemIndex, `${where}: ${message}`, description);
		},
	};
}

/** `YYYY-MM-DD` (an ISO date-time gives its date); undefined when it is not a date of the calendar. */
export function isoDate(value: string): string | undefined {
	const match = /^(\d{4})-(\d{2})-(\d{2})(?:[T ].*)?$/.exec(value.trim());
	if (!match) return undefined;
	const [year, month, day] = match.slice(1).map(Number);
	const date = new Date(Date.UTC(year, month - 1, day));
	return date.getUTCFullYear() === year &&
		date.getUTCMonth() === month - 1 &&
		date.getUTCDate() === day
		? match.slice(1).join('-')
		: undefined;
}

/** The reference's form of a government ID: 123-45-6789 (nine digits, typed with or without dashes). */
function governmentId(value: string): string | undefined {
	const digits = value.replace(/[\s-]/g, '');
	return /^\d{9}$/.test(digits)
		? `${digits.slice(0, 3)}-${digits.slice(3, 5)}-${digits.slice(5)}`
		: undefined;
}

const text = (
	displayName: string,
	name: string,
	options: Partial<INodeProperties> = {},
): INodeProperties => ({ displayName, name, type: 'string', default: '', ...options });

/** One kind of order data: its form, and the `{ caseOrderDataTypeId, serviceId?, metadata }` entry it sends. */
interface OrderDataKind {
	name: string;
	displayName: string;
	values(services: ServicePicker): INodeProperties[];
	entry(form: IDataObject, check: EntryChecks): IDataObject;
}

const REASONS_FOR_TEST: INodePropertyOptions[] = [
	{ name: 'Follow-Up', value: 'followup' },
	{ name: 'Post-Accident', value: 'post-accident' },
	{ name: 'Pre-Employment', value: 'pre-employment' },
	{ name: 'Return to Duty', value: 'return-to-duty' },
];

const TESTING_AUTHORITIES: INodePropertyOptions[] = [
	{ name: 'FAA (Aviation)', value: 'faa' },
	{ name: 'FMCSA (Motor Carriers)', value: 'fmcsa' },
	{ name: 'FRA (Railroads)', value: 'fra' },
	{ name: 'FTA (Transit)', value: 'fta' },
	{ name: 'PHMSA (Pipelines)', value: 'phmsa' },
	{ name: 'USCG (Coast Guard)', value: 'uscg' },
];

/**
 * The order data types without a form of their own, with the metadata keys the reference requires for each
 * (checked before any request; the rest of the metadata is the user's JSON).
 */
const OTHER_ORDER_DATA_TYPES: Array<{ name: string; value: string; required: string[] }> = [
	{
		name: 'Address (Jurisdiction Search)',
		value: 'codt-address',
		required: ['city', 'state', 'county'],
	},
	{ name: 'County Jurisdiction', value: 'codt-jurisdiction-county', required: ['state', 'county'] },
	{
		name: 'Document Processing',
		value: 'codt-idp',
		required: ['documentTypeId', 'fileName', 'secureDocumentId'],
	},
	{
		name: 'Education',
		value: 'codt-education',
		required: ['institution', 'city', 'state', 'country', 'current', 'monthEnd', 'yearEnd'],
	},
	{
		name: 'Employment',
		value: 'codt-employment',
		required: [
			'employer',
			'position',
			'city',
			'state',
			'country',
			'monthBegin',
			'yearBegin',
			'current',
			'monthEnd',
			'yearEnd',
		],
	},
	{
		name: 'Federal District Jurisdiction',
		value: 'codt-jurisdiction-fed-district',
		required: ['district'],
	},
	{ name: 'Motor Vehicle Record', value: 'codt-mvr', required: ['state', 'licenseNumber'] },
	{
		name: 'OHS Scheduling Address',
		value: 'codt-ohs-scheduling-address',
		required: ['address1', 'city', 'state', 'postalCode', 'country'],
	},
	{ name: 'OHS Service Substitutions', value: 'codt-ohs-service-substitutions', required: [] },
	{
		name: 'Professional License (CPLC)',
		value: 'codt-cplc',
		required: ['cplcId', 'fields'],
	},
	{
		name: 'Shipment',
		value: 'codt-shipment',
		required: [
			'recipientName',
			'address1',
			'addressType',
			'city',
			'state',
			'postalCode',
			'shippingMethod',
			'maskType',
		],
	},
	{ name: 'State Jurisdiction', value: 'codt-jurisdiction-state', required: ['state'] },
];

const ORDER_DATA_KINDS: OrderDataKind[] = [
	{
		name: 'dateOfBirth',
		displayName: 'Date of Birth',
		values: () => [
			text('Date of Birth', 'dob', {
				required: true,
				placeholder: 'e.g. 1980-02-22',
				description: "The candidate's date of birth (YYYY-MM-DD), sent as codt-dob order data",
			}),
		],
		entry: (form, check) => {
			const dob = isoDate(check.text(form.dob, 'Date of Birth'));
			if (dob === undefined)
				return check.fail(
					'Date of Birth is not a date',
					'Enter it as YYYY-MM-DD, e.g. 1980-02-22.',
				);
			return { caseOrderDataTypeId: 'codt-dob', metadata: { dob } };
		},
	},
	{
		name: 'governmentId',
		displayName: 'Government ID',
		values: () => [
			text('Government ID', 'govtId', {
				required: true,
				typeOptions: { password: true },
				placeholder: 'e.g. 111-22-3333',
				description:
					"The candidate's nine-digit government ID (Social Security number), sent as codt-govt-id order data in the form 111-22-3333",
			}),
		],
		entry: (form, check) => {
			const govtId = governmentId(check.text(form.govtId, 'Government ID'));
			if (govtId === undefined)
				return check.fail(
					'Government ID is not nine digits',
					'Enter it as 111-22-3333 or 111223333 (the value is not shown here).',
				);
			return { caseOrderDataTypeId: 'codt-govt-id', metadata: { govtId } };
		},
	},
	{
		name: 'currentAddress',
		displayName: 'Current Address',
		values: () => [
			text('Address Line 1', 'address1', { required: true, placeholder: 'e.g. 1 Main Street' }),
			text('Address Line 2', 'address2'),
			text('City', 'city', { required: true }),
			text('State', 'state', {
				required: true,
				placeholder: 'e.g. NY',
				description: 'Two-letter state code',
			}),
			text('Postal Code', 'postalCode', { required: true, placeholder: 'e.g. 10036' }),
			{
				displayName: 'Country Name or ID',
				name: 'country',
				type: 'options',
				typeOptions: { loadOptionsMethod: 'getCountries' },
				required: true,
				default: 'US',
				description:
					'The country, sent as its two-letter ISO 3166 code (e.g. US). Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			},
		],
		entry: (form, check) => ({
			caseOrderDataTypeId: 'codt-current-candidate-address',
			metadata: {
				address1: check.text(form.address1, 'Address Line 1'),
				...withoutEmptyValues({ address2: check.optionalText(form.address2) }),
				city: check.text(form.city, 'City'),
				state: check.text(form.state, 'State'),
				postalCode: check.text(form.postalCode, 'Postal Code'),
				country: check.text(form.country, 'Country'),
			},
		}),
	},
	{
		name: 'drugReasonForTest',
		displayName: 'Drug Test Reason',
		values: (services) => [
			serviceIdField(services, 'The drug screening this entry is for.'),
			{
				displayName: 'Reason for Test',
				name: 'reasonForTest',
				type: 'options',
				options: REASONS_FOR_TEST,
				default: 'pre-employment',
			},
		],
		entry: (form, check) => ({
			caseOrderDataTypeId: 'codt-drug-reason-for-test',
			...withoutEmptyValues({ serviceId: check.serviceId(form.serviceId) }),
			metadata: { reasonForTest: check.text(form.reasonForTest, 'Reason for Test') },
		}),
	},
	{
		name: 'drugTestingAuthority',
		displayName: 'DOT Testing Authority',
		values: (services) => [
			serviceIdField(services, 'The DOT drug screening this entry is for.'),
			{
				displayName: 'Testing Authority',
				name: 'testingAuthority',
				type: 'options',
				options: TESTING_AUTHORITIES,
				default: 'fmcsa',
				description: 'The regulatory authority under which the DOT drug test is conducted',
			},
		],
		entry: (form, check) => ({
			caseOrderDataTypeId: 'codt-drug-testing-authority',
			...withoutEmptyValues({ serviceId: check.serviceId(form.serviceId) }),
			metadata: { testingAuthority: check.text(form.testingAuthority, 'Testing Authority') },
		}),
	},
	{
		name: 'other',
		displayName: 'Other Order Data',
		values: (services) => [
			{
				displayName: 'Type',
				name: 'type',
				type: 'options',
				options: OTHER_ORDER_DATA_TYPES.map(({ name, value }) => ({
					name,
					value,
					description: value,
				})).sort(byName),
				default: 'codt-employment',
				description: 'The order data type, sent as caseOrderDataTypeId',
			},
			serviceIdField(
				services,
				'The service this entry is for (needed for education, employment, motor vehicle, jurisdiction, CPLC and shipment data).',
			),
			{
				displayName: 'Metadata (JSON)',
				name: 'metadata',
				type: 'json',
				default: '{}',
				description:
					'The metadata of the entry, as the API reference defines it for the type. Example for Employment: { "employer": "Acme", "position": "Driver", "city": "Austin", "state": "TX", "country": "US", "monthBegin": "04", "yearBegin": "2019", "current": true, "monthEnd": "", "yearEnd": "" }.',
			},
		],
		entry: (form, check) => {
			const type = OTHER_ORDER_DATA_TYPES.find((candidate) => candidate.value === form.type);
			if (type === undefined)
				return check.fail(`Type "${String(form.type)}" is not an order data type`);
			const metadata = check.json(form.metadata, 'Metadata (JSON)');
			const missing = type.required.filter((key) => metadata[key] === undefined);
			if (missing.length > 0)
				check.fail(
					`Metadata (JSON) lacks ${missing.join(', ')}`,
					`The API requires ${type.required.join(', ')} in the metadata of ${type.value}.`,
				);
			return {
				caseOrderDataTypeId: type.value,
				...withoutEmptyValues({ serviceId: check.serviceId(form.serviceId) }),
				metadata,
			};
		},
	},
];

/** The Order Data parameter: a list of entries, each of one kind; `services` fills the service dropdowns. */
export function orderDataProperty(services: ServicePicker, description: string): INodeProperties {
	return {
		displayName: 'Order Data',
		name: 'orderData',
		type: 'fixedCollection',
		placeholder: 'Add Order Data',
		typeOptions: { multipleValues: true },
		default: {},
		description,
		options: ORDER_DATA_KINDS.map(
			(kind): INodePropertyCollection => ({
				name: kind.name,
				displayName: kind.displayName,
				values: kind.values(services),
			}),
		),
	};
}

/** The Aliases parameter of Case > Create: each alias is sent as codt-alias order data. */
export function aliasesProperty(services: ServicePicker, nameHint: string): INodeProperties {
	return {
		displayName: 'Aliases',
		name: 'aliases',
		type: 'fixedCollection',
		placeholder: 'Add Alias',
		typeOptions: { multipleValues: true },
		default: {},
		description: `Other names the candidate has used (maiden name, former names), sent as codt-alias order data. ${nameHint}.`,
		options: [
			{
				displayName: 'Alias',
				name: 'alias',
				values: [
					text('Given Name', 'firstName', { required: true }),
					text('Middle Name', 'middleName'),
					text('Family Name', 'lastName', { required: true }),
					serviceIdField(services, 'The service whose searches use this alias (optional).'),
				],
			},
		],
	};
}

/** Order data entries from the Order Data parameter, in the order of its kinds; every field checked first. */
export function buildOrderData(this: IExecuteFunctions, itemIndex: number): IDataObject[] {
	const entriesByKind = this.getNodeParameter('orderData', itemIndex, {}) as Record<
		string,
		IDataObject[] | undefined
	>;
	return ORDER_DATA_KINDS.flatMap((kind) =>
		(entriesByKind[kind.name] ?? []).map((form, position) =>
			kind.entry(
				form,
				entryChecks.call(this, itemIndex, `Order Data > ${kind.displayName} ${position + 1}`),
			),
		),
	);
}

/** codt-alias entries from the Aliases parameter; rows the editor left empty are skipped. */
export function buildAliases(this: IExecuteFunctions, itemIndex: number): IDataObject[] {
	const aliases = this.getNodeParameter('aliases.alias', itemIndex, []) as IDataObject[];
	return aliases.flatMap((form, position) => {
		const check = entryChecks.call(this, itemIndex, `Aliases ${position + 1}`);
		const names = [form.firstName, form.middleName, form.lastName].map(check.optionalText);
		if (names.every((name) => name === undefined)) return [];
		return [
			{
				caseOrderDataTypeId: 'codt-alias',
				...withoutEmptyValues({ serviceId: check.serviceId(form.serviceId) }),
				metadata: {
					givenName: check.text(form.firstName, 'Given Name'),
					...withoutEmptyValues({ middleName: names[1] }),
					familyName: check.text(form.lastName, 'Family Name'),
				},
			},
		];
	});
}

const CONTACT_TYPES: INodePropertyOptions[] = [
	{
		name: 'Authorization',
		value: 'authorization',
		description: 'Contacted about the authorization',
	},
	{ name: 'Default', value: 'default', description: 'Contacted about the case' },
	{ name: 'Escalation', value: 'escalation', description: 'Contacted when an issue is escalated' },
];

/** Max lengths of a contact's name and phone, as the reference gives them. */
const CONTACT_NAME_MAX = 255;
const CONTACT_PHONE_MAX = 20;

/** The Contacts parameter of Case > Create, sent as orderConfig.contacts. */
export const contactsProperty: INodeProperties = {
	displayName: 'Contacts',
	name: 'contacts',
	type: 'fixedCollection',
	placeholder: 'Add Contact',
	typeOptions: { multipleValues: true },
	default: {},
	description: 'People to contact about the case, sent as orderConfig.contacts',
	options: [
		{
			displayName: 'Contact',
			name: 'contact',
			values: [
				{
					displayName: 'Contact Type',
					name: 'type',
					type: 'options',
					options: CONTACT_TYPES,
					default: 'authorization',
				},
				text('Email', 'email', { required: true, placeholder: 'e.g. name@email.com' }),
				text('Name', 'name', { description: `At most ${CONTACT_NAME_MAX} characters` }),
				text('Phone', 'phone', { description: `At most ${CONTACT_PHONE_MAX} characters` }),
			],
		},
	],
};

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Whether `value` has the form of an email address (name@domain.tld). */
export const isEmail = (value: string) => EMAIL.test(value);

export function buildContacts(this: IExecuteFunctions, itemIndex: number): IDataObject[] {
	const contacts = this.getNodeParameter('contacts.contact', itemIndex, []) as IDataObject[];
	return contacts.map((form, position) => {
		const check = entryChecks.call(this, itemIndex, `Contacts ${position + 1}`);
		const email = check.text(form.email, 'Email');
		if (!isEmail(email)) check.fail(`Email "${email}" is not an email address`);
		const name = check.optionalText(form.name);
		if (name !== undefined && name.length > CONTACT_NAME_MAX)
			check.fail(`Name is longer than ${CONTACT_NAME_MAX} characters`);
		const phone = check.optionalText(form.phone);
		if (phone !== undefined && phone.length > CONTACT_PHONE_MAX)
			check.fail(`Phone is longer than ${CONTACT_PHONE_MAX} characters`);
		return withoutEmptyValues({ type: check.text(form.type, 'Contact Type'), email, name, phone });
	});
}

const policy = (values: Array<[string, string]>): INodePropertyOptions[] =>
	values.map(([value, name]) => ({ name, value })).sort(byName);

const VERIFICATION_METHODS = policy([
	['docs-acceptable', 'Documents Acceptable'],
	['psv', 'Primary Source Verification'],
	['psv-first', 'Primary Source Verification First'],
]);

const DRUG_POLICIES = policy([
	['company-default', 'Company Default'],
	['reorder', 'Reorder'],
	['reorder-and-contact', 'Reorder and Contact'],
	['reorder-once-contact', 'Reorder Once, Then Contact'],
	['do-not-reorder', 'Do Not Reorder'],
]);

/** Order config options that go into serviceConfigs, keyed by the service they configure. */
const SERVICE_CONFIGS: Array<{ option: string; serviceId: string; key: string }> = [
	{
		option: 'employmentVerificationMethod',
		serviceId: '9ac65633-b4c4-4062-875c-3556db9d2a08',
		key: 'verificationMethod',
	},
	{
		option: 'employmentIncomeVerificationMethod',
		serviceId: 'service-employment-income',
		key: 'verificationMethod',
	},
	{
		option: 'educationVerificationMethod',
		serviceId: '85307784-1f84-471a-8596-c8ea088c3a62',
		key: 'verificationMethod',
	},
	{
		option: 'quantiferonSubstitutionPolicy',
		serviceId: 'service-ohs-tb-quantiferon-gold',
		key: 'substitutionPolicy',
	},
	{
		option: 'tspotSubstitutionPolicy',
		serviceId: 'service-ohs-tb-tspot-test',
		key: 'substitutionPolicy',
	},
];

const option = (
	displayName: string,
	name: string,
	options: INodePropertyOptions[],
	defaultValue: string,
	description: string,
): INodeProperties => ({
	displayName,
	name,
	type: 'options',
	options,
	default: defaultValue,
	description,
});

/** The Order Config parameter: how the API runs certain screenings (orderConfig without contacts). */
export const orderConfigProperty: INodeProperties = {
	displayName: 'Order Config',
	name: 'orderConfig',
	type: 'collection',
	placeholder: 'Add Setting',
	default: {},
	description:
		'How certain screenings are run, sent as orderConfig; a setting not given takes the company’s default',
	options: [
		option(
			'Alias Name Searches',
			'aliasNameConfiguration',
			policy([
				['no-alias', 'No Alias Searches'],
				['alias-all', 'All Aliases'],
				['alias-all+hits-only', 'All Aliases, Hits Only'],
				['alias-mnv', 'Aliases by Name Variation'],
				['alias-mnv+hits-only', 'Aliases by Name Variation, Hits Only'],
			]),
			'no-alias',
			'Whether and how the candidate’s aliases are searched, sent as aliasNameConfiguration',
		),
		option(
			'Dilute Drug Result Policy',
			'diluteDrugPolicy',
			DRUG_POLICIES,
			'company-default',
			'What happens after a dilute drug result, sent as diluteDrugPolicy',
		),
		option(
			'Drug Passport Expiration Policy',
			'ohsDrugPassportExpirationPolicy',
			policy([
				['company-default', 'Company Default'],
				['reissue', 'Reissue'],
				['reissue-and-contact', 'Reissue and Contact'],
				['reissue-once-contact', 'Reissue Once, Then Contact'],
				['contact-customer', 'Contact Customer'],
				['do-not-reissue', 'Do Not Reissue'],
			]),
			'company-default',
			'What happens when a drug test passport expires, sent as ohsDrugPassportExpirationPolicy',
		),
		option(
			'Education Verification Method',
			'educationVerificationMethod',
			VERIFICATION_METHODS,
			'docs-acceptable',
			'Sent as serviceConfigs of the education verification service',
		),
		option(
			'Employment Income Verification Method',
			'employmentIncomeVerificationMethod',
			VERIFICATION_METHODS,
			'docs-acceptable',
			'Sent as serviceConfigs of the employment income verification service',
		),
		option(
			'Employment Verification Method',
			'employmentVerificationMethod',
			VERIFICATION_METHODS,
			'docs-acceptable',
			'Sent as serviceConfigs of the employment verification service',
		),
		option(
			'Lost or Incomplete Drug Test Policy',
			'lostOrIncompleteOHSDrugPolicy',
			DRUG_POLICIES,
			'company-default',
			'What happens when a drug test is lost or incomplete, sent as lostOrIncompleteOHSDrugPolicy',
		),
		option(
			'QuantiFERON Substitution Policy',
			'quantiferonSubstitutionPolicy',
			policy([
				['company-default', 'Company Default'],
				['replace-with-t-spot', 'Replace With T-SPOT'],
				['do-not-replace', 'Do Not Replace'],
			]),
			'company-default',
			'Sent as serviceConfigs of the QuantiFERON TB test',
		),
		option(
			'T-SPOT Substitution Policy',
			'tspotSubstitutionPolicy',
			policy([
				['company-default', 'Company Default'],
				['replace-with-quantiferon', 'Replace With QuantiFERON'],
				['do-not-replace', 'Do Not Replace'],
			]),
			'company-default',
			'Sent as serviceConfigs of the T-SPOT TB test',
		),
	],
};

/** orderConfig from the Order Config parameter (and `contacts` when given); empty when nothing is set. */
export function buildOrderConfig(
	this: IExecuteFunctions,
	itemIndex: number,
	contacts: IDataObject[] = [],
): IDataObject {
	const settings = {
		...(this.getNodeParameter('orderConfig', itemIndex, {}) as IDataObject),
	};
	const serviceConfigs: IDataObject = {};
	for (const config of SERVICE_CONFIGS) {
		const value = settings[config.option];
		delete settings[config.option];
		if (typeof value === 'string' && value !== '')
			serviceConfigs[config.serviceId] = { [config.key]: value };
	}
	return withoutEmptyValues({ contacts, ...settings, serviceConfigs });
}
