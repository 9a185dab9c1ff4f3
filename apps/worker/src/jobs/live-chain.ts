import { createLabelStore, EvmRpcProvider } from "@crs/chain";
import { createIssuerRegistry } from "@crs/core";
import type { TraceSource } from "@crs/services";
import type { WorkerEnv } from "../env";

/**
 * The live organizations' trace source from the worker's environment: the EVM JSON-RPC provider at
 * CHAIN_RPC_URL and the label files of CHAIN_LABEL_FILES; null when no provider is configured.
 * Source refs name the endpoint by host only, so a key in the URL's path or query never reaches a result.
 */
export async function liveTraceSourceFromEnv(
  env: Pick<WorkerEnv, "CHAIN_RPC_URL" | "CHAIN_NETWORK" | "CHAIN_NATIVE_TRANSFERS" | "CHAIN_LABEL_FILES">,
): Promise<TraceSource | null> {
  if (!env.CHAIN_RPC_URL) return null;
  const files = (env.CHAIN_LABEL_FILES ?? "")
    .split(",")
    .map((path) => path.trim())
    .filter((path) => path.length > 0);
  return {
    provider: new EvmRpcProvider({
      url: env.CHAIN_RPC_URL,
      network: env.CHAIN_NETWORK,
      nativeTransfers: env.CHAIN_NATIVE_TRANSFERS,
    }),
    labels: await createLabelStore({ files }),
    issuers: createIssuerRegistry(),
  };
}
