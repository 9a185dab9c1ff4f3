import type { TraceJobResult } from "@crs/contract";
import type { TraceJobContext } from "../crypto/run-trace-job";
import { assetMapFieldsOf, JobRunError, runTraceJob } from "../crypto/run-trace-job";
import type { JobRow } from "./present-job";
import type { StoredTraceInput } from "./trace-input";

export type JobExecutionContext = Omit<TraceJobContext, "environment">;

/** What a job of each type does, given its row; the result is what the job reports when it succeeds. */
export type JobExecutor = (row: JobRow, context: JobExecutionContext) => Promise<Record<string, unknown>>;

/** `crypto.trace`: the trace of the stored request, shaped as an asset map (with its map_id when a map asked for it). */
export const executeTraceJob = async (row: JobRow, context: JobExecutionContext): Promise<TraceJobResult> => {
  const input = row.input as unknown as StoredTraceInput & { kind?: string; map_id?: string };
  if (!Array.isArray(input.wallets) || !Array.isArray(input.chains)) {
    throw new JobRunError("invalid_trace_request", "The job's input is not a trace request.", false);
  }
  const result = await runTraceJob(input, { ...context, environment: row.environment });
  return {
    object: "crypto_asset_map",
    map_id: input.map_id ?? null,
    matter_id: row.matterId,
    ...assetMapFieldsOf(result),
  };
};

export const JOB_EXECUTORS: Record<JobRow["type"], JobExecutor> = {
  "crypto.trace": executeTraceJob,
};
