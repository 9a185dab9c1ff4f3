import { blankIsUnset, Port, parseEnvironment, SERVICE_ENV_FIELDS } from "@crs/services";

const TRPC_ENV_FIELDS = { ...SERVICE_ENV_FIELDS, TRPC_PORT: blankIsUnset(Port.default(3001)) };

/** The tRPC app's whole configuration, parsed once at start. */
export function parseTrpcEnv(source: Record<string, string | undefined> = process.env) {
  return parseEnvironment(TRPC_ENV_FIELDS, source);
}
export type TrpcEnv = ReturnType<typeof parseTrpcEnv>;
