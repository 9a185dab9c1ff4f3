import {
  AppError,
  type NetworkAttribution,
  type networkAttributionOperations,
  type OperationInput,
} from "@crs/contract";
import { schema } from "@crs/db";
import { writeStamp } from "../../audit";
import type { WriteContext } from "../../context";
import { assertMatterWritable } from "../../matters/assert-matter-writable";
import { lockMatter } from "../../matters/load-matter";
import { recordMatterNote } from "../../matters/record-matter-note";
import { loadMatterSignals } from "./load-network-signals";
import { presentNetworkAttribution } from "./present-network-attribution";

/**
 * Records a signal on a matter. The body's schema has already refused a raw IP address in
 * `raw_value_redacted`, so only the redacted value is ever stored. The catalog has no attribution
 * event: `matter.updated` carries the recorded signal.
 */
export async function recordNetworkSignal(
  write: WriteContext,
  { body }: OperationInput<typeof networkAttributionOperations.recordSignal>,
): Promise<NetworkAttribution> {
  const { tx, actor } = write;
  const matter = await lockMatter(tx, actor, body.matter_id, "matter_id");
  assertMatterWritable(matter);
  const now = write.clock();
  const observedAt = new Date(body.timestamp);
  if (observedAt.getTime() > now.getTime()) {
    const message = `is after the service's current time (${now.toISOString()}): a signal is recorded once observed`;
    throw new AppError("invalid_request", {
      message: `Invalid timestamp (${message}).`,
      param: "timestamp",
      details: { invalid: [{ param: "timestamp", message }] },
    });
  }
  const [row] = await tx
    .insert(schema.networkAttributions)
    .values({
      organizationId: actor.organizationId,
      environment: actor.environment,
      id: write.newId("networkAttribution"),
      matterId: matter.id,
      walletAddress: body.wallet_address,
      signalType: body.signal_type,
      source: body.source,
      legalProcessId: body.legal_process_id ?? null,
      observedAt,
      rawValueRedacted: body.raw_value_redacted,
      privacyRestrictions: body.privacy_restrictions ?? [],
      createdAt: now,
      ...writeStamp(actor, now),
    })
    .returning();
  if (!row) throw new Error("network attribution insert returned nothing");
  const attribution = presentNetworkAttribution(row, await loadMatterSignals(tx, actor, matter.id));
  recordMatterNote(write, matter, { network_attribution: attribution });
  return attribution;
}
