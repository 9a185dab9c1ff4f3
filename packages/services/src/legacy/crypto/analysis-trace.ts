import { AppError, type TraceJobInput } from "@crs/contract";
import type { TraceResult } from "@crs/core";
import type { WriteContext } from "../../context";
import {
  type AssetMapFields,
  assetMapFieldsOf,
  JobRunError,
  runTraceJob,
  traceSourceFor,
} from "../../crypto/run-trace-job";
import type { TraceSource } from "../../crypto/trace-providers";
import { checkTraceInput, type StoredTraceInput } from "../../jobs/trace-input";
import { assertMatterWritable } from "../../matters/assert-matter-writable";
import { readMatter } from "../../matters/load-matter";
import type { MatterRow } from "../../matters/present-matter";

/**
 * The bounds of a trace run within a request: far below an asset map job's (5,000 addresses, 50,000
 * transfers, 5 minutes), so an answer comes in seconds; a bound reached is reported, never hidden. The
 * trace runs on the request's event loop, so its time budget is also how long one call can hold up
 * the listener's other requests.
 */
export const ANALYSIS_LIMITS = { max_expansions: 500, max_edges: 20_000, time_budget_ms: 2_000 } as const;

/**
 * The caller's matter (404 otherwise), refused when closed (409) as an asset map on it would be. It is
 * read, not locked: the analyses write nothing to it, so they need not wait for, or hold up, its writes.
 */
export async function readAnalysisMatter(write: WriteContext, matterId: string): Promise<MatterRow> {
  const row = await readMatter(write.tx, write.actor, matterId, "matter_id");
  assertMatterWritable(row);
  return row;
}

function invalid(param: string, message: string): AppError {
  return new AppError("invalid_request", {
    message: `Invalid ${param} (${message}).`,
    param,
    details: { invalid: [{ param, message }] },
  });
}

/**
 * A trace that cannot run as asked is the caller's to fix (422); a provider that fails is ours (500,
 * not kept for the Idempotency-Key).
 */
export function answerTraceFailure(error: unknown): never {
  if (error instanceof JobRunError) {
    if (error.code === "invalid_trace_request") throw invalid("wallets", error.message);
    if (error.code === "chain_provider_not_configured" || error.code === "chain_not_served") {
      throw invalid("chains", error.message);
    }
  }
  throw error;
}

export interface AnalysisTrace {
  input: StoredTraceInput;
  result: TraceResult;
  fields: AssetMapFields;
}

/** The wallets, chain and hops as an asset map reads them: the same checks and defaults, the same 422s. */
export function analysisInput(
  write: WriteContext,
  body: Pick<TraceJobInput, "wallets" | "chains" | "max_hops">,
): StoredTraceInput {
  return checkTraceInput(
    {
      wallets: body.wallets,
      ...(body.chains ? { chains: body.chains } : {}),
      ...(body.max_hops !== undefined ? { max_hops: body.max_hops } : {}),
    },
    write.actor.environment,
  );
}

/** The chain source the trace will read (what an asset map's job would read), or the 422 it cannot. */
export function analysisSource(write: WriteContext, input: StoredTraceInput): TraceSource {
  try {
    return traceSourceFor(write.traceProviders, write.actor.environment, input.chains[0]);
  } catch (error) {
    answerTraceFailure(error);
  }
}

/**
 * Runs the trace an asset map of these wallets would run (the same input checks, defaults, chain
 * provider and engine, exchanges and stablecoins included) under ANALYSIS_LIMITS.
 */
export async function runAnalysisTrace(write: WriteContext, input: StoredTraceInput): Promise<AnalysisTrace> {
  let result: TraceResult;
  try {
    result = await runTraceJob(input, {
      environment: write.actor.environment,
      providers: write.traceProviders,
      tracedAt: write.clock(),
      signal: new AbortController().signal,
      timeBudgetMs: ANALYSIS_LIMITS.time_budget_ms,
      budget: { max_expansions: ANALYSIS_LIMITS.max_expansions, max_edges: ANALYSIS_LIMITS.max_edges },
    });
  } catch (error) {
    answerTraceFailure(error);
  }
  return { input, result, fields: assetMapFieldsOf(result) };
}

/** What every analysis answer says about the trace behind it. */
export function traceReport(matter: MatterRow, trace: AnalysisTrace) {
  const { result } = trace;
  return {
    matter_id: matter.id,
    livemode: matter.environment === "live",
    chain: result.chain,
    source: result.source,
    provider: result.provider,
    traced_at: result.traced_at,
    subjects: result.subjects,
    hops: result.hops,
    limits: {
      max_hops: result.max_hops,
      max_expansions: result.budget.max_expansions,
      max_edges: result.budget.max_edges,
      time_budget_ms: ANALYSIS_LIMITS.time_budget_ms,
    },
    truncated: result.truncated,
    truncation: trace.fields.truncation,
    block_range: trace.fields.block_range,
    source_manifest: trace.fields.source_manifest,
  };
}
