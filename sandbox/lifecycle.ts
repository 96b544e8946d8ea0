/**
 * How a case moves on the sandbox clock. The case walks the sequence of spec 3.3:
 *   1 Pending / Waiting for Authorization -> 2 Pending / Authorization in Progress -> 3 Pending / null
 *   -> 4 Complete / null.
 * While at step 3, every transition moves each pending case data one step: drug screenings and OHS
 * services first through pending statuses of 3.2, then every service to its final status of 3.1. The
 * case completes in the transition that finishes its last case data. Each change emits its webhook.
 *
 * A transition happens every `stepSeconds` of sandbox time, or at once through `advance` (admin). A script
 * per case (or per candidate email, applied when the case is created) sets final statuses, pending paths,
 * the pace, and a step at which the case stops moving by itself.
 */
import { isKnownServiceId } from '../nodes/shared/catalog';
import { defaultPendingPath, searchRecordsOf, statusDisplayName } from './caseDataRecords';
import type { SandboxClock } from './clock';
import { isPlainObject } from '../nodes/shared/values';
import { badRequest, notFound } from './http';
import type { CaseDataRecord, CaseRecord, SandboxStore } from './state';
import {
	CANCELED_CASE_FIELDS,
	FINAL_CASE_DATA_STATUSES,
	adjudicatedFields,
	caseDataStatusFields,
	caseStepFields,
	isFinalCaseDataStatus,
	isPendingStatusId,
	pendingStatusFields,
	sequenceStepOf,
	type CaseResultName,
	type CaseStep,
	type FinalCaseDataStatus,
} from './statuses';
import {
	caseDataStatusChangeMessage,
	caseStatusChangeMessage,
	type EventSink,
} from './webhooks/events';

export const DEFAULT_STEP_SECONDS = 300;
const DEFAULT_FINAL_STATUS: FinalCaseDataStatus = 'clear';

export interface ServiceScript {
	/** The result this service ends with. */
	finalStatus?: FinalCaseDataStatus;
	/** Pending status IDs (spec 3.2) to walk through before the result; [] goes straight to it. */
	pendingStatusIds?: string[];
}

export interface CaseScript {
	/** The result of every service without a script of its own; default `clear`. */
	finalStatus?: FinalCaseDataStatus;
	/** Per service ID. */
	services?: Record<string, ServiceScript>;
	/** The case stops moving by itself once it reaches this step (1-4); `advance` still moves it. */
	holdAtStep?: CaseStep;
	/** Sandbox seconds between transitions. */
	stepSeconds?: number;
}

export class CaseLifecycle {
	private readonly caseScripts = new Map<string, CaseScript>();
	private readonly candidateScripts = new Map<string, CaseScript>();
	/** How many pending statuses each case data has walked through. */
	private readonly pendingPositions = new Map<string, number>();
	private readonly scheduledTransitions = new Map<string, () => void>();

	constructor(
		private readonly clock: SandboxClock,
		private readonly store: SandboxStore,
		private readonly events: EventSink,
		private readonly defaultStepSeconds = DEFAULT_STEP_SECONDS,
	) {}

	/** A script for the next cases created for this candidate email. */
	scriptCandidate(email: unknown, script: unknown): CaseScript {
		if (typeof email !== 'string' || !email.includes('@'))
			throw badRequest('email must be an email address');
		const checked = checkedScript(script);
		this.candidateScripts.set(email.toLowerCase(), checked);
		return checked;
	}

	/** Merges a script into a case's own and applies it from the next transition on. */
	scriptCase(caseId: string, script: unknown): CaseScript {
		const record = this.requireCase(caseId);
		const merged = mergeScripts(this.scriptOf(caseId), checkedScript(script));
		this.caseScripts.set(caseId, merged);
		this.scheduleNextTransition(record);
		return merged;
	}

	scriptOf(caseId: string): CaseScript {
		return this.caseScripts.get(caseId) ?? {};
	}

	/** A case was just created at step 1: announce it and set the clock running for it. */
	start(record: CaseRecord): void {
		const email = record.candidateEmail.toLowerCase();
		this.caseScripts.set(
			record.id,
			mergeScripts(emailTagScript(email), this.candidateScripts.get(email) ?? {}),
		);
		this.events.publish(record.groupProfileId, caseStatusChangeMessage(record));
		this.scheduleNextTransition(record);
	}

