import type {
  CreateBurnReissuePacketBody,
  CreateFreezePacketBody,
  issuerRemediationOperations,
  OperationInput,
  Remediation,
} from "@crs/contract";
import type { RemediationPacketType } from "@crs/core";
import type { z } from "zod";
import type { WriteContext } from "../../context";
import { assemblePacket } from "../../packets/create-packet";
import { presentRemediation } from "./present-remediation";

type RemediationBody = z.output<typeof CreateFreezePacketBody> | z.output<typeof CreateBurnReissuePacketBody>;

/**
 * Both remediation operations assemble a packet of their own type through the packet path (gates,
 * manifest, hash); the issuer, asset, network, notes and certificate id are bound in its details.
 */
async function createRemediation(
  write: WriteContext,
  type: RemediationPacketType,
  body: RemediationBody,
): Promise<Remediation> {
  const row = await assemblePacket(write, {
    body: {
      matter_id: body.matter_id,
      type,
      ...(body.judgment_id !== undefined ? { judgment_id: body.judgment_id } : {}),
      ...(body.wallets !== undefined ? { wallets: body.wallets } : {}),
      ...(body.source_refs !== undefined ? { source_refs: body.source_refs } : {}),
      ...(body.legal_authority_id !== undefined ? { legal_authority_id: body.legal_authority_id } : {}),
      ...(body.authorized_sender !== undefined ? { authorized_sender: body.authorized_sender } : {}),
    },
    remediation: {
      issuer: body.issuer ?? null,
      asset: body.asset ?? null,
      network: body.network ?? null,
      notes: body.notes ?? null,
      destination_wallet_certificate_id: body.destination_wallet_certificate_id ?? null,
    },
    authorityParam: "matter_id",
  });
  return presentRemediation({ ...row, type });
}

export function createFreezePacket(
  write: WriteContext,
  { body }: OperationInput<typeof issuerRemediationOperations.freezePacket>,
): Promise<Remediation> {
  return createRemediation(write, "issuer_freeze", body);
}

export function createBurnReissuePacket(
  write: WriteContext,
  { body }: OperationInput<typeof issuerRemediationOperations.burnReissuePacket>,
): Promise<Remediation> {
  return createRemediation(write, "burn_reissue", body);
}
