import type { Matter, UpdateMatterBody } from "@crs/contract";
import { canonicalize, type MatterEconomics, mergeMatterEconomics } from "@crs/core";
import { schema, type Transaction } from "@crs/db";
import { and, eq } from "drizzle-orm";
import { writeStamp } from "../audit";
import type { Actor, ServiceDeps } from "../context";
import { recordEvent } from "../events/record-event";
import { assertMatterWritable } from "./assert-matter-writable";
import { lockMatter } from "./load-matter";
import { presentMatter } from "./present-matter";

export async function updateMatter(
  tx: Transaction,
  deps: ServiceDeps,
  actor: Actor,
  matterId: string,
  params: UpdateMatterBody,
): Promise<Matter> {
  const current = await lockMatter(tx, actor, matterId);
  assertMatterWritable(current);
  const before = presentMatter(current);
  const requested = {
    name: params.name,
    status: params.status,
    leadCounsel: params.lead_counsel,
    notes: params.notes,
    retentionPolicy: params.retention_policy,
    economics:
      params.economics === undefined
        ? undefined
        : mergeMatterEconomics(current.economics as unknown as MatterEconomics, params.economics),
  };
  // Only fields whose value really changes are written; a PATCH that changes nothing writes nothing
  // and appends no event, so the chain records changes, not requests.
  const changes = Object.fromEntries(
    Object.entries(requested).filter(
      ([field, value]) =>
        value !== undefined && canonicalize(value) !== canonicalize(current[field as keyof typeof current]),
    ),
  );
  if (Object.keys(changes).length === 0) return before;
  const now = deps.clock();
  const [row] = await tx
    .update(schema.matters)
    .set({ ...changes, ...writeStamp(actor, now) })
    .where(and(eq(schema.matters.organizationId, actor.organizationId), eq(schema.matters.id, current.id)))
    .returning();
  if (!row) throw new Error("matter update returned nothing");
  const matter = presentMatter(row);
  await recordEvent(tx, deps, actor, {
    type: "matter.updated",
    idField: "matter_id",
    object: matter,
    matterId: matter.id,
    extra: { previous_attributes: previousAttributes(before, matter) },
  });
  return matter;
}

/** The fields whose values changed, with their values before the update (audit and updated_at aside). */
function previousAttributes(before: Matter, after: Matter): Record<string, unknown> {
  const previous: Record<string, unknown> = {};
  for (const key of Object.keys(before) as (keyof Matter)[]) {
    if (key === "audit" || key === "updated_at") continue;
    if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) previous[key] = before[key];
  }
  return previous;
}
