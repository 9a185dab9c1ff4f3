import type { Matter, matterOperations, OperationInput } from "@crs/contract";
import { completeMatterEconomics } from "@crs/core";
import { schema } from "@crs/db";
import { writeStamp } from "../audit";
import type { WriteContext } from "../context";
import { presentMatter } from "./present-matter";

export async function createMatter(
  write: WriteContext,
  { body }: OperationInput<typeof matterOperations.create>,
): Promise<Matter> {
  const { actor } = write;
  const now = write.clock();
  const [row] = await write.tx
    .insert(schema.matters)
    .values({
      organizationId: actor.organizationId,
      environment: actor.environment,
      id: write.newId("matter"),
      name: body.name,
      mode: body.mode,
      leadCounsel: body.lead_counsel ?? null,
      economics: completeMatterEconomics(body.economics),
      notes: body.notes ?? null,
      status: "active",
      createdAt: now,
      ...writeStamp(actor, now),
    })
    .returning();
  if (!row) throw new Error("matter insert returned nothing");
  const matter = presentMatter(row);
  write.recordEvent({ type: "matter.created", idField: "matter_id", object: matter, matterId: matter.id });
  return matter;
}
