import type { ClawFocus, clawOperations, OperationInput } from "@crs/contract";
import {
  type ClawFocusRun,
  collectFocusTargets,
  DEFAULT_FOCUS_WEIGHT,
  type FocusCriterion,
  formatTimestamp,
  rankFocusTargets,
} from "@crs/core";
import type { WriteContext } from "../../context";
import { assertCampaignGates } from "./campaign-gates";
import { lockCampaignForWrite } from "./load-campaign";
import { assetMapsOf, loadPursuedFacts } from "./pursued-parties";
import { writeCampaign } from "./write-campaign";

/**
 * Ranks the campaign's targets (its pursued parties, their wallets and exchange hypotheses) by the
 * criteria and weights asked for, with core's scorer, and keeps the ranking as the campaign's focus
 * queue (replacing the previous one) in the same transaction as its event.
 */
export async function focusCampaign(
  write: WriteContext,
  { params, body }: OperationInput<typeof clawOperations.focus>,
): Promise<ClawFocus> {
  const { tx, actor } = write;
  const { matter, campaign: current } = await lockCampaignForWrite(tx, actor, params.campaign_id);
  const gateFacts = await assertCampaignGates(write, matter, current.judgmentId);

  const facts = await loadPursuedFacts(tx, actor, current, { judgments: false });
  const criteria: FocusCriterion[] = [...body.criteria];
  const weights = Object.fromEntries(
    criteria.map((criterion) => [criterion, body.weights?.[criterion] ?? DEFAULT_FOCUS_WEIGHT]),
  ) as Partial<Record<FocusCriterion, number>>;
  const targets = collectFocusTargets(
    facts.map((entry) => entry.debtor),
    assetMapsOf(facts),
  );
  const focus: ClawFocusRun = {
    criteria,
    weights,
    ranked_targets: rankFocusTargets(targets, criteria, weights),
    focused_at: formatTimestamp(write.clock()),
  };
  await writeCampaign(write, matter, current, gateFacts, { focus }, "focused", { focus });
  return { object: "claw_focus", campaign_id: current.id, ...focus };
}
