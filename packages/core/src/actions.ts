/**
 * Actions (the 2026-06-11 operator task queue): statuses, priorities, which status moves are allowed and
 * through which operation, and the gates every action write passes.
 */

export const ACTION_STATUSES = ["open", "in_progress", "completed", "canceled"] as const;
export type ActionStatus = (typeof ACTION_STATUSES)[number];

export const ACTION_PRIORITIES = ["low", "normal", "high", "urgent"] as const;
export type ActionPriority = (typeof ACTION_PRIORITIES)[number];

export const DEFAULT_ACTION_PRIORITY: ActionPriority = "normal";

/** How a status move is asked for: a PATCH of `status`, or the complete operation. */
export type ActionTransitionRoute = "update" | "complete";

/**
 * The one path through the statuses: `open` → `in_progress` → `completed` | `canceled`. Completed and
 * canceled are final. `completed` is reached only through the complete operation, which records the
 * completion notes and evidence; every other move is a PATCH of `status`.
 */
const MOVES: Record<ActionStatus, readonly { to: ActionStatus; route: ActionTransitionRoute }[]> = {
  open: [{ to: "in_progress", route: "update" }],
  in_progress: [
    { to: "completed", route: "complete" },
    { to: "canceled", route: "update" },
  ],
  completed: [],
  canceled: [],
};

/** The statuses an action in `from` may move to through `route`. */
export function allowedActionMoves(from: ActionStatus, route: ActionTransitionRoute): ActionStatus[] {
  return MOVES[from].filter((move) => move.route === route).map((move) => move.to);
}

export function isFinalActionStatus(status: ActionStatus): boolean {
  return MOVES[status].length === 0;
}

/** The statuses an action can still move from (open, in_progress): what is left to do. */
export const OPEN_ACTION_STATUSES: readonly ActionStatus[] = ACTION_STATUSES.filter(
  (status) => !isFinalActionStatus(status),
);

export type ActionTransitionRefusal =
  /** `completed` asked for through a PATCH: only the complete operation records a completion */
  | { refused: true; reason: "complete_through_complete"; allowed: ActionStatus[] }
  /** the move is not on the path from the current status (or the action is final) */
  | { refused: true; reason: "not_allowed"; allowed: ActionStatus[] };

export type ActionTransitionCheck = { refused: false } | ActionTransitionRefusal;

/**
 * Whether an action in `from` may move to `to` through `route`. Asking for the status it already has
 * is no move (a PATCH that changes nothing), except on a final action, which refuses every write.
 */
export function checkActionTransition(
  from: ActionStatus,
  to: ActionStatus,
  route: ActionTransitionRoute,
): ActionTransitionCheck {
  const allowed = allowedActionMoves(from, route);
  if (to === "completed" && route === "update") return { refused: true, reason: "complete_through_complete", allowed };
  if (isFinalActionStatus(from)) return { refused: true, reason: "not_allowed", allowed };
  if (to === from && route === "update") return { refused: false };
  return allowed.includes(to) ? { refused: false } : { refused: true, reason: "not_allowed", allowed };
}

/** A final action (completed or canceled) refuses every write: assign, update, complete. */
export function checkActionWritable(status: ActionStatus): { refused: false } | { refused: true; allowed: [] } {
  return isFinalActionStatus(status) ? { refused: true, allowed: [] } : { refused: false };
}

export type ActionGateRefusal = "sanctions_gate" | "authority_required";

/**
 * Every action write is an enforcement step on its matter: refused while a sanctions hit on the matter
 * awaits review, then without granted authority (the matter-authority rule). A sanctions hold is
 * reported first, as for packets: it is the bar the caller can least work around.
 */
export function findActionGateRefusal(input: {
  sanctions_hold: boolean;
  authority_granted: boolean;
}): ActionGateRefusal | null {
  if (input.sanctions_hold) return "sanctions_gate";
  if (!input.authority_granted) return "authority_required";
  return null;
}
