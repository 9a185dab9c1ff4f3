import { type Event, type eventOperations, notFound, type OperationInput } from "@crs/contract";
import { isIdOf } from "@crs/core";
import { schema, tenantRow } from "@crs/db";
import type { ReadContext } from "../context";
import { presentEvent } from "./present-event";

export async function retrieveEvent(
  read: ReadContext,
  { params }: OperationInput<typeof eventOperations.get>,
): Promise<Event> {
  if (!isIdOf("evt", params.event_id)) throw notFound("event", params.event_id);
  const [row] = await read.db
    .select()
    .from(schema.events)
    .where(tenantRow(schema.events, read.actor, params.event_id));
  if (!row) throw notFound("event", params.event_id);
  return presentEvent(row);
}
