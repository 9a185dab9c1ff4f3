import type { OfacReport, OperationInput, sanctionsOperations } from "@crs/contract";
import type { WriteContext } from "../../context";
import { assemblePacket } from "../../packets/create-packet";
import { loadPacketOfType } from "../../packets/load-packet";
import { presentOfacReport } from "./present-sanctions";

/** Prepares an OFAC report from a sanctions review of the same matter: an ofac_report packet. */
export async function createOfacReportPacket(
  write: WriteContext,
  { body }: OperationInput<typeof sanctionsOperations.ofacReport>,
): Promise<OfacReport> {
  const row = await assemblePacket(write, {
    body: { matter_id: body.matter_id, type: "ofac_report" },
    details: async (matterId) => {
      const review = await loadPacketOfType(write.tx, write.actor, body.sanctions_review_id, {
        types: ["sanctions_review"],
        what: "sanctions review of this matter",
        param: "sanctions_review_id",
        matterId,
      });
      return {
        wallets: review.manifest.wallets,
        details: {
          sanctions_review_id: review.id,
          report_type: body.report_type,
          counsel_owner: body.counsel_owner,
        },
      };
    },
  });
  return presentOfacReport(row);
}
