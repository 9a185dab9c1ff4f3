import type { CreateMatterBody, Matter } from "@crs/contract";
import { completeMatterEconomics } from "@crs/core";
import { schema, type Transaction } from "@crs/db";
import { writeStamp } from "../audit";
import type { Actor, ServiceDeps } from "../context";
import { recordEvent } from "../events/record-event";
import { presentMatter } from "./present-matter";

export async function createMatter(
  tx: Transaction,
  deps: ServiceDeps,
  actor: Actor,
  params: CreateMatterBody,
): Promise<Matter> {
  const now = deps.clock();
  const [row] = await tx
    .insert(schema.matters)
    .values({
      organizationId: actor.organizationId,
      environment: actor.environment,
      id: deps.newId("matter"),
      name: params.name,
      mode: params.mode,
      leadCounsel: params.lead_counsel ?? null,
      economics: { ...completeMatterEconomics(params.economics) },
      notes: params.notes ?? null,
      status: "active",
      createdAt: now,
      ...writeStamp(actor, now),
    })
    .returning();
  if (!row) throw new Error("matter insert returned nothing");
  const matter = presentMatter(row);
  await recordEvent(tx, deps, actor, {
    type: "matter.created",
    idField: "matter_id",
    object: matter,
    matterId: matter.id,
  });
  return matter;
}
