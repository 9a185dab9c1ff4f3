import { AppError } from "@crs/contract";
import {
  checkResolvedAddresses,
  checkWebhookTarget,
  type Environment,
  WEBHOOK_TARGET_POLICIES,
  type WebhookTargetRefusal,
} from "@crs/core";
import type { ResolveHostname } from "./resolve-hostname";

/** How long creating or changing an endpoint waits for DNS before refusing the URL. */
export const TARGET_RESOLUTION_TIMEOUT_MS = 5_000;

function refusedTarget(param: string, message: string, refusal?: Pick<WebhookTargetRefusal, "reason">): AppError {
  return new AppError("invalid_request", {
    message: `Invalid ${param} (${message}).`,
    param,
    details: { invalid: [{ param, message }], ...(refusal ? { reason: refusal.reason } : {}) },
  });
}

/**
 * The target rules at create and update time: the environment's scheme, no credentials, no local-only
 * name, and every address the host resolves to in the allowed classes (live: public only). The same rules
 * run again at every delivery, against a fresh resolution, so a name re-pointed later is refused then.
 * Returns the URL as WHATWG parsing normalizes it; a refusal is 422 naming `param`.
 */
export async function vetWebhookTarget(
  url: string,
  environment: Environment,
  resolve: ResolveHostname,
  param = "url",
): Promise<string> {
  const policy = WEBHOOK_TARGET_POLICIES[environment];
  const target = checkWebhookTarget(url, environment, policy);
  if (!target.ok) throw refusedTarget(param, target.message, target);
  if (target.ipAddress !== null) return target.url;

  let addresses: readonly { address: string }[];
  let timer: NodeJS.Timeout | undefined;
  try {
    addresses = await Promise.race([
      resolve(target.hostname),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("timed out")), TARGET_RESOLUTION_TIMEOUT_MS);
      }),
    ]);
  } catch {
    throw refusedTarget(param, `the host ${target.hostname} could not be resolved`, { reason: "no_addresses" });
  } finally {
    clearTimeout(timer);
  }
  const vetted = checkResolvedAddresses(
    addresses.map((candidate) => candidate.address),
    policy,
  );
  if (!vetted.ok) throw refusedTarget(param, `${target.hostname}: ${vetted.message}`, vetted);
  return target.url;
}
