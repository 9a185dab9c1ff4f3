import type { WriteContext } from "../context";
import { type MatterRow, presentMatter } from "./present-matter";

/**
 * Appends `matter.updated` on a matter that did not itself change, with what happened in its data: the
 * catalog's closest event for a record it has no type for (an operator's decision, a legacy action,
 * watchlist, alert or network signal, a screen's hits on a matter already held).
 */
export function recordMatterNote(write: WriteContext, matter: MatterRow, note: Record<string, unknown>): void {
  write.recordEvent({
    type: "matter.updated",
    idField: "matter_id",
    object: presentMatter(matter),
    matterId: matter.id,
    extra: note,
  });
}
