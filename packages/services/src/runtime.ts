import { eventSigningKeyFromSeed, SANDBOX_SANCTIONS_LIST } from "@crs/core";
import { connectDatabase, loadOrCreateDevSecrets, newId, type ServiceSecrets } from "@crs/db";
import type { SanctionsLists, ServiceDeps } from "./context";
import { releaseBucketLeases } from "./rate-limits/consume-token";
import { type ResolveHostname, resolveWithSystemResolver } from "./webhooks/resolve-hostname";

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
  publicBaseUrl: string;
  poolSize?: number;
  clock?: () => Date;
  /** the live organizations' list (SANCTIONS_LIST_PATH); omitted or null: none configured */
  liveSanctionsList?: SanctionsLists["live"];
  /** default: the system resolver; tests inject one so no test asks a real DNS server */
  resolveHostname?: ResolveHostname;
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
    publicBaseUrl: options.publicBaseUrl.replace(/\/+$/, ""),
    sanctionsLists: { sandbox: SANDBOX_SANCTIONS_LIST, live: options.liveSanctionsList ?? null },
    webhookSecretKey: webhookSecretKeyFromHex(options.secrets.webhookSecretKey),
    resolveHostname: options.resolveHostname ?? resolveWithSystemResolver,
    close: async () => {
      // Unspent rate-limit tokens go back to their buckets; if that fails they come back at the lease's expiry.
      await releaseBucketLeases(client).catch(() => undefined);
      await close();
    },
  };
}

function webhookSecretKeyFromHex(hex: string): Buffer {
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error("WEBHOOK_SECRET_KEY must be 64 lowercase hex characters (32 bytes)");
  return Buffer.from(hex, "hex");
}
