import { type issuerRemediationOperations, notFound, type OperationInput, type Remediation } from "@crs/contract";
import { ID_PREFIXES, isIdOf, isRemediationPacketType } from "@crs/core";
import { schema, tenantRow } from "@crs/db";
import type { ReadContext } from "../../context";
import { presentRemediation } from "./present-remediation";

/** A packet of type issuer_freeze or burn_reissue; any other packet is not a remediation (404). */
export async function retrieveRemediation(
  read: ReadContext,
  { params }: OperationInput<typeof issuerRemediationOperations.get>,
): Promise<Remediation> {
  const id = params.remediation_id;
  if (!isIdOf(ID_PREFIXES.packet, id)) throw notFound("issuer remediation", id);
  const [row] = await read.db
    .select()
    .from(schema.packets)
    .where(tenantRow(schema.packets, read.actor, id));
  const type = row?.type;
  if (!row || !type || !isRemediationPacketType(type)) throw notFound("issuer remediation", id);
  return presentRemediation({ ...row, type });
}
