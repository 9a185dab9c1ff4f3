import { screenSubjects } from "@crs/core";
import type { WriteContext } from "../../context";
import type { MatterRow } from "../../matters/present-matter";
import type { SanctionsHitRow } from "../../sanctions/present-sanctions-hit";
import { holdMatterForHits, insertSanctionsHits, screenMatchHit } from "../../sanctions/record-sanctions-hits";

/**
 * A watched address on the configured sanctions list marks its matter as a screen of that wallet does
 * (`POST /v1/sanctions/screen`): an open sanctions hit with `party_id` null, `subject` `wallet` and a
 * `screen_id` of its own, recorded once per matter (the same fingerprint as the screen's, so a screen
 * and the sweep of one wallet record one hit; a hit a reviewer cleared is not raised again), and new
 * hits put the matter on sanctions hold. The caller holds the matter's row lock. Answers the matter as
 * it now stands, with the new hits.
 */
export async function recordWatchedAddressHits(
  write: WriteContext,
  matter: MatterRow,
  watchlistId: string,
  addresses: readonly string[],
): Promise<{ matter: MatterRow; hits: SanctionsHitRow[] }> {
  const screen = screenSubjects(
    addresses.map((wallet) => ({ role: "wallet", wallet })),
    write.sanctionsList,
  );
  if (screen.matches.length === 0) return { matter, hits: [] };
  const screenId = write.newId("sanctionsScreen");
  const hits = await insertSanctionsHits(
    write,
    matter.id,
    screen.matches.map((match) => screenMatchHit(match, screenId)),
  );
  const held = await holdMatterForHits(write, matter, hits, { screenId, note: { watchlist_id: watchlistId } });
  return { matter: held, hits };
}
