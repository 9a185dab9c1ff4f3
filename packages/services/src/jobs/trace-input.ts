import { AppError, type TraceJobInput } from "@crs/contract";
import { DEFAULT_MAX_HOPS, type Environment, unusableCaseSourceRef } from "@crs/core";

/** The chain sandbox traces read: the built-in seeded synthetic chain. */
export const SANDBOX_CHAIN = "synthetic:eth";
/** The chain a live trace reads when the request names none. */
export const DEFAULT_LIVE_CHAIN = "ethereum";
const LIVE_CHAIN = /^(ethereum|evm:[1-9][0-9]{0,9})$/;

/** A trace request as stored on the job: every default filled in, so a retry reads exactly the same request. */
export interface StoredTraceInput {
  wallets: Array<{ address: string; incident_block: number }>;
  chains: [string];
  max_hops: number;
  direction: "outflow";
  include_stablecoins: boolean;
  include_exchanges: boolean;
  source_refs: Array<Record<string, unknown>>;
}

function invalid(param: string, message: string, allowed?: readonly string[]): AppError {
  return new AppError("invalid_request", {
    message: `Invalid ${param} (${message}).`,
    param,
    details: { invalid: [{ param, message, ...(allowed ? { allowed } : {}) }], ...(allowed ? { allowed } : {}) },
  });
}

/**
 * Fills the defaults and checks what the schema cannot: the chain this environment may trace, no
 * address listed twice, and source refs the map's source manifest can hold (each id once, none in the
 * form of the ids the trace gives its own sources). `prefix` names the fields as the caller sent them
 * (`input.` for POST /v1/jobs).
 */
export function checkTraceInput(
  input: Omit<TraceJobInput, "direction"> & { direction?: "outflow" | undefined },
  environment: Environment,
  prefix = "",
): StoredTraceInput {
  const chain = input.chains?.[0] ?? (environment === "sandbox" ? SANDBOX_CHAIN : DEFAULT_LIVE_CHAIN);
  if (environment === "sandbox" && chain !== SANDBOX_CHAIN) {
    throw invalid(`${prefix}chains.0`, `sandbox traces read the synthetic chain: must be ${SANDBOX_CHAIN}`, [
      SANDBOX_CHAIN,
    ]);
  }
  if (environment === "live" && !LIVE_CHAIN.test(chain)) {
    throw invalid(`${prefix}chains.0`, "must be ethereum or evm:<chain id>");
  }
  const seen = new Set<string>();
  const wallets = input.wallets.map((wallet, index) => {
    const entry = typeof wallet === "string" ? { address: wallet } : wallet;
    const address = entry.address.toLowerCase();
    if (seen.has(address)) throw invalid(`${prefix}wallets.${index}`, "lists an address already listed");
    seen.add(address);
    return { address, incident_block: entry.incident_block ?? 0 };
  });
  const unusable = unusableCaseSourceRef(input.source_refs ?? []);
  if (unusable) throw invalid(`${prefix}source_refs.${unusable.index}.source_id`, unusable.message);
  return {
    wallets,
    chains: [chain],
    max_hops: input.max_hops ?? DEFAULT_MAX_HOPS,
    direction: "outflow",
    include_stablecoins: input.include_stablecoins ?? true,
    include_exchanges: input.include_exchanges ?? true,
    source_refs: (input.source_refs ?? []).map((ref) => ({ ...ref })),
  };
}
