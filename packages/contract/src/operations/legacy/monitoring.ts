import {
  ALERT_FOLLOW_UP_PACKET_TYPES,
  ALERT_SEVERITIES,
  ALERT_STATUSES,
  ALERT_TYPES,
  isThresholdAmount,
  MAX_DEADLINE_ALERT_DAYS,
  TRIAGE_STATUSES,
  WATCHLIST_STATUSES,
} from "@crs/core";
import { z } from "zod";
import { JOB_VERBS_SUCCESSOR } from "../../legacy";
import { defineOperation } from "../../operation";
import { ListQuery, listOf, NonBlankText, ObjectIdParam, SourceRefInput, Text, Timestamp } from "../../schemas/common";
import { ChainAddress } from "../jobs";

/**
 * Monitoring (2026-06-11): a matter's watchlists of addresses on one chain, and the alerts the
 * monitoring sweep raises from the chain provider and the case record. Alerts are raised by the
 * worker (task `monitoring.sweep`), never by a request; a request triages them.
 */

const EXAMPLE_MATTER = "matter_01k1z9r5ht3q7mxw2c4d8e6f0g";

/** Whole units of the asset as a plain decimal (a string, or a JSON number read as written). */
const ThresholdAmount = z
  .union([z.string(), z.number()])
  .transform((value) => (typeof value === "number" ? String(value) : value.trim()))
  .refine(isThresholdAmount, 'must be a non-negative plain decimal with at most 18 decimal places, e.g. "2.5"')
  .meta({ description: 'an amount in the asset\'s whole units, as a plain decimal ("2.5"); compared exactly' });

export const WatchlistThresholdsInput = z
  .object({
    wallet_movement: z.boolean().optional(),
    movement_min_amount: ThresholdAmount.optional(),
    exchange_proximity: z.boolean().optional(),
    stablecoin_exposure: z.boolean().optional(),
    stablecoin_min_amount: ThresholdAmount.optional(),
    sanctions: z.boolean().optional(),
    deadline: z.boolean().optional(),
    deadline_days: z
      .number()
      .int("must be an integer")
      .min(0, `must be between 0 and ${MAX_DEADLINE_ALERT_DAYS}`)
      .max(MAX_DEADLINE_ALERT_DAYS, `must be between 0 and ${MAX_DEADLINE_ALERT_DAYS}`)
      .optional(),
    compliance: z.boolean().optional(),
  })
  .meta({
    id: "LegacyWatchlistThresholdsInput",
    description:
      "Each alert type is on unless set to false; amount thresholds default to 0 (any movement), deadline_days to 7.",
  });

export const WatchlistThresholds = z
  .object({
    wallet_movement: z.boolean(),
    movement_min_amount: z.string(),
    exchange_proximity: z.boolean(),
    stablecoin_exposure: z.boolean(),
    stablecoin_min_amount: z.string(),
    sanctions: z.boolean(),
    deadline: z.boolean(),
    deadline_days: z.number().int(),
    compliance: z.boolean(),
  })
  .meta({ id: "LegacyWatchlistThresholds", description: "The thresholds with every default filled in." });

export const AlertRule = z
  .object({
    type: z.enum(ALERT_TYPES),
    enabled: z.boolean(),
    severity: z.enum(ALERT_SEVERITIES),
    threshold: z.union([z.string(), z.number()]).nullable(),
    condition: z.string().meta({ description: "what raises the alert, in words" }),
  })
  .meta({ id: "LegacyAlertRule" });

export const WatchedAddress = z
  .object({
    address: z.string().meta({ description: "lower case" }),
    network: z.string(),
    reason: z.string(),
    source_refs: z.array(z.record(z.string(), z.unknown())),
    added_at: Timestamp,
    swept_to_block: z
      .string()
      .nullable()
      .meta({ description: "the last block the sweep read for this address (decimal); null until its first sweep" }),
  })
  .meta({ id: "LegacyWatchedAddress" });

export const Watchlist = z
  .object({
    object: z.literal("watchlist"),
    id: z.string(),
    watchlist_id: z.string(),
    matter_id: z.string(),
    name: z.string(),
    chains: z.array(z.string()),
    addresses: z.array(WatchedAddress),
    status: z.enum(WATCHLIST_STATUSES),
    thresholds: WatchlistThresholds,
    alert_rules: z.array(AlertRule),
    last_swept_at: Timestamp.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: "LegacyWatchlist" });
