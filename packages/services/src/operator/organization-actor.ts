import { notFound } from "@crs/contract";
import { isIdOf } from "@crs/core";
import { schema } from "@crs/db";
import { eq } from "drizzle-orm";
import type { Actor, ServiceDeps } from "../context";
import { systemActor } from "../system-actor";

/**
 * The service acting for an organization on an operator's command line (no key): its events and writes
 * carry `system:<command>` as the actor and a fresh request id as audit_ref.
 */
export async function organizationActor(deps: ServiceDeps, organizationId: string, command: string): Promise<Actor> {
  if (!isIdOf("org", organizationId)) throw notFound("organization", organizationId, "org");
  const [organization] = await deps.db
    .select({ id: schema.organizations.id, environment: schema.organizations.environment })
    .from(schema.organizations)
    .where(eq(schema.organizations.id, organizationId));
  if (!organization) throw notFound("organization", organizationId, "org");
  return systemActor(
    { organizationId: organization.id, environment: organization.environment },
    command,
    deps.newId("request"),
  );
}
