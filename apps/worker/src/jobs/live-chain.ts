import { createIssuerStore, createLabelStore, EvmRpcProvider } from "@crs/chain";
import type { TraceSource } from "@crs/services";
import type { WorkerEnv } from "../env";

/**
 * The live organizations' trace source from the worker's environment: the EVM JSON-RPC provider at
 * CHAIN_RPC_URL, the label files of CHAIN_LABEL_FILES and the issuer-controls files of CHAIN_ISSUER_FILES
 * (beside the built-in registry); null when no provider is configured. A file that cannot be read stops the start.
 * Source refs name the endpoint by host only, so a key in the URL's path or query never reaches a result.
 */
export async function liveTraceSourceFromEnv(
  env: Pick<
    WorkerEnv,
    "CHAIN_RPC_URL" | "CHAIN_NETWORK" | "CHAIN_NATIVE_TRANSFERS" | "CHAIN_LABEL_FILES" | "CHAIN_ISSUER_FILES"
  >,
): Promise<TraceSource | null> {
  if (!env.CHAIN_RPC_URL) return null;
  return {
    provider: new EvmRpcProvider({
      url: env.CHAIN_RPC_URL,
      network: env.CHAIN_NETWORK,
      nativeTransfers: env.CHAIN_NATIVE_TRANSFERS,
    }),
    labels: await createLabelStore({ files: fileList(env.CHAIN_LABEL_FILES) }),
    issuers: await createIssuerStore({ files: fileList(env.CHAIN_ISSUER_FILES) }),
  };
}

function fileList(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((path) => path.trim())
    .filter((path) => path.length > 0);
}
