import { blankIsUnset, Port, parseEnvironment, SERVICE_ENV_FIELDS } from "@crs/services";

const REST_ENV_FIELDS = {
  ...SERVICE_ENV_FIELDS,
  LEGACY_PORT: blankIsUnset(Port.default(3002)),
};

/** The REST app's whole configuration, parsed once at start. */
export function parseRestEnv(source: Record<string, string | undefined> = process.env) {
  return parseEnvironment(REST_ENV_FIELDS, source);
}
export type RestEnv = ReturnType<typeof parseRestEnv>;
