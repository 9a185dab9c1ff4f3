import type { OfacReport, SanctionsReview } from "@crs/contract";
import { formatTimestamp, type OfacReportDetails, type PacketManifest, type SanctionsReviewDetails } from "@crs/core";
import type { PacketRow } from "../../packets/present-packet";
import { reviewStateOf } from "../../packets/review-state";

function reviewDetailsOf(manifest: PacketManifest): SanctionsReviewDetails | null {
  const details = manifest.details;
  return manifest.type === "sanctions_review" && details && "screen_id" in details ? details : null;
}

function reportDetailsOf(manifest: PacketManifest): OfacReportDetails | null {
  const details = manifest.details;
  return manifest.type === "ofac_report" && details && "sanctions_review_id" in details ? details : null;
}

/**
 * A sanctions_review packet as the 2026-06-11 review shows it. One assembled through
 * `POST /v1/packets` reviews no screen: its screen, analysis and hits are null and empty.
 */
export function presentSanctionsReview(row: PacketRow): SanctionsReview {
  const details = reviewDetailsOf(row.manifest);
  return {
    object: "sanctions_review",
    id: row.id,
    review_id: row.id,
    packet_id: row.id,
    matter_id: row.matterId,
    screen_id: details?.screen_id ?? null,
    status: row.status,
    blocked_property_analysis: details?.blocked_property_analysis ?? null,
    ofac_report_required: details?.ofac_report_required ?? false,
    hits: details?.hits ?? [],
    notes: details?.notes ?? null,
    review_state: reviewStateOf(row),
    content_hash: row.contentHash,
    created_at: formatTimestamp(row.createdAt),
    updated_at: formatTimestamp(row.updatedAt),
  };
}

/** An ofac_report packet prepared by the 2026-06-11 operation. */
export function presentOfacReport(row: PacketRow): OfacReport {
  const details = reportDetailsOf(row.manifest);
  if (!details) throw new Error(`packet ${row.id} is not an OFAC report with bound report content`);
  return {
    object: "ofac_report",
    id: row.id,
    ofac_report_id: row.id,
    packet_id: row.id,
    matter_id: row.matterId,
    sanctions_review_id: details.sanctions_review_id,
    report_type: details.report_type as OfacReport["report_type"],
    counsel_owner: details.counsel_owner,
    status: row.status,
    submitted_by: null,
    submitted_at: null,
    review_state: reviewStateOf(row),
    content_hash: row.contentHash,
    created_at: formatTimestamp(row.createdAt),
    updated_at: formatTimestamp(row.updatedAt),
  };
}
