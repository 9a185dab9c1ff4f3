import type { ClawCampaign } from "@crs/contract";
import { deriveClawGates, deriveOperatorState, formatTimestamp, pressureLevelName } from "@crs/core";
import type { Database, Tenant } from "@crs/db";
import { auditOf } from "../../audit";
import { loadMatter } from "../../matters/load-matter";
import { type CampaignGateFacts, readGateFacts } from "./campaign-gates";
import type { CampaignRow } from "./load-campaign";

/** A campaign as answered: its stored fields, and its gates and operator state derived as they stand now. */
export function presentCampaign(row: CampaignRow, facts: CampaignGateFacts): ClawCampaign {
  const gates = deriveClawGates({
    ...facts,
    pressure_level: row.pressureLevel,
    counsel_approval_id: row.counselApprovalId,
  });
  return {
    object: "claw_campaign",
    id: row.id,
    campaign_id: row.id,
    matter_id: row.matterId,
    judgment_id: row.judgmentId,
    mode: row.mode,
    pressure_level: row.pressureLevel,
    pressure_name: pressureLevelName(row.pressureLevel),
    pressure_reason: row.pressureReason,
    counsel_approval_id: row.counselApprovalId,
    target_set: row.targetSet,
    operator_state: deriveOperatorState({
      gates,
      focus: row.focus?.ranked_targets ?? null,
      leads: row.expansion?.leads ?? null,
      pressure_level: row.pressureLevel,
    }),
    gates,
    focused_at: row.focus?.focused_at ?? null,
    expanded_at: row.expansion?.expanded_at ?? null,
    created_at: formatTimestamp(row.createdAt),
    updated_at: formatTimestamp(row.updatedAt),
    audit: auditOf(row, row.matterId),
  };
}

/** Presents campaigns read outside a write, reading the gate facts once per matter and judgment. */
export async function presentCampaigns(
  db: Database,
  tenant: Tenant,
  rows: readonly CampaignRow[],
): Promise<ClawCampaign[]> {
  const facts = new Map<string, CampaignGateFacts>();
  const answers: ClawCampaign[] = [];
  for (const row of rows) {
    const key = `${row.matterId}|${row.judgmentId}`;
    let known = facts.get(key);
    if (!known) {
      known = await readGateFacts(db, tenant, await loadMatter(db, tenant, row.matterId), row.judgmentId);
      facts.set(key, known);
    }
    answers.push(presentCampaign(row, known));
  }
  return answers;
}
