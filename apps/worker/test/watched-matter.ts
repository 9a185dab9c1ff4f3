import { runWrite, systemActor } from "@crs/services";
import { addWatchlistAddresses } from "@crs/services/legacy/monitoring/add-watchlist-addresses";
import { createWatchlist } from "@crs/services/legacy/monitoring/create-watchlist";
import { createMatter } from "@crs/services/matters/create-matter";
import type { createTestServiceDeps } from "./helpers";

/** A sandbox matter of `organizationId` in monitoring mode, with a watchlist watching `address`. */
export async function createWatchedMatter(
  deps: ReturnType<typeof createTestServiceDeps>,
  organizationId: string,
  address: string,
) {
  const actor = systemActor({ organizationId, environment: "sandbox" }, "test.setup", `req_setup_${organizationId}`);
  return runWrite(deps, actor, async (write) => {
    const matter = await createMatter(write, { params: {}, body: { name: "Acme v. Roe", mode: "monitoring" } });
    const watchlist = await createWatchlist(write, {
      params: {},
      body: { matter_id: matter.id, name: "Debtor wallets" },
    });
    await addWatchlistAddresses(write, {
      params: { watchlist_id: watchlist.id },
      body: { addresses: [address], reason: "Received the proceeds" },
    });
    return watchlist;
  });
}
