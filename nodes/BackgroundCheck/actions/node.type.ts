/** Resource → operation values of the node; part of the contract of issue 4, saved in users' workflows. */
export interface BackgroundCheckOperations {
	case: 'create' | 'get' | 'getMany' | 'addServices' | 'getData';
	caseData: 'cancelSearch';
	package: 'getServices';
	secureDocument: 'create';
	verificationBook: 'search';
	testimony: 'create' | 'update';
	cplc: 'getDefinitions';
	shipmentMask: 'getMany';
	companyUser: 'getMany';
}

export type BackgroundCheckResource = keyof BackgroundCheckOperations;
