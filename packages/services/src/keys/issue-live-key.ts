import { AppError, isScope, PRIVILEGED_SCOPES, SCOPES } from "@crs/contract";
import { signApiKey } from "@crs/core";
import { schema } from "@crs/db";
import { eq } from "drizzle-orm";
import { keyMetadataCacheFor } from "../auth/key-cache";
import type { ServiceDeps } from "../context";
import { OPERATOR_RATE_LIMIT, type RateLimitPolicy } from "../rate-limits/consume-token";
import { createOrganization, type Plan } from "./create-organization";

export interface IssueLiveKeyInput {
  /** an existing live organization, or omit to create one named `organizationName` */
  organizationId?: string;
  organizationName?: string;
  plan: Exclude<Plan, "sandbox">;
  /** explicit scopes; `all` grants every non-privileged scope */
  scopes: string[] | "all";
  /** required for the institutional plan (custom rate) */
  rateLimit?: RateLimitPolicy;
}

/** Operator command: issues a live key (never over the public API). */
export async function issueLiveKey(deps: ServiceDeps, input: IssueLiveKeyInput) {
  const scopes = input.scopes === "all" ? [...SCOPES] : input.scopes;
  const unknown = scopes.filter((s) => !isScope(s));
  if (unknown.length) {
    throw new AppError("invalid_request", {
      message: `Unknown scopes: ${unknown.join(", ")}.`,
      param: "scopes",
      details: { allowed: [...SCOPES, ...PRIVILEGED_SCOPES] },
    });
  }
  if (scopes.length === 0)
    throw new AppError("invalid_request", { message: "Give at least one scope.", param: "scopes" });
  const rateLimit = input.plan === "institutional" ? input.rateLimit : OPERATOR_RATE_LIMIT;
  if (!rateLimit || !(rateLimit.perSecond > 0) || !(rateLimit.burst >= 1)) {
    throw new AppError("invalid_request", {
      message: "The institutional plan needs a custom rate limit (per second > 0, burst >= 1).",
      param: "rate_limit",
    });
  }
  const issued = await deps.db.transaction(async (tx) => {
    let organizationId = input.organizationId;
    if (organizationId) {
      const [organization] = await tx
        .select()
        .from(schema.organizations)
        .where(eq(schema.organizations.id, organizationId));
      if (organization?.environment !== "live") {
        throw new AppError("not_found", {
          message: `No such live organization: '${organizationId}'.`,
          param: "organization",
        });
      }
      await tx
        .update(schema.organizations)
        .set({ plan: input.plan, ratePerSecond: rateLimit.perSecond, rateBurst: rateLimit.burst })
        .where(eq(schema.organizations.id, organizationId));
    } else {
      const organization = await createOrganization(tx, deps, {
        name: input.organizationName ?? "Live organization",
        environment: "live",
        plan: input.plan,
        rateLimit,
      });
      organizationId = organization.id;
    }
    const now = deps.clock();
    const keyId = deps.newId("apiKey");
    await tx.insert(schema.apiKeys).values({
      organizationId,
      id: keyId,
      environment: "live",
      kind: "live",
      scopes,
      createdAt: now,
    });
    const key = signApiKey(
      "live",
      { kid: keyId, org: organizationId, env: "live", grants: scopes, iat: Math.floor(now.getTime() / 1000) },
      deps.keySigningSecret,
    );
    return { key, key_id: keyId, organization_id: organizationId, scopes, plan: input.plan, rate_limit: rateLimit };
  });
  // The organization's new rate holds for its keys in this process at once; other processes hear the trigger.
  if (input.organizationId) keyMetadataCacheFor(deps.sql).invalidate(`org:${input.organizationId}`);
  return issued;
}