export type Watchlist = z.infer<typeof Watchlist>;

export const CreateWatchlistBody = z
  .object({
    matter_id: NonBlankText(64),
    name: NonBlankText(200),
    chains: z
      .array(NonBlankText(64))
      .min(1, "must name one chain")
      .max(1, "one chain per watchlist: create one watchlist per chain")
      .optional()
      .meta({ description: "`synthetic:eth` in the sandbox (the default there); `ethereum` or `evm:<chain id>` live" }),
    thresholds: WatchlistThresholdsInput.optional(),
  })
  .meta({
    id: "LegacyCreateWatchlistBody",
    example: {
      matter_id: EXAMPLE_MATTER,
      name: "Debtor hot wallets",
      chains: ["synthetic:eth"],
      thresholds: { movement_min_amount: "1", stablecoin_min_amount: "1000", deadline_days: 14 },
    },
  });

export const AddWatchlistAddressesBody = z
  .object({
    addresses: z
      .array(ChainAddress)
      .min(1, "must list at least one address")
      .max(100, "must list at most 100 addresses")
      .refine(
        (addresses) => new Set(addresses.map((a) => a.toLowerCase())).size === addresses.length,
        "must not list an address twice",
      ),
    reason: NonBlankText(2000),
    source_refs: z.array(SourceRefInput).max(50, "must list at most 50 source refs").optional(),
  })
  .meta({
    id: "LegacyAddWatchlistAddressesBody",
    example: {
      addresses: ["0x5eed00000007000000000000000000000000089f"],
      reason: "Received the judgment debtor's withdrawal on 2026-05-02",
      source_refs: [{ source_id: "exhibit-7", source_type: "court_record", title: "Exhibit 7: bank statement" }],
    },
  });

export const AlertTarget = z
  .object({
    kind: z.enum(["address", "deadline", "sanctions_hit", "judgment"]),
    id: z.string().meta({ description: "the address, or the deadline, sanctions hit or judgment id" }),
    network: z.string().nullable(),
  })
  .meta({ id: "LegacyAlertTarget" });

