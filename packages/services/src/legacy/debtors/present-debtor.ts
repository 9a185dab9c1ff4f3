import type { Debtor, Party } from "@crs/contract";
import { isReviewRequired } from "@crs/core";

/** A party with role debtor as the 2026-06-11 debtor resource shows it. */
export function presentDebtor(party: Party): Debtor {
  const openHits = party.sanctions_hits.filter((hit) => hit.status === "open");
  const reviewStatus = openHits.length > 0 ? "pending" : "not_required";
  return {
    object: "debtor",
    id: party.id,
    debtor_id: party.id,
    matter_id: party.matter_id,
    type: party.type,
    legal_name: party.legal_name ?? party.name,
    aliases: party.aliases,
    identifiers: party.identifiers,
    wallets: party.wallets,
    review_state: {
      review_required: isReviewRequired(reviewStatus),
      review_status: reviewStatus,
      reasons: openHits.map(
        (hit) =>
          `open sanctions hit ${hit.hit_id}: ${hit.matched.field} '${hit.matched.value}' matches the list entry '${hit.list_entry.value}'`,
      ),
    },
    created_at: party.created_at,
    updated_at: party.updated_at,
  };
}
