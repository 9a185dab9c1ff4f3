import { blankIsUnset, parseEnvironment, SERVICE_ENV_FIELDS } from "@crs/services";
import { z } from "zod";

/** The same fields as every app (database, secrets, data folder), plus the worker's own. */
const WORKER_ENV_FIELDS = {
  ...SERVICE_ENV_FIELDS,
  /** jobs this process runs at once */
  WORKER_CONCURRENCY: blankIsUnset(z.coerce.number().int().min(1).max(100).default(5)),
  /** live traces: an EVM JSON-RPC endpoint (unset: live traces fail with chain_provider_not_configured) */
  CHAIN_RPC_URL: blankIsUnset(z.string().url().optional()),
  /** the chain CHAIN_RPC_URL serves: `ethereum` or `evm:<chain id>` */
  CHAIN_NETWORK: blankIsUnset(
    z
      .string()
      .regex(/^(ethereum|evm:[1-9][0-9]{0,9})$/, "must be ethereum or evm:<chain id>")
      .default("ethereum"),
  ),
  /** `trace_filter` when the node offers it (native value transfers), `off` otherwise (tokens only) */
  CHAIN_NATIVE_TRANSFERS: blankIsUnset(z.enum(["trace_filter", "off"]).default("trace_filter")),
  /** label files (format crs-labels/1), separated by commas: exchange and service attributions for live traces */
  CHAIN_LABEL_FILES: blankIsUnset(z.string().optional()),
  /** issuer-controls files (format crs-issuers/1), separated by commas: stablecoins beyond the built-in registry */
  CHAIN_ISSUER_FILES: blankIsUnset(z.string().optional()),
};

/** The worker's whole configuration, parsed once at startup. The only reader of process.env in this app. */
export function parseWorkerEnv(source: Record<string, string | undefined> = process.env) {
  return parseEnvironment(WORKER_ENV_FIELDS, source);
}
export type WorkerEnv = ReturnType<typeof parseWorkerEnv>;
