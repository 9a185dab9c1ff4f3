import { type Alert, AppError, type monitoringOperations, type OperationInput } from "@crs/contract";
import { findTriageRefusal } from "@crs/core";
import { schema, tenantRow } from "@crs/db";
import { writeStamp } from "../../audit";
import type { WriteContext } from "../../context";
import { assertMatterWritable } from "../../matters/assert-matter-writable";
import { lockMatter } from "../../matters/load-matter";
import { createPacket } from "../../packets/create-packet";
import { loadAlert } from "./load-monitoring";
import { recordMonitoringChange } from "./monitoring-events";
import { presentAlert } from "./present-monitoring";

const NO_ACTIONS_YET =
  "create_action cannot be served yet: this service has no actions record to create one in. Triage without it, or create a packet with create_packet_type.";

/**
 * Triages an alert under its matter's lock: the transition is core's rule; a packet asked for is created
 * by the packet service in the same transaction (its gates apply: a refused packet refuses the whole
 * triage, and nothing is written).
 */
export async function triageAlert(
  write: WriteContext,
  { params, body }: OperationInput<typeof monitoringOperations.triageAlert>,
): Promise<Alert> {
  const { tx, actor } = write;
  const { matterId } = await loadAlert(tx, actor, params.alert_id);
  const matter = await lockMatter(tx, actor, matterId);
  assertMatterWritable(matter);
  const alert = await loadAlert(tx, actor, params.alert_id);
  const packetType = body.create_packet_type ?? null;
  const refusal = findTriageRefusal({
    from: alert.status,
    to: body.status,
    create_packet: packetType !== null,
    create_action: body.create_action === true,
  });
  if (refusal?.code === "conflict") {
    throw new AppError("conflict", { message: refusal.message, param: refusal.param });
  }
  if (refusal) {
    throw new AppError("invalid_request", {
      message: `Invalid ${refusal.param} (${refusal.message})`,
      param: refusal.param,
      details: { invalid: [{ param: refusal.param, message: refusal.message }] },
    });
  }
  if (body.create_action === true) {
    throw new AppError("invalid_request", {
      message: `Invalid create_action (${NO_ACTIONS_YET})`,
      param: "create_action",
      details: { invalid: [{ param: "create_action", message: NO_ACTIONS_YET }] },
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

  const now = write.clock();
  const [row] = await tx
    .update(schema.alerts)
    .set({
      status: body.status,
      triageNotes: body.notes ?? null,
      triagedAt: now,
      ...(packet ? { packetId: packet.id } : {}),
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
