/**
 * Operator commands for webhooks, against the service's database and secrets (the same variables as the
 * apps; development: the local data folder). They act for one organization, sandbox or live, with no key:
 *   pnpm webhooks:fallback --org org_… --url https://hooks.example.com/all-events
 *   pnpm webhooks:fallback --org org_… --clear
 *   pnpm webhooks:redeliver --org org_… whd_…
 * Output is one JSON object (snake_case); errors go to stderr with a non-zero exit code.
 */
import { parseArgs } from "node:util";
import { AppError } from "@crs/contract";
import {
  organizationActor,
  parseEnvironment,
  redeliverWebhook,
  runWrite,
  SERVICE_ENV_FIELDS,
  setWebhookFallback,
  startServiceDeps,
} from "@crs/services";

const USAGE = `usage:
  pnpm webhooks:fallback --org org_… --url <url>   set the organization's fallback URL (prints its signing secret, once)
  pnpm webhooks:fallback --org org_… --clear       clear it (fallback deliveries still waiting end as dead)
  pnpm webhooks:redeliver --org org_… whd_…        send a dead delivery again

The fallback URL receives every event while the organization has no webhook endpoint. It follows the
endpoints' target rules: live organizations need https and a host that resolves to public addresses only.
Reads DATABASE_URL and the service secrets (WEBHOOK_SECRET_KEY encrypts the signing secret).`;

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    args: process.argv.slice(2),
    allowPositionals: true,
    options: {
      org: { type: "string" },
      url: { type: "string" },
      clear: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || (command !== "fallback" && command !== "redeliver")) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  if (!values.org) {
    console.error("--org org_… is required\n");
    console.error(USAGE);
    return 2;
  }
  if (command === "fallback" && values.clear === (values.url !== undefined)) {
    console.error("give exactly one of --url <url> or --clear\n");
    console.error(USAGE);
    return 2;
  }
  if (command === "redeliver" && rest.length !== 1) {
    console.error("give the delivery id (whd_…)\n");
    console.error(USAGE);
    return 2;
  }

  const env = parseEnvironment(SERVICE_ENV_FIELDS, process.env);
  const deps = await startServiceDeps({ ...env, DATABASE_POOL_SIZE: 1 }, (message) => console.warn(message));
  try {
    const actor = await organizationActor(deps, values.org, `webhooks:${command}`);
    const result =
      command === "fallback"
        ? await runWrite(deps, actor, (write) =>
            setWebhookFallback(write, { params: {}, body: { url: values.clear ? null : (values.url ?? null) } }),
          )
        : await runWrite(deps, actor, (write) =>
            redeliverWebhook(write, { params: {}, body: { webhook_delivery_id: rest[0] ?? "" } }),
          );
    console.log(JSON.stringify(result, null, 2));
    if (command === "fallback" && !values.clear) {
      console.error("The signing secret is shown once and stored only encrypted. Hand it over securely.");
    }
    return 0;
  } catch (error) {
    console.error(
      error instanceof AppError
        ? `${error.code}: ${error.message}`
        : error instanceof Error
          ? error.message
          : String(error),
    );
    return 1;
  } finally {
    await deps.close();
  }
}

process.exitCode = await main();