	/** Performs the next transition of a case now; false when it is complete (or canceled, adjudicated) already. */
	advance(caseId: string): boolean {
		const record = this.requireCase(caseId);
		const step = sequenceStepOf(record);
		if (step === undefined || step === 4) return false;
		if (step === 3) this.progressScreenings(record);
		else this.moveToStep(record, (step + 1) as CaseStep);
		this.scheduleNextTransition(record);
		return true;
	}

	/** Services were added: a complete case is processing again. */
	servicesAdded(record: CaseRecord): void {
		if (sequenceStepOf(record) === 4) this.moveToStep(record, 3);
		this.scheduleNextTransition(record);
	}

	/** Cancels one search record; a case data whose searches are all canceled ends as `canceled`. */
	cancelSearch(record: CaseRecord, caseData: CaseDataRecord, searchId: string): void {
		const search = searchRecordsOf(caseData).find((candidate) => candidate.searchId === searchId);
		if (!search) throw notFound(`Case data ${caseData.id} has no search ${searchId}`);
		if (search.status !== 'pending')
			throw badRequest(`Search ${searchId} is ${search.status} already and cannot be canceled`);
		Object.assign(search, caseDataStatusFields('canceled'));
		caseData.modStamp = this.clock.nowIso();
		if (
			caseData.status === 'pending' &&
			searchRecordsOf(caseData).every((entry) => entry.status === 'canceled')
		) {
			this.finish(record, caseData, 'canceled');
			this.completeIfDone(record);
		}
	}

	/** `PUT .../action/beginprocessing`: a case waiting for its candidate (step 1 or 2) begins processing (step 3). */
	beginProcessing(record: CaseRecord): void {
		this.moveToStep(record, 3);
		this.scheduleNextTransition(record);
	}

	/**
	 * `POST /case/id/{caseId}/cancel`: every pending case data ends `canceled` and the case Complete / Canceled;
	 * it no longer moves. Each change emits its webhook.
	 */
	cancelCase(record: CaseRecord): void {
		for (const caseData of this.store.caseDataOf(record))
			if (caseData.status === 'pending') this.finish(record, caseData, 'canceled');
		this.settle(record, CANCELED_CASE_FIELDS);
	}

	/** `POST /case/id/{caseId}/services/cancel`: these case data end `canceled`; a case left with none pending completes. */
	cancelCaseData(record: CaseRecord, caseData: readonly CaseDataRecord[]): void {
		for (const entry of caseData) this.finish(record, entry, 'canceled');
		this.completeIfDone(record);
	}

	/** A decision on a complete case (place, pre-adverse action): Adjudicated with this result; it no longer moves. */
	adjudicate(record: CaseRecord, result: CaseResultName): void {
		this.settle(record, adjudicatedFields(result));
	}

	/** The case leaves the sequence with these status fields: announced, and its next transition dropped. */
	private settle(record: CaseRecord, fields: Partial<CaseRecord>): void {
		Object.assign(record, fields, { modStamp: this.clock.nowIso() });
		this.events.publish(record.groupProfileId, caseStatusChangeMessage(record));
		this.scheduleNextTransition(record);
	}

	private progressScreenings(record: CaseRecord): void {
		const script = this.scriptOf(record.id);
		for (const caseData of this.store
			.caseDataOf(record)
			.filter((data) => data.status === 'pending')) {
			const serviceScript = script.services?.[caseData.serviceId] ?? {};
			const path = serviceScript.pendingStatusIds ?? defaultPendingPath(caseData.serviceId);
			const position = this.pendingPositions.get(caseData.id) ?? 0;
			if (position < path.length) {
				this.pendingPositions.set(caseData.id, position + 1);
				this.update(record, caseData, pendingStatusFields(path[position]));
			} else {
				this.finish(
					record,
					caseData,
					serviceScript.finalStatus ?? script.finalStatus ?? DEFAULT_FINAL_STATUS,
				);
			}
		}
		this.completeIfDone(record);
	}

	private finish(record: CaseRecord, caseData: CaseDataRecord, status: FinalCaseDataStatus): void {
		for (const search of searchRecordsOf(caseData)) {
			if (search.status !== 'canceled') Object.assign(search, caseDataStatusFields(status));
		}
		this.update(record, caseData, {
			...caseDataStatusFields(status),
			...pendingStatusFields(null),
		});
	}

