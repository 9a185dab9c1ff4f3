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
  const jobResult: TraceJobResult = {
    object: "crypto_asset_map",
    map_id: input.map_id ?? null,
    matter_id: row.matterId,
    ...assetMapFieldsOf(result),
  };
  assertStorable(jobResult, context.maxResultBytes ?? TRACE_RESULT_MAX_BYTES);
  return jobResult;
};

/**
 * The largest trace result a job keeps, as JSON. In the transaction that records it, it is parsed into
 * jsonb for the job and for its `job.completed` event (whose object is the job), and copied from the
 * job to the asset map. A jsonb value holds at most 256 MiB, and a map's jsonb is about 1.14 times its
 * JSON (measured): 128 MiB leaves room to spare.
 */
export const TRACE_RESULT_MAX_BYTES = 128 * 2 ** 20;

function sizeText(bytes: number): string {
  return bytes < 2 ** 20 ? `${bytes.toLocaleString("en")} bytes` : `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}

/** A map too large to store fails its job at once with a reason the caller can act on, instead of failing the write. */
function assertStorable(result: TraceJobResult, maxBytes: number): void {
  let size: string;
  try {
    const bytes = Buffer.byteLength(JSON.stringify(result));
    if (bytes <= maxBytes) return;
    size = `${sizeText(bytes)} as JSON`;
  } catch (error) {
    // V8's refusal to make a string that long; anything else is not about size.
    if (!(error instanceof RangeError && error.message === "Invalid string length")) throw error;
    size = "too long for one JSON text";
  }
  throw new JobRunError(
    "trace_result_too_large",
    `The trace's map is ${size} (${result.edge_count} edges, ${result.node_count} wallets and terminals), more than the ${sizeText(maxBytes)} a job's result may hold. Trace fewer wallets or fewer hops (max_hops).`,
    false,
  );
}

export const JOB_EXECUTORS: Record<JobRow["type"], JobExecutor> = {
  "crypto.trace": executeTraceJob,
};
