import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { OperationModule } from '../helpers/operation';
import * as caseResource from './case';
import * as caseData from './caseData';
import * as companyUser from './companyUser';
import * as cplc from './cplc';
import type { BackgroundCheckOperations, BackgroundCheckResource } from './node.type';
import * as packageResource from './package';
import * as secureDocument from './secureDocument';
import * as shipmentMask from './shipmentMask';
import * as testimony from './testimony';
import * as verificationBook from './verificationBook';

type OperationTable = { [R in BackgroundCheckResource]: Record<BackgroundCheckOperations[R], OperationModule> };

export const operations: OperationTable = {
	case: caseResource.operations,
	caseData: caseData.operations,
	companyUser: companyUser.operations,
	cplc: cplc.operations,
	package: packageResource.operations,
	secureDocument: secureDocument.operations,
	shipmentMask: shipmentMask.operations,
	testimony: testimony.operations,
	verificationBook: verificationBook.operations,
};

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const module = (operations as Record<string, Record<string, OperationModule | undefined> | undefined>)[resource]?.[
		operation
	];
	if (!module) {
		throw new NodeOperationError(this.getNode(), `The operation "${operation}" of resource "${resource}" is not supported`);
	}
	return [await module.execute.call(this)];
}
