import { type Event, notFound } from "@crs/contract";
import { isIdOf } from "@crs/core";
import { schema } from "@crs/db";
import { and, eq } from "drizzle-orm";
import type { Actor, ServiceDeps } from "../context";
import { presentEvent } from "./present-event";

export async function retrieveEvent(deps: ServiceDeps, actor: Actor, eventId: string): Promise<Event> {
  if (!isIdOf("evt", eventId)) throw notFound("event", eventId);
  const e = schema.events;
  const [row] = await deps.db
    .select()
    .from(e)
    .where(and(eq(e.organizationId, actor.organizationId), eq(e.environment, actor.environment), eq(e.id, eventId)));
  if (!row) throw notFound("event", eventId);
  return presentEvent(row);
}
