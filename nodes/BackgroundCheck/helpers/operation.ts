import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

/** What every `<operation>.operation.ts` exports: its fields and how it runs over the input items. */
export interface OperationModule {
	description: INodeProperties[];
	execute(this: IExecuteFunctions): Promise<INodeExecutionData[]>;
}
