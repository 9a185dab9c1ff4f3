import { blankIsUnset, LegacySunset, Port, parseEnvironment, SERVICE_ENV_FIELDS } from "@crs/services";
import { z } from "zod";

const REST_ENV_FIELDS = {
  ...SERVICE_ENV_FIELDS,
  /** the legacy (2026-06-11) listener's port */
  LEGACY_PORT: blankIsUnset(Port.default(3002)),
  /** the origin legacy clients use (their keys' base_url); default http://HOST:LEGACY_PORT */
  LEGACY_PUBLIC_BASE_URL: blankIsUnset(z.string().url().optional()),
  /** when the legacy compatibility window closes (an ISO 8601 instant with its offset) */
  LEGACY_SUNSET: blankIsUnset(LegacySunset),
};

/** The REST app's whole configuration, parsed once at start. */
export function parseRestEnv(source: Record<string, string | undefined> = process.env) {
  return parseEnvironment(REST_ENV_FIELDS, source);
}
export type RestEnv = ReturnType<typeof parseRestEnv>;

export function legacyBaseUrlOf(env: Pick<RestEnv, "LEGACY_PUBLIC_BASE_URL" | "HOST" | "LEGACY_PORT">): string {
  return (env.LEGACY_PUBLIC_BASE_URL ?? `http://${env.HOST}:${env.LEGACY_PORT}`).replace(/\/+$/, "");
}
