/**
 * Operator commands for live keys (never exposed over the public API):
 *   pnpm keys:issue --plan operator --scopes all --org-name "Acme Recovery LLP"
 *   pnpm keys:issue --plan institutional --org org_… --scopes matters:read,events:read --rate 500 --burst 1000
 *   pnpm keys:revoke key_…
 * Reads DATABASE_URL and the same secrets as the apps (development: the local data folder).
 */
import { parseArgs } from "node:util";
import { AppError } from "@crs/contract";
import { createServiceDeps, issueLiveKey, resolveSecrets, revokeKey } from "@crs/services";
import { z } from "zod";

const Env = z.object({
  DATABASE_URL: z.string().min(1, "DATABASE_URL is required: the database the service runs on"),
  APP_ENV: z.enum(["development", "production"]).default("development"),
  DATA_DIR: z.string().default(".data"),
  KEY_SIGNING_SECRET: z.string().min(32).optional(),
  EVENT_SIGNING_SEED: z.string().optional(),
  WEBHOOK_SECRET_KEY: z.string().optional(),
});

async function main(): Promise<number> {
  const [command, ...rest] = process.argv.slice(2);
  const env = Env.parse(process.env);
  const secrets = resolveSecrets(
    {
      appEnv: env.APP_ENV,
      dataDir: env.DATA_DIR,
      keySigningSecret: env.KEY_SIGNING_SECRET,
      eventSigningSeed: env.EVENT_SIGNING_SEED,
      webhookSecretKey: env.WEBHOOK_SECRET_KEY,
    },
    (message) => console.warn(message),
  );
  const deps = createServiceDeps({ databaseUrl: env.DATABASE_URL, secrets, poolSize: 1 });
  try {
    if (command === "issue") {
      const { values } = parseArgs({
        args: rest,
        options: {
          plan: { type: "string", default: "operator" },
          org: { type: "string" },
          "org-name": { type: "string" },
          scopes: { type: "string", default: "all" },
          rate: { type: "string" },
          burst: { type: "string" },
        },
      });
      const plan = z.enum(["operator", "institutional"]).parse(values.plan);
      const issued = await issueLiveKey(deps, {
        plan,
        scopes: values.scopes === "all" ? "all" : (values.scopes ?? "").split(",").filter(Boolean),
        ...(values.org ? { organizationId: values.org } : {}),
        ...(values["org-name"] ? { organizationName: values["org-name"] } : {}),
        ...(values.rate || values.burst ? { rateLimit: { perSecond: Number(values.rate), burst: Number(values.burst) } } : {}),
      });
      console.log(JSON.stringify(issued, null, 2));
      console.error("The key is shown once and is not stored. Hand it over securely.");
      return 0;
    }
    if (command === "revoke") {
      const keyId = rest[0];
      if (!keyId) throw new Error("usage: pnpm keys:revoke <key_id>");
      console.log(JSON.stringify(await revokeKey(deps, keyId), null, 2));
      return 0;
    }
    console.error("usage: pnpm keys:issue [--plan operator|institutional] [--org org_… | --org-name NAME] [--scopes all|a,b] [--rate N --burst N]\n       pnpm keys:revoke <key_id>");
    return 2;
  } catch (error) {
    console.error(error instanceof AppError ? `${error.code}: ${error.message}` : String(error instanceof Error ? error.message : error));
    return 1;
  } finally {
    await deps.close();
  }
}

process.exitCode = await main();
