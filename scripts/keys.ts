/**
 * Operator commands for live keys (never exposed over the public API):
 *   pnpm keys:issue --plan operator --scopes all --org-name "Acme Recovery LLP"
 *   pnpm keys:issue --plan institutional --org org_… --scopes matters:read,events:read --rate 500 --burst 1000
 *   pnpm keys:revoke key_…
 * Reads DATABASE_URL and the same secrets as the apps (development: the local data folder).
 */
import { parseArgs } from "node:util";
import { AppError } from "@crs/contract";
import { issueLiveKey, parseEnvironment, revokeKey, SERVICE_ENV_FIELDS, startServiceDeps } from "@crs/services";
import { z } from "zod";

async function main(): Promise<number> {
  const [command, ...rest] = process.argv.slice(2);
  const env = parseEnvironment(SERVICE_ENV_FIELDS, process.env);
  const deps = await startServiceDeps({ ...env, DATABASE_POOL_SIZE: 1 }, (message) => console.warn(message));
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
        ...(values.rate || values.burst
          ? { rateLimit: { perSecond: Number(values.rate), burst: Number(values.burst) } }
          : {}),
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
    console.error(
      "usage: pnpm keys:issue [--plan operator|institutional] [--org org_… | --org-name NAME] [--scopes all|a,b] [--rate N --burst N]\n       pnpm keys:revoke <key_id>",
    );
    return 2;
  } catch (error) {
    console.error(
      error instanceof AppError
        ? `${error.code}: ${error.message}`
        : String(error instanceof Error ? error.message : error),
    );
    return 1;
  } finally {
    await deps.close();
  }
}

process.exitCode = await main();
