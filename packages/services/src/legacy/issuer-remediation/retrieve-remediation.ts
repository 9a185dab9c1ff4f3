import type { issuerRemediationOperations, OperationInput, Remediation } from "@crs/contract";
import { REMEDIATION_PACKET_TYPES } from "@crs/core";
import type { ReadContext } from "../../context";
import { loadPacketOfType } from "../../packets/load-packet";
import { presentRemediation } from "./present-remediation";

/** A packet of type issuer_freeze or burn_reissue; any other packet is not a remediation (404). */
export async function retrieveRemediation(
  read: ReadContext,
  { params }: OperationInput<typeof issuerRemediationOperations.get>,
): Promise<Remediation> {
  const row = await loadPacketOfType(read.db, read.actor, params.remediation_id, {
    types: REMEDIATION_PACKET_TYPES,
    what: "issuer remediation",
  });
  return presentRemediation(row);
}