	private update(
		record: CaseRecord,
		caseData: CaseDataRecord,
		fields: Partial<CaseDataRecord>,
	): void {
		Object.assign(caseData, fields, { modStamp: this.clock.nowIso() });
		caseData.statusDisplayName = statusDisplayName(caseData.status);
		this.events.publish(record.groupProfileId, caseDataStatusChangeMessage(record, caseData));
	}

	private completeIfDone(record: CaseRecord): void {
		const allDone = this.store
			.caseDataOf(record)
			.every((caseData) => caseData.status !== 'pending');
		if (sequenceStepOf(record) === 3 && allDone) this.moveToStep(record, 4);
	}

	private moveToStep(record: CaseRecord, step: CaseStep): void {
		const now = this.clock.nowIso();
		Object.assign(record, caseStepFields(step), { modStamp: now });
		// The reference's stamps: onboarding begins at step 2, completes when processing begins (step 3).
		if (step >= 2) record.beginOnboardingStamp ??= now;
		if (step >= 3) {
			record.completedOnboardingStamp ??= now;
			record.beginProcessingStamp ??= now;
		}
		if (step === 4) {
			record.completedInitialProcessingStamp ??= now;
			record.completedLatestProcessingStamp = now;
		}
		this.events.publish(record.groupProfileId, caseStatusChangeMessage(record));
	}

	private scheduleNextTransition(record: CaseRecord): void {
		this.scheduledTransitions.get(record.id)?.();
		this.scheduledTransitions.delete(record.id);
		const step = sequenceStepOf(record);
		const { holdAtStep, stepSeconds = this.defaultStepSeconds } = this.scriptOf(record.id);
		if (step === undefined || step === 4 || (holdAtStep !== undefined && step >= holdAtStep))
			return;
		const cancel = this.clock.scheduleIn(stepSeconds * 1000, () => this.advance(record.id));
		this.scheduledTransitions.set(record.id, cancel);
	}

	private requireCase(caseId: string): CaseRecord {
		const record = this.store.cases.get(caseId);
		if (!record) throw notFound(`No case ${caseId}`);
		return record;
	}
}

/** `jane+consider@example.com` ends every service of Jane's cases with `consider` (any final status works). */
function emailTagScript(email: string): CaseScript {
	const tag = /^[^@+]*\+([^@]+)@/.exec(email)?.[1];
	return isFinalCaseDataStatus(tag) ? { finalStatus: tag } : {};
}

function mergeScripts(base: CaseScript, override: CaseScript): CaseScript {
	return { ...base, ...override, services: { ...base.services, ...override.services } };
}

function checkedFinalStatus(value: unknown, path: string, problems: string[]): void {
	if (value !== undefined && !isFinalCaseDataStatus(value)) {
		problems.push(`${path} must be one of ${FINAL_CASE_DATA_STATUSES.join(', ')}`);
	}
}

function checkedScript(script: unknown): CaseScript {
	if (!isPlainObject(script)) throw badRequest('A script must be a JSON object');
	const problems: string[] = [];
	checkedFinalStatus(script.finalStatus, 'finalStatus', problems);
	if (script.holdAtStep !== undefined && ![1, 2, 3, 4].includes(script.holdAtStep as number)) {
		problems.push('holdAtStep must be 1, 2, 3 or 4');
	}
	if (
		script.stepSeconds !== undefined &&
		!(typeof script.stepSeconds === 'number' && script.stepSeconds > 0)
	) {
		problems.push('stepSeconds must be a positive number');
	}
	if (script.services !== undefined && !isPlainObject(script.services))
		problems.push('services must be an object');
	for (const [serviceId, serviceScript] of Object.entries(
		isPlainObject(script.services) ? script.services : {},
	)) {
		const path = `services.${serviceId}`;
		if (!isKnownServiceId(serviceId))
			problems.push(`${path}: ${serviceId} is not a known service ID`);
		if (!isPlainObject(serviceScript)) {
			problems.push(`${path} must be an object`);
			continue;
		}
		checkedFinalStatus(serviceScript.finalStatus, `${path}.finalStatus`, problems);
		const pendingIds = serviceScript.pendingStatusIds;
		if (
			pendingIds !== undefined &&
			!(Array.isArray(pendingIds) && pendingIds.every(isPendingStatusId))
		) {
			problems.push(
				`${path}.pendingStatusIds must be an array of the pending status IDs the API reference lists`,
			);
		}
	}
	if (problems.length > 0) throw badRequest(problems);
	return script as CaseScript;
}
