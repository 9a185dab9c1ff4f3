import type { TraceJobResult, TraceResultFields } from "@crs/contract";
import type { Environment, JobError, TraceBudget, TraceResult } from "@crs/core";
import { TraceRequestError, traceOutflows } from "@crs/core";
import type { StoredTraceInput } from "../jobs/trace-input";
import type { TraceProviders, TraceSource } from "./trace-providers";

/** A job run's failure with the code, message and retryability the job reports. */
export class JobRunError extends Error implements JobError {
  override readonly name = "JobRunError";
  constructor(
    readonly code: string,
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

export interface TraceJobContext {
  environment: Environment;
  providers: TraceProviders;
  /** the trace's timestamp (the worker's clock) */
  tracedAt: Date;
  signal: AbortSignal;
  /** the trace stops expanding after this long and reports itself truncated (default 5 minutes) */
  timeBudgetMs?: number;
  /** the engine's budgets (addresses opened, transfers read); default the engine's */
  budget?: TraceBudget;
  /** a job's result larger than this as JSON fails the job (default `TRACE_RESULT_MAX_BYTES`) */
  maxResultBytes?: number;
}

/** The trace fields of an asset map as the contract types them, plus the taint model a job's result names. */
export type AssetMapFields = TraceResultFields & Pick<TraceJobResult, "taint_model">;

/**
 * The trace fields of an asset map and of a `crypto.trace` job's result, from the engine's result. The
 * return type is the contract's: the compiler holds the engine's result to the documented schema.
 */
export function assetMapFieldsOf(result: TraceResult): AssetMapFields {
  return {
    chain: result.chain,
    source: result.source,
    provider: result.provider,
    traced_at: result.traced_at,
    hops: result.hops,
    max_hops: result.max_hops,
    subjects: result.subjects,
    wallets: result.wallets,
    edges: result.edges,
    flows: result.flows,
    terminals: result.terminals,
    edge_count: result.edge_count,
    node_count: result.node_count,
    exchange_hypotheses: result.exchange_hypotheses,
    token_exposures: result.token_exposures,
    stablecoin_exposure: result.stablecoin_exposures,
    totals: result.totals,
    truncated: result.truncated,
    truncation: result.truncation,
    block_range: result.block_range,
    taint_model: result.taint_model,
    source_manifest: result.sources,
  };
}

/**
 * The source an environment's traces read: the sandbox the synthetic chain, live the configured
 * provider. A live organization without one, or a chain the provider does not serve, fails at once
 * (not retryable).
 */
export function traceSourceFor(providers: TraceProviders, environment: Environment, chain: string): TraceSource {
  const source = environment === "sandbox" ? providers.sandbox() : providers.live;
  if (!source) {
    throw new JobRunError(
      "chain_provider_not_configured",
      "No chain data provider is configured for live traces (set CHAIN_RPC_URL and CHAIN_NETWORK on the worker).",
      false,
    );
  }
  if (source.provider.network !== chain) {
    throw new JobRunError(
      "chain_not_served",
      `The configured chain provider serves ${source.provider.network}, not ${chain}.`,
      false,
    );
  }
  return source;
}

/**
 * Runs the trace a `crypto.trace` job asks for: the sandbox reads the synthetic chain, live the
 * configured provider; a live organization without one fails at once (not retryable). A provider
 * error is retryable; a request the engine refuses is not.
 */
export async function runTraceJob(input: StoredTraceInput, context: TraceJobContext): Promise<TraceResult> {
  const chain = input.chains[0];
  const source = traceSourceFor(context.providers, context.environment, chain);
  const started = Date.now();
  const budgetMs = context.timeBudgetMs ?? 5 * 60_000;
  try {
    return await traceOutflows(
      {
        network: chain,
        subjects: input.wallets.map((wallet) => ({
          address: wallet.address,
          incident_block: BigInt(wallet.incident_block),
          source_refs: input.source_refs.map((ref) => ({
            source_id: String(ref.source_id),
            // A client may leave the type out (it is optional wherever source refs are sent).
            source_type: typeof ref.source_type === "string" ? ref.source_type : "unspecified",
            title: typeof ref.title === "string" ? ref.title : String(ref.source_id),
            uri: typeof ref.uri === "string" ? ref.uri : null,
            hash: typeof ref.hash === "string" ? ref.hash : null,
          })),
        })),
        max_hops: input.max_hops,
        traced_at: context.tracedAt.toISOString(),
        include_exchanges: input.include_exchanges,
        include_stablecoins: input.include_stablecoins,
        ...(source.prices ? { prices: source.prices } : {}),
      },
      {
        provider: source.provider,
        ...(source.graph ? { graph: source.graph } : {}),
        ...(source.labels ? { labels: source.labels } : {}),
        ...(source.issuers ? { issuers: source.issuers } : {}),
        ...(context.budget ? { budget: context.budget } : {}),
        // Wall time, not the injected clock: the budget bounds this run's work.
        deadlineReached: () => Date.now() - started > budgetMs,
        signal: context.signal,
      },
    );
  } catch (error) {
    if (context.signal.aborted) throw error;
    if (error instanceof TraceRequestError) throw new JobRunError("invalid_trace_request", error.message, false);
    throw new JobRunError(
      "chain_provider_error",
      `The chain provider failed: ${error instanceof Error ? error.message : String(error)}`,
      true,
    );
  }
}
