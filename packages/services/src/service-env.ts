import { fileURLToPath } from "node:url";
import { DEFAULT_LEGACY_SUNSET } from "@crs/contract";
import { migrateDatabase } from "@crs/db";
import { z } from "zod";
import type { ServiceDeps } from "./context";
import { LOG_LEVELS } from "./request-log";
import { createServiceDeps, resolveSecrets } from "./runtime";
import { loadSanctionsListFile } from "./sanctions/load-sanctions-list";

/** Unset and empty are the same: `FOO=` in a compose file or .env must not mean a value. */
export const blankIsUnset = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === "" ? undefined : value), schema);

const hex32 = z.string().regex(/^[0-9a-f]{64}$/, "must be 64 lowercase hex characters");
export const Port = z.coerce.number().int().min(0).max(65535);

/** `LEGACY_SUNSET`: when the legacy (2026-06-11) listener's compatibility window closes. */
export const LegacySunset = z.iso
  .datetime({ offset: true, error: "must be an ISO 8601 instant with an offset, e.g. 2026-10-03T00:00:00Z" })
  .default(DEFAULT_LEGACY_SUNSET);

/** `<repo>/.data`, wherever a process is started from, so every app and command shares one folder. */
export const DEFAULT_DATA_DIR = fileURLToPath(new URL("../../../.data", import.meta.url));

/** The variables every process that runs service functions reads (see .env.example). */
export const SERVICE_ENV_FIELDS = {
  DATABASE_URL: z.string({ error: "DATABASE_URL is required (pnpm start sets it for you)" }).min(1),
  APP_ENV: blankIsUnset(z.enum(["development", "production"]).default("development")),
  DATA_DIR: blankIsUnset(z.string().default(DEFAULT_DATA_DIR)),
  KEY_SIGNING_SECRET: blankIsUnset(z.string().min(32, "must be at least 32 characters").optional()),
  EVENT_SIGNING_SEED: blankIsUnset(hex32.optional()),
  WEBHOOK_SECRET_KEY: blankIsUnset(hex32.optional()),
  SKIP_MIGRATIONS: blankIsUnset(z.enum(["0", "1"]).default("0")),
  DATABASE_POOL_SIZE: blankIsUnset(z.coerce.number().int().min(1).default(10)),
  HOST: blankIsUnset(z.string().default("127.0.0.1")),
  REST_PORT: blankIsUnset(Port.default(3000)),
  /** the origin REST clients use; every process needs it (download and doc URLs); default http://HOST:REST_PORT */
  PUBLIC_BASE_URL: blankIsUnset(z.string().url().optional()),
  /** the sanctions list live organizations are screened against (JSON lines); unset: none, and live screening finds nothing */
  SANCTIONS_LIST_PATH: blankIsUnset(z.string().optional()),
  /** one JSON line per request at info; warn or silent quiets them */
  LOG_LEVEL: blankIsUnset(z.enum(LOG_LEVELS).default("info")),
};

const ServiceEnv = z.object(SERVICE_ENV_FIELDS);
export type ServiceEnv = z.infer<typeof ServiceEnv>;

/** Parses an app's environment once, failing with every bad variable named. */
export function parseEnvironment<Shape extends z.ZodRawShape>(
  shape: Shape,
  source: Record<string, string | undefined>,
): z.infer<z.ZodObject<Shape>> {
  const result = z.object(shape).safeParse(source);
  if (!result.success) throw new Error(`Invalid environment:\n${z.prettifyError(result.error)}`);
  return result.data;
}

/**
 * Reads the sanctions list, migrates (unless SKIP_MIGRATIONS=1), resolves secrets and connects: the
 * start of every app. The list is read first, so a bad file stops the start before anything else.
 */
export async function startServiceDeps(
  env: ServiceEnv,
  warn: (message: string) => void,
): Promise<ServiceDeps & { close: () => Promise<void> }> {
  const liveSanctionsList = env.SANCTIONS_LIST_PATH ? loadSanctionsListFile(env.SANCTIONS_LIST_PATH) : null;
  // In development no live list is the norm; in production it is worth a line in the log (and capabilities say it).
  if (!liveSanctionsList && env.APP_ENV === "production") {
    warn("SANCTIONS_LIST_PATH is not set: parties of live organizations are not screened against any sanctions list.");
  }
  if (env.SKIP_MIGRATIONS !== "1") await migrateDatabase(env.DATABASE_URL);
  const secrets = resolveSecrets(
    {
      appEnv: env.APP_ENV,
      dataDir: env.DATA_DIR,
      keySigningSecret: env.KEY_SIGNING_SECRET,
      eventSigningSeed: env.EVENT_SIGNING_SEED,
      webhookSecretKey: env.WEBHOOK_SECRET_KEY,
    },
    warn,
  );
  return createServiceDeps({
    databaseUrl: env.DATABASE_URL,
    secrets,
    publicBaseUrl: publicBaseUrlOf(env),
    poolSize: env.DATABASE_POOL_SIZE,
    liveSanctionsList,
  });
}

export function publicBaseUrlOf(env: Pick<ServiceEnv, "PUBLIC_BASE_URL" | "HOST" | "REST_PORT">): string {
  return env.PUBLIC_BASE_URL ?? `http://${env.HOST}:${env.REST_PORT}`;
}