export const Alert = z
  .object({
    object: z.literal("alert"),
    id: z.string(),
    alert_id: z.string(),
    matter_id: z.string(),
    watchlist_id: z.string().nullable().meta({ description: "null for alerts the case record raised" }),
    type: z.enum(ALERT_TYPES),
    severity: z.enum(ALERT_SEVERITIES),
    status: z.enum(ALERT_STATUSES),
    target: AlertTarget,
    reason: z.string(),
    fact: z
      .record(z.string(), z.unknown())
      .meta({ description: "the fact that raised it: the transfer, the deadline, the sanctions hit or the review" }),
    triage: z.object({
      notes: z.string().nullable(),
      triaged_at: Timestamp.nullable(),
      packet_id: z.string().nullable(),
      action_id: z.string().nullable(),
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: "LegacyAlert" });
export type Alert = z.infer<typeof Alert>;

export const TriageAlertBody = z
  .object({
    status: z.enum(TRIAGE_STATUSES),
    /** omitted: the notes already recorded are kept */
    notes: Text(10_000).optional(),
    /** at most one action per alert: asking again when it has one is 409 naming create_action */
    create_action: z.boolean().optional(),
    /** the follow-up packet types only (core's ALERT_FOLLOW_UP_PACKET_TYPES); at most one packet per alert */
    create_packet_type: z.enum(ALERT_FOLLOW_UP_PACKET_TYPES).nullable().optional(),
  })
  .meta({
    id: "LegacyTriageAlertBody",
    example: {
      status: "actionable",
      notes: "Deposit at Exchange A: prepare a freeze request",
      create_packet_type: "exchange_freeze",
    },
  });

export const ListWatchlistsQuery = ListQuery.extend({ matter_id: ObjectIdParam.optional() });
export const ListAlertsQuery = ListQuery.extend({
  matter_id: ObjectIdParam.optional(),
  watchlist_id: ObjectIdParam.optional(),
  status: z.enum(ALERT_STATUSES).optional(),
  type: z.enum(ALERT_TYPES).optional(),
  severity: z.enum(ALERT_SEVERITIES).optional(),
});

const WRITE_ANSWERS = {
  409: { description: "The matter is closed, or the Idempotency-Key was reused or is in flight" },
} as const;

export const monitoringOperations = {
  createWatchlist: defineOperation({
    id: "legacyCreateWatchlist",
    method: "POST",
    path: "/v1/watchlists",
    scope: "monitoring:write",
    tag: "Monitoring",
    summary: "Create a watchlist on a matter: one chain, thresholds its alert rules come from, no addresses yet.",
    successStatus: 201,
    body: CreateWatchlistBody,
    response: Watchlist,
    idempotent: true,
    events: ["matter.updated"],
    alsoAnswers: { 404: { description: "Unknown matter_id" }, ...WRITE_ANSWERS },
    rpc: false,
    surface: "legacy",
    successor: JOB_VERBS_SUCCESSOR,
  }),
  listWatchlists: defineOperation({
    id: "legacyListWatchlists",
    method: "GET",
    path: "/v1/watchlists",
    scope: "monitoring:read",
    tag: "Monitoring",
    summary: "List watchlists, most recent first, optionally of one matter.",
    successStatus: 200,
    query: ListWatchlistsQuery,
    response: listOf(Watchlist, "LegacyWatchlistList"),
    idempotent: false,
    events: [],
    rpc: false,
    surface: "legacy",
    successor: JOB_VERBS_SUCCESSOR,
  }),
  getWatchlist: defineOperation({
    id: "legacyRetrieveWatchlist",
    method: "GET",
    path: "/v1/watchlists/{watchlist_id}",
    scope: "monitoring:read",
    tag: "Monitoring",
    summary: "Retrieve a watchlist with its addresses, thresholds and alert rules.",
    successStatus: 200,
    response: Watchlist,
    idempotent: false,
    events: [],
    rpc: false,
    surface: "legacy",
    successor: JOB_VERBS_SUCCESSOR,
  }),
  addAddresses: defineOperation({
    id: "legacyAddWatchlistAddresses",
    method: "POST",
    path: "/v1/watchlists/{watchlist_id}/addresses",
    scope: "monitoring:write",
    tag: "Monitoring",
    summary: "Watch more addresses, each with the reason and sources; an address already watched is kept as it was.",
    successStatus: 200,
    body: AddWatchlistAddressesBody,
    response: Watchlist,
    idempotent: true,
    events: ["matter.updated"],
    alsoAnswers: WRITE_ANSWERS,
    rpc: false,
    surface: "legacy",
    successor: JOB_VERBS_SUCCESSOR,
  }),
  listAlerts: defineOperation({
    id: "legacyListAlerts",
    method: "GET",
    path: "/v1/alerts",
    scope: "monitoring:read",
    tag: "Monitoring",
    summary: "List alerts, most recent first, filtered by matter, watchlist, status, type or severity.",
    successStatus: 200,
    query: ListAlertsQuery,
    response: listOf(Alert, "LegacyAlertList"),
    idempotent: false,
    events: [],
    rpc: false,
    surface: "legacy",
    successor: JOB_VERBS_SUCCESSOR,
  }),
  triageAlert: defineOperation({
    id: "legacyTriageAlert",
    method: "POST",
    path: "/v1/alerts/{alert_id}/triage",
    scope: "monitoring:write",
    tag: "Monitoring",
    summary:
      "Triage an alert (new → actionable, false_positive, escalated or closed), creating a packet and an action in the same transaction when asked.",
    successStatus: 200,
    body: TriageAlertBody,
    response: Alert,
    idempotent: true,
    events: ["matter.updated", "packet.created"],
    alsoAnswers: {
      403: {
        description:
          "The packet or action asked for is refused by its gates (authority_required, sanctions_gate): nothing is written",
      },
      409: {
        description:
          "The transition is not allowed from the alert's status, the alert already has the packet or action asked for (its id in the message), the bound judgment is stayed, the matter is closed, or the Idempotency-Key was reused or is in flight",
      },
    },
    rpc: false,
    surface: "legacy",
    successor: JOB_VERBS_SUCCESSOR,
  }),
};
