import { blankIsUnset, Port, parseEnvironment, SERVICE_ENV_FIELDS } from "@crs/services";
import { z } from "zod";

const REST_ENV_FIELDS = {
  ...SERVICE_ENV_FIELDS,
  REST_PORT: blankIsUnset(Port.default(3000)),
  LEGACY_PORT: blankIsUnset(Port.default(3002)),
  PUBLIC_BASE_URL: blankIsUnset(z.string().url().optional()),
  LOG_LEVEL: blankIsUnset(z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info")),
};

/** The REST app's whole configuration, parsed once at start. */
export function parseRestEnv(source: Record<string, string | undefined> = process.env) {
  return parseEnvironment(REST_ENV_FIELDS, source);
}
export type RestEnv = ReturnType<typeof parseRestEnv>;
