import { notFound } from "@crs/contract";
import { isIdOf } from "@crs/core";
import { type Database, schema, type Transaction } from "@crs/db";
import { and, eq, sql } from "drizzle-orm";
import type { Actor } from "../context";
import { preparedPerDatabase } from "../prepared";
import type { MatterRow } from "./present-matter";

function ownedBy(actor: Actor, matterId: string) {
  const m = schema.matters;
  return and(eq(m.organizationId, actor.organizationId), eq(m.environment, actor.environment), eq(m.id, matterId));
}

const matterQuery = preparedPerDatabase((db) =>
  db
    .select()
    .from(schema.matters)
    .where(
      and(
        eq(schema.matters.organizationId, sql.placeholder("organizationId")),
        eq(schema.matters.environment, sql.placeholder("environment")),
        eq(schema.matters.id, sql.placeholder("matterId")),
      ),
    )
    .prepare("load_matter"),
);

/** The caller's matter, or 404: another organization's or environment's id is simply unknown. */
export async function loadMatter(db: Database, actor: Actor, matterId: string): Promise<MatterRow> {
  if (!isIdOf("matter", matterId)) throw notFound("matter", matterId);
  const [row] = await matterQuery(db).execute({
    organizationId: actor.organizationId,
    environment: actor.environment,
    matterId,
  });
  if (!row) throw notFound("matter", matterId);
  return row;
}

/** Same, locking the row until the transaction ends so concurrent writes to one matter serialize. */
export async function lockMatter(tx: Transaction, actor: Actor, matterId: string): Promise<MatterRow> {
  if (!isIdOf("matter", matterId)) throw notFound("matter", matterId);
  const [row] = await tx.select().from(schema.matters).where(ownedBy(actor, matterId)).for("update");
  if (!row) throw notFound("matter", matterId);
  return row;
}
