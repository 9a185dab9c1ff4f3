import { type Alert, AppError, type monitoringOperations, type OperationInput } from "@crs/contract";
import { findTriageRefusal, followUpActionFor } from "@crs/core";
import { schema, tenantRow } from "@crs/db";
import { writeStamp } from "../../audit";
import type { WriteContext } from "../../context";
import { lockMatterOf } from "../../matters/load-matter";
import { createPacket } from "../../packets/create-packet";
import { createAction } from "../actions/create-action";
import { loadAlert } from "./load-monitoring";
import { recordMonitoringChange } from "./monitoring-events";
import { presentAlert } from "./present-monitoring";

/**
 * Triages an alert under its matter's lock: the transition is core's rule; a packet and an action asked
 * for are created by the packet and action services in the same transaction (their gates apply: a refused
 * packet or action refuses the whole triage, and nothing is written).
 */
export async function triageAlert(
  write: WriteContext,
  { params, body }: OperationInput<typeof monitoringOperations.triageAlert>,
): Promise<Alert> {
  const { tx, actor } = write;
  const { matter, row: alert } = await lockMatterOf(tx, actor, (db) => loadAlert(db, actor, params.alert_id));
  const packetType = body.create_packet_type ?? null;
  const refusal = findTriageRefusal({
    from: alert.status,
    to: body.status,
    create_packet: packetType !== null,
    create_action: body.create_action === true,
    packet_id: alert.packetId,
    action_id: alert.actionId,
  });
  if (refusal?.code === "conflict") {
    // The alert is read again under the matter's lock: of concurrent triages asking for a follow-up, the
    // first creates it and the others find its id here.
    throw new AppError("conflict", { message: refusal.message, param: refusal.param });
  }
  if (refusal) {
    throw new AppError("invalid_request", {
      message: `Invalid ${refusal.param} (${refusal.message})`,
      param: refusal.param,
      details: { invalid: [{ param: refusal.param, message: refusal.message }] },
    });
  }

  const packet =
    packetType === null
      ? null
      : await createPacket(write, {
          params: {},
          body: {
            matter_id: matter.id,
            type: packetType,
            ...(alert.target.kind === "address"
              ? { wallets: [{ address: alert.target.id, network: alert.target.network }] }
              : {}),
            source_refs: [
              {
                source_id: alert.id,
                source_type: "monitoring_alert",
                title: alert.reason.slice(0, 500),
              },
            ],
          },
        });

  // The action follows up the alert (and the packet, when one was asked for), under the actions' own gates.
  const action =
    body.create_action === true
      ? await createAction(write, {
          params: {},
          body: {
            matter_id: matter.id,
            ...followUpActionFor({
              alert_id: alert.id,
              type: alert.type,
              severity: alert.severity,
              reason: alert.reason,
            }),
            linked_packet_id: packet?.id ?? null,
          },
        })
      : null;

  const now = write.clock();
  const [row] = await tx
    .update(schema.alerts)
    .set({
      status: body.status,
      // Notes omitted keep the notes recorded so far.
      ...(body.notes !== undefined ? { triageNotes: body.notes } : {}),
      triagedAt: now,
      ...(packet ? { packetId: packet.id } : {}),
      ...(action ? { actionId: action.id } : {}),
      ...writeStamp(actor, now),
    })
    .where(tenantRow(schema.alerts, actor, alert.id))
    .returning();
  if (!row) throw new Error("alert update returned nothing");
  const triaged = presentAlert(row);
  recordMonitoringChange(write, matter, "alert.triaged", {
    alert_id: triaged.id,
    previous_status: alert.status,
    alert: triaged,
  });
  return triaged;
}
