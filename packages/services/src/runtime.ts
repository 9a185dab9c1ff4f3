import { eventSigningKeyFromSeed } from "@crs/core";
import { connectDatabase, loadOrCreateDevSecrets, newId, type ServiceSecrets } from "@crs/db";
import type { ServiceDeps } from "./context";

export interface SecretSettings {
  appEnv: "development" | "production";
  dataDir: string;
  keySigningSecret?: string | undefined;
  eventSigningSeed?: string | undefined;
  webhookSecretKey?: string | undefined;
}

/**
 * Production takes every secret from the environment and refuses to start without them.
 * Development fills the missing ones from the local data folder (generated once), with a warning.
 */
export function resolveSecrets(settings: SecretSettings, warn: (message: string) => void): ServiceSecrets {
  const given = {
    keySigningSecret: settings.keySigningSecret,
    eventSigningSeed: settings.eventSigningSeed,
    webhookSecretKey: settings.webhookSecretKey,
  };
  const missing = Object.entries(given)
    .filter(([, value]) => !value)
    .map(([name]) => name);
  if (missing.length === 0) return given as ServiceSecrets;
  const names = missing.map((m) => m.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase());
  if (settings.appEnv === "production") {
    throw new Error(`APP_ENV=production needs these secrets in the environment: ${names.join(", ")}`);
  }
  const { secrets, created } = loadOrCreateDevSecrets(settings.dataDir);
  warn(
    `Development secrets ${created ? "generated" : "loaded"} from ${settings.dataDir}/dev-secrets.json for ${names.join(", ")}; set them in the environment for production.`,
  );
  return {
    keySigningSecret: given.keySigningSecret ?? secrets.keySigningSecret,
    eventSigningSeed: given.eventSigningSeed ?? secrets.eventSigningSeed,
    webhookSecretKey: given.webhookSecretKey ?? secrets.webhookSecretKey,
  };
}

/** Connects to the database and assembles what service functions need. */
export function createServiceDeps(options: {
  databaseUrl: string;
  secrets: ServiceSecrets;
  poolSize?: number;
  clock?: () => Date;
}): ServiceDeps & { close: () => Promise<void> } {
  const { client, db, close } = connectDatabase(options.databaseUrl, { max: options.poolSize ?? 10 });
  const clock = options.clock ?? (() => new Date());
  return {
    db,
    sql: client,
    clock,
    newId: (kind) => newId(kind, clock().getTime()),
    eventSigningKey: eventSigningKeyFromSeed(options.secrets.eventSigningSeed),
    keySigningSecret: options.secrets.keySigningSecret,
    close,
  };
}
