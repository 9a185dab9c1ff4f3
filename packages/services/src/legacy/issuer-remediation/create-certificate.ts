import type { DestinationWalletCertificate, issuerRemediationOperations, OperationInput } from "@crs/contract";
import type { WriteContext } from "../../context";
import { assemblePacket } from "../../packets/create-packet";
import { presentCertificate } from "./present-remediation";

/**
 * A certificate is a destination_wallet_certificate packet binding its one wallet; the packet path
 * screens the wallet, owner and custodian and binds the result. On this version the operation asks
 * for granted authority, which the packet type alone does not need.
 */
export async function createDestinationWalletCertificate(
  write: WriteContext,
  { body }: OperationInput<typeof issuerRemediationOperations.destinationWalletCertificate>,
): Promise<DestinationWalletCertificate> {
  const row = await assemblePacket(write, {
    body: {
      matter_id: body.matter_id,
      type: "destination_wallet_certificate",
      wallets: [{ address: body.wallet_address, network: body.network ?? null }],
    },
    certificate: {
      purpose: body.purpose ?? null,
      owner: body.owner ?? null,
      custodian: body.custodian ?? null,
      signer_model: body.signer_model ?? null,
      allowed_assets: body.allowed_assets ?? [],
    },
    authorityNeeded: true,
    authorityParam: "matter_id",
  });
  return presentCertificate(row);
}
