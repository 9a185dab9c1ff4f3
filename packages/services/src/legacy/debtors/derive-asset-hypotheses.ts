import type { AssetHypotheses, debtorOperations, OperationInput } from "@crs/contract";
import { deriveAssetHypotheses as deriveHypotheses, formatTimestamp } from "@crs/core";
import type { WriteContext } from "../../context";
import { loadDebtor } from "./load-debtor";
import { loadDebtorFacts } from "./load-debtor-facts";

/**
 * Where the debtor's assets may be, from its recorded wallets and the asset maps traced from them.
 * Computed, not stored: no events; an Idempotency-Key keeps the answer.
 */
export async function deriveAssetHypotheses(
  write: WriteContext,
  { params, body }: OperationInput<typeof debtorOperations.assetHypotheses>,
): Promise<AssetHypotheses> {
  const debtor = await loadDebtor(write.tx, write.actor, params.debtor_id);
  const classes = body.asset_classes ?? null;
  const needsMaps = classes === null || classes.some((type) => type !== "wallet");
  const facts = await loadDebtorFacts(write.tx, write.actor, debtor, { judgments: false, assetMaps: needsMaps });
  return {
    object: "debtor_asset_hypotheses",
    debtor_id: debtor.id,
    matter_id: debtor.matterId,
    items: deriveHypotheses(facts, classes, body.min_confidence ?? 0),
    asset_maps_read: facts.assetMapsRead,
    generated_at: formatTimestamp(write.clock()),
  };
}
