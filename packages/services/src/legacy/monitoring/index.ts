import type { monitoringOperations } from "@crs/contract";
import type { GroupHandlers } from "../../operations/handler-types";
import { addWatchlistAddresses } from "./add-watchlist-addresses";
import { createWatchlist } from "./create-watchlist";
import { listAlerts } from "./list-alerts";
import { listWatchlists, retrieveWatchlist } from "./list-watchlists";
import { triageAlert } from "./triage-alert";

export const monitoringHandlers = {
  createWatchlist,
  listWatchlists,
  getWatchlist: retrieveWatchlist,
  addAddresses: addWatchlistAddresses,
  listAlerts,
  triageAlert,
} satisfies GroupHandlers<typeof monitoringOperations>;
