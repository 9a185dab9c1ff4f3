import type { Alert, monitoringOperations, OperationInput } from "@crs/contract";
import { schema, tenantScope } from "@crs/db";
import { and, eq } from "drizzle-orm";
import type { ReadContext } from "../../context";
import { listEnvelope, pageWindow } from "../../pagination";
import { presentAlert } from "./present-monitoring";

/** Alerts, most recent first; each filter given narrows the list (they combine). */
export async function listAlerts(read: ReadContext, { query }: OperationInput<typeof monitoringOperations.listAlerts>) {
  const a = schema.alerts;
  const window = pageWindow(a.id, query);
  const rows = await read.db
    .select()
    .from(a)
    .where(
      and(
        tenantScope(a, read.actor),
        query.matter_id ? eq(a.matterId, query.matter_id) : undefined,
        query.watchlist_id ? eq(a.watchlistId, query.watchlist_id) : undefined,
        query.status ? eq(a.status, query.status) : undefined,
        query.type ? eq(a.type, query.type) : undefined,
        query.severity ? eq(a.severity, query.severity) : undefined,
        window.cursor,
      ),
    )
    .orderBy(window.orderBy)
    .limit(window.fetch);
  const page = window.page(rows);
  const data: Alert[] = page.data.map(presentAlert);
  return listEnvelope("/v1/alerts", { data, has_more: page.has_more });
}
