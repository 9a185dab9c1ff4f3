import { SANDBOX_GRANT, SANDBOX_SCOPE_LABEL, type SandboxKey } from "@crs/contract";
import { signApiKey } from "@crs/core";
import { schema } from "@crs/db";
import type { ServiceDeps } from "../context";
import { SANDBOX_RATE_LIMIT } from "../rate-limits/consume-token";
import { createOrganization } from "./create-organization";

/**
 * A new sandbox organization and its first key. The key is signed, shown once and never stored;
 * only its metadata row (for pinning and revocation) is kept. Not a tenant write (there is no
 * tenant yet, and nothing to record on a chain), so it runs its own transaction.
 */
export async function issueSandboxKey(
  deps: ServiceDeps,
  options: { kind: "sandbox" | "legacy_sandbox" } = { kind: "sandbox" },
): Promise<SandboxKey> {
  const { kind } = options;
  return deps.db.transaction(async (tx) => {
    const now = deps.clock();
    const organization = await createOrganization(tx, deps, {
      name: "Sandbox organization",
      environment: "sandbox",
      plan: "sandbox",
      rateLimit: SANDBOX_RATE_LIMIT,
    });
    const keyId = deps.newId("apiKey");
    await tx.insert(schema.apiKeys).values({
      organizationId: organization.id,
      id: keyId,
      environment: "sandbox",
      kind,
      scopes: [SANDBOX_GRANT],
      createdAt: now,
    });
    const key = signApiKey(
      kind,
      {
        kid: keyId,
        org: organization.id,
        env: "sandbox",
        grants: [SANDBOX_GRANT],
        iat: Math.floor(now.getTime() / 1000),
      },
      deps.keySigningSecret,
    );
    return {
      object: "sandbox_key",
      key,
      key_id: keyId,
      organization_id: organization.id,
      environment: "sandbox",
      scope: SANDBOX_SCOPE_LABEL,
      base_url: deps.publicBaseUrl,
      rate_limit: `${SANDBOX_RATE_LIMIT.perSecond} requests/second, burst ${SANDBOX_RATE_LIMIT.burst} per key`,
      note: "This key is shown once and cannot be recovered. Mint another if you lose it.",
      docs: `${deps.publicBaseUrl}/docs`,
    };
  });
}
