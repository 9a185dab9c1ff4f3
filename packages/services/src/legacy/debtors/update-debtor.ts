import { AppError, type Debtor, type debtorOperations, type OperationInput } from "@crs/contract";
import { canonicalize } from "@crs/core";
import type { WriteContext } from "../../context";
import { lockMatter } from "../../matters/load-matter";
import { presentParty } from "../../parties/present-party";
import { updateParty } from "../../parties/update-party";
import { loadSanctionsHitsByParty } from "../../sanctions/record-sanctions-hits";
import { loadDebtor } from "./load-debtor";
import { presentDebtor } from "./present-debtor";

/**
 * Updates the debtor's party. A debtor's legal name is also its name (as the debtor was created), so
 * the two change together; its role cannot change here. `review_state` is derived: sent back as it
 * is (or null) it changes nothing, and any other value is refused.
 */
export async function updateDebtor(
  write: WriteContext,
  { params, body }: OperationInput<typeof debtorOperations.update>,
): Promise<Debtor> {
  const { tx, actor } = write;
  // The matter lock comes first, as for every write to a matter's parties; the role is then checked
  // under it, so a concurrent change of role cannot slip between the check and the update.
  const { matterId } = await loadDebtor(tx, actor, params.debtor_id);
  await lockMatter(tx, actor, matterId);
  const row = await loadDebtor(tx, actor, params.debtor_id);
  if (body.review_state) {
    const hits = await loadSanctionsHitsByParty(tx, actor, [row.id]);
    const current = presentDebtor(presentParty(row, hits.get(row.id) ?? [])).review_state;
    const changed = Object.entries(body.review_state).filter(
      ([field, value]) => canonicalize(value) !== canonicalize(current[field as keyof typeof current]),
    );
    if (changed.length > 0) {
      throw new AppError("invalid_request", {
        message: `review_state cannot be set: a debtor's review follows its open sanctions hits, which an operator clears (it is ${current.review_status}; ${changed.map(([field]) => field).join(", ")} differ).`,
        param: "review_state",
        details: { invalid: [{ param: "review_state", message: "is derived from the debtor's open sanctions hits" }] },
      });
    }
  }
  const party = await updateParty(write, {
    params: { party_id: params.debtor_id },
    body: {
      ...(body.legal_name !== undefined ? { legal_name: body.legal_name, name: body.legal_name } : {}),
      ...(body.aliases !== undefined ? { aliases: body.aliases } : {}),
      ...(body.identifiers !== undefined ? { identifiers: body.identifiers } : {}),
      ...(body.wallets !== undefined ? { wallets: body.wallets } : {}),
    },
  });
  return presentDebtor(party);
}
