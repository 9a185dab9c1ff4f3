import type { Environment } from "@crs/core";
import { schema, type Transaction } from "@crs/db";
import type { ServiceDeps } from "../context";
import type { RateLimitPolicy } from "../rate-limits/consume-token";

export type Plan = "sandbox" | "operator" | "institutional";

export async function createOrganization(
  tx: Transaction,
  deps: ServiceDeps,
  input: { name: string; environment: Environment; plan: Plan; rateLimit: RateLimitPolicy },
) {
  const [organization] = await tx
    .insert(schema.organizations)
    .values({
      id: deps.newId("organization"),
      name: input.name,
      environment: input.environment,
      plan: input.plan,
      ratePerSecond: input.rateLimit.perSecond,
      rateBurst: input.rateLimit.burst,
      createdAt: deps.clock(),
    })
    .returning();
  if (!organization) throw new Error("organization insert returned nothing");
  return organization;
}
