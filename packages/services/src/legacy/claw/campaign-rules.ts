import { AppError, type ClawCampaign } from "@crs/contract";
import { type ClawMode, checkPressureChange, counselApprovalAfter } from "@crs/core";
import type { WriteContext } from "../../context";
import type { MatterRow } from "../../matters/present-matter";
import { recordMatterNote } from "../../matters/record-matter-note";
import type { CampaignRow } from "./load-campaign";

/** What a pressure change writes: the level, the counsel approval it keeps, and the reason. */
export interface PressureChange {
  pressureLevel: number;
  counselApprovalId: string | null;
  pressureReason: string | null;
}

/**
 * Checks a move of the campaign's pressure to `to` under `mode` (the mode the campaign has once the
 * request applies): 422 naming counsel_approval_id for a raise to 4 or above without one, 409 naming
 * pressure_level for a raise beyond the mode's step (with the levels allowed). Returns the columns to
 * write, or null when `to` is the current level (no move).
 */
export function pressureChangeOf(
  campaign: CampaignRow,
  request: { to: number; mode: ClawMode; counsel_approval_id: string | null; reason: string | null },
): PressureChange | null {
  const check = checkPressureChange({
    from: campaign.pressureLevel,
    to: request.to,
    mode: request.mode,
    counsel_approval_id: request.counsel_approval_id,
  });
  if (check.refused && check.reason === "counsel_approval_required") {
    const message = `raising the pressure to level ${request.to} (4, freeze_block, or above) needs counsel's approval: send counsel_approval_id`;
    throw new AppError("invalid_request", {
      status: 422,
      message: `Missing required field: counsel_approval_id (${message}).`,
      param: "counsel_approval_id",
      details: { missing: ["counsel_approval_id"] },
    });
  }
  if (check.refused) {
    throw new AppError("conflict", {
      message: `Campaign '${campaign.id}' is at pressure level ${campaign.pressureLevel} in ${request.mode} mode: it cannot move to ${request.to} in one change (allowed: ${check.allowed.join(", ")}).`,
      param: "pressure_level",
      details: {
        pressure_level: campaign.pressureLevel,
        requested: request.to,
        mode: request.mode,
        allowed: check.allowed,
      },
    });
  }
  if (!check.changed) return null;
  return {
    pressureLevel: request.to,
    counselApprovalId: counselApprovalAfter(request.to, campaign.counselApprovalId, request.counsel_approval_id),
    pressureReason: request.reason,
  };
}

export type CampaignChange = "created" | "updated" | "pressure_changed" | "focused" | "expanded";

/**
 * The catalog has no campaign event: every campaign change appends `matter.updated` on its matter, with
 * the change, the campaign as answered and (for updates and pressure moves) the fields it changed.
 */
export function recordCampaignEvent(
  write: WriteContext,
  matter: MatterRow,
  change: CampaignChange,
  campaign: ClawCampaign,
  extra: Record<string, unknown> = {},
): void {
  recordMatterNote(write, matter, { campaign_id: campaign.id, campaign_change: change, campaign, ...extra });
}
