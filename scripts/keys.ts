/**
 * Operator commands for live keys (never exposed over the public API):
 *   pnpm keys:issue --plan operator --scopes all --org-name "Acme Recovery LLP"
 *   pnpm keys:issue --plan institutional --org org_… --scopes matters:read,events:read --rate 500 --burst 1000
 *   pnpm keys:revoke key_…
 * Reads DATABASE_URL and the same secrets as the apps (development: the local data folder). Prints
 * JSON in the API's snake_case; `--help` on either command explains it without touching the database.
 */
import { parseArgs } from "node:util";
import { AppError, SCOPES } from "@crs/contract";
import { assertDatabaseReachable, describeStartupError } from "@crs/db/startup-errors";
import { issueLiveKey, parseEnvironment, revokeKey, SERVICE_ENV_FIELDS, startServiceDeps } from "@crs/services";
import { z } from "zod";

const ISSUE_HELP = `Usage: pnpm keys:issue [options]

Issues a live key (svc_live_…) and prints it once, as JSON:
  {"key", "key_id", "organization_id", "scopes", "plan", "rate_limit": {"per_second", "burst"}}
The key is not stored anywhere: hand it over securely.

Options:
  --plan operator|institutional   default operator (100 requests/s, burst 200)
  --org org_…                     an existing live organization (its plan and rate are updated)
  --org-name NAME                 a new live organization with this name (when --org is not given)
  --scopes all|a,b,…              default all (every scope but the privileged operator:write);
                                  all,operator:write adds it (an operator of the internal API)
  --rate N --burst N              requests per second and burst; required for institutional
  -h, --help                      this text

Scopes: ${SCOPES.join(", ")}, operator:write.

Environment: DATABASE_URL (required), APP_ENV, KEY_SIGNING_SECRET (the apps' own; in development
the generated one in DATA_DIR/dev-secrets.json). Exit status: 0 issued, 1 refused or failed, 2 usage.`;

const REVOKE_HELP = `Usage: pnpm keys:revoke <key_id>

Revokes a key by its id (key_…): every later request with it gets 401 unauthenticated.
Prints {"key_id", "organization_id", "revoked_at"}; revoking a revoked key prints its first revocation.

Environment: DATABASE_URL (required). Exit status: 0 revoked, 1 unknown key or failed, 2 usage.`;

const USAGE = "usage: pnpm keys:issue [--help | options] | pnpm keys:revoke [--help | <key_id>]";

class UsageError extends Error {}

type Command =
  | { kind: "help"; text: string }
  | { kind: "issue"; input: Parameters<typeof issueLiveKey>[1] }
  | { kind: "revoke"; keyId: string };

function parseCommand(argv: string[]): Command {
  const [command, ...rest] = argv;
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
        help: { type: "boolean", short: "h" },
      },
    });
    if (values.help) return { kind: "help", text: ISSUE_HELP };
    const plan = z.enum(["operator", "institutional"]).safeParse(values.plan);
    if (!plan.success) throw new UsageError(`--plan must be operator or institutional, not '${values.plan}'`);
    return {
      kind: "issue",
      input: {
        plan: plan.data,
        // `all` in a list stands for every non-privileged scope: `all,operator:write` adds the privileged one.
        scopes:
          values.scopes === "all"
            ? "all"
            : (values.scopes ?? "")
                .split(",")
                .filter(Boolean)
                .flatMap((scope) => (scope === "all" ? [...SCOPES] : [scope])),
        ...(values.org ? { organizationId: values.org } : {}),
        ...(values["org-name"] ? { organizationName: values["org-name"] } : {}),
        ...(values.rate || values.burst
          ? { rateLimit: { perSecond: Number(values.rate), burst: Number(values.burst) } }
          : {}),
      },
    };
  }
  if (command === "revoke") {
    const { values, positionals } = parseArgs({
      args: rest,
      options: { help: { type: "boolean", short: "h" } },
      allowPositionals: true,
    });
    if (values.help) return { kind: "help", text: REVOKE_HELP };
    const [keyId, ...extra] = positionals;
    if (!keyId || extra.length > 0) throw new UsageError("give exactly one key id (key_…)");
    return { kind: "revoke", keyId };
  }
  throw new UsageError(command ? `unknown command '${command}'` : "no command");
}

/** The API's wire form: snake_case, ISO timestamps. */
function issuedKeyJson(issued: Awaited<ReturnType<typeof issueLiveKey>>) {
  return {
    key: issued.key,
    key_id: issued.key_id,
    organization_id: issued.organization_id,
    scopes: issued.scopes,
    plan: issued.plan,
    rate_limit: { per_second: issued.rate_limit.perSecond, burst: issued.rate_limit.burst },
  };
}

function revokedKeyJson(revoked: Awaited<ReturnType<typeof revokeKey>>) {
  return {
    key_id: revoked.keyId,
    organization_id: revoked.organizationId,
    revoked_at: revoked.revokedAt ? revoked.revokedAt.toISOString() : null,
  };
}

async function main(): Promise<number> {
  let command: Command;
  try {
    command = parseCommand(process.argv.slice(2));
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 2;
  }
  if (command.kind === "help") {
    console.log(command.text);
    return 0;
  }

  let deps: Awaited<ReturnType<typeof startServiceDeps>>;
  try {
    const env = parseEnvironment(SERVICE_ENV_FIELDS, process.env);
    await assertDatabaseReachable(env.DATABASE_URL);
    deps = await startServiceDeps({ ...env, DATABASE_POOL_SIZE: 1 }, (message) => console.warn(message));
  } catch (error) {
    console.error(`not done: ${describeStartupError(error)}`);
    return 1;
  }
  try {
    if (command.kind === "issue") {
      console.log(JSON.stringify(issuedKeyJson(await issueLiveKey(deps, command.input)), null, 2));
      console.error("The key is shown once and is not stored. Hand it over securely.");
    } else {
      console.log(JSON.stringify(revokedKeyJson(await revokeKey(deps, command.keyId)), null, 2));
    }
    return 0;
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
