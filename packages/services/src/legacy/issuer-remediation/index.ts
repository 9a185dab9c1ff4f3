import type { issuerRemediationOperations } from "@crs/contract";
import type { GroupHandlers } from "../../operations/handler-types";
import { createDestinationWalletCertificate } from "./create-certificate";
import { createBurnReissuePacket, createFreezePacket } from "./create-remediation";
import { retrieveRemediation } from "./retrieve-remediation";

export const issuerRemediationHandlers = {
  freezePacket: createFreezePacket,
  burnReissuePacket: createBurnReissuePacket,
  destinationWalletCertificate: createDestinationWalletCertificate,
  get: retrieveRemediation,
} satisfies GroupHandlers<typeof issuerRemediationOperations>;
