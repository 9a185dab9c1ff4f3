import {
  CONFIDENCE_LEVELS,
  findRawIpAddress,
  IP_SIGNAL_TYPES,
  isIpSignalType,
  NETWORK_SIGNAL_TYPES,
  type NetworkSignalType,
} from "@crs/core";
import { z } from "zod";
import { JOB_VERBS_SUCCESSOR } from "../../legacy";
import { defineOperation } from "../../operation";
import { Audit, DateTimeInput, NonBlankText, ObjectIdParam, Timestamp } from "../../schemas/common";

/**
 * Network attribution (2026-06-11): signals tying a wallet of a matter to network data obtained under
 * legal process, kept only in redacted form, and their correlation. A signal alone is L0; only
 * corroboration from other sources raises it, and every correlation awaits review.
 */

const EXAMPLE_MATTER = "matter_01k1z9r5ht3q7mxw2c4d8e6f0g";
const EXAMPLE_WALLET = "0x8ba1f109551bD432803012645Ac136ddd64DBA72";

export const ConfidenceLevel = z.enum(CONFIDENCE_LEVELS);

const NO_RAW_IP = {
  message:
    "must not contain a raw IP address: mask it before sending (for example 203.0.113.x or 2001:db8:x:x:x:x:x:x)",
};

/** Text of a signal: no field of it may carry a raw IP address, since none is ever stored. */
const SignalText = (max: number) => NonBlankText(max).refine((value) => findRawIpAddress(value) === null, NO_RAW_IP);

export const RawValueRedacted = SignalText(500).meta({
  description:
    "The signal's value, redacted by the sender. Any raw IPv4 or IPv6 address in it (with a port, in brackets, IPv4-mapped) is refused (422); masked forms such as `203.0.113.x`, `203.0.x.x` or `2001:db8:x:x:x:x:x:x` are kept as sent.",
});

export const NetworkAttribution = z
  .object({
    object: z.literal("network_attribution"),
    id: z.string(),
    network_attribution_id: z.string(),
    matter_id: z.string(),
    wallet_address: z.string(),
    signal_type: z.enum(NETWORK_SIGNAL_TYPES),
    source: z.string(),
    legal_process_id: z.string().nullable(),
    timestamp: Timestamp.meta({ description: "when the signal was observed" }),
    raw_value_redacted: z.string(),
    privacy_restrictions: z.array(z.string()),
    confidence_level: ConfidenceLevel.meta({
      description:
        "derived on each read from the matter's signals on the same wallet: L0 alone; L1 when another source points at the wallet, one level more for another legal process and for another signal type among them, at most L3",
    }),
    confidence_explanation: z.string(),
    corroborating_signal_ids: z.array(z.string()),
    review_required: z.literal(true).meta({ description: "always true: a network signal is never standalone proof" }),
    created_at: Timestamp,
    audit: Audit,
  })
  .meta({ id: "LegacyNetworkAttribution" });
export type NetworkAttribution = z.infer<typeof NetworkAttribution>;

export const RecordSignalBody = z
  .object({
    // Only an id: a refused value is never echoed into a 404 (kept under an Idempotency-Key) that could hold an address.
    matter_id: ObjectIdParam,
    signal_type: z.enum(NETWORK_SIGNAL_TYPES),
    source: SignalText(200).meta({
      description:
        "who observed the signal (an exchange, a telecom); signals of one source never corroborate each other",
    }),
    wallet_address: SignalText(200),
    legal_process_id: SignalText(200)
      .nullable()
      .optional()
      .meta({
        description: `the legal process the signal was obtained under (a subpoena or order reference); required for ${IP_SIGNAL_TYPES.join(", ")}`,
      }),
    timestamp: DateTimeInput.meta({ description: "when the signal was observed; not in the future" }),
    raw_value_redacted: RawValueRedacted,
    privacy_restrictions: z
      .array(SignalText(200))
      .max(20, "must have at most 20 restrictions")
      .optional()
      .meta({ description: "stored and shown as sent (for example `law_enforcement_only`)" }),
  })
  .superRefine(
    // Runs even when other fields failed, so one 422 names every bad field.
    (body, ctx) => {
      const type = (body as { signal_type?: unknown }).signal_type;
      const process = (body as { legal_process_id?: unknown }).legal_process_id;
      const isIp =
        (NETWORK_SIGNAL_TYPES as readonly unknown[]).includes(type) && isIpSignalType(type as NetworkSignalType);
      if (isIp && (process === undefined || process === null)) {
        ctx.addIssue({
          code: "invalid_type",
          expected: "string",
          input: undefined,
          path: ["legal_process_id"],
          message: `is required for an IP signal (${type})`,
        });
      }
    },
    { when: () => true },
  )
  .meta({
    id: "LegacyRecordNetworkSignalBody",
    example: {
      matter_id: EXAMPLE_MATTER,
      signal_type: "exchange_login_ip",
      source: "Exchange A law enforcement response",
      wallet_address: EXAMPLE_WALLET,
      legal_process_id: "SUBPOENA-2026-0142",
      timestamp: "2026-05-30T14:03:11.000Z",
      raw_value_redacted: "203.0.113.x",
      privacy_restrictions: ["law_enforcement_only"],
    },
  });
export type RecordSignalBody = z.infer<typeof RecordSignalBody>;

export const CorrelateSignalsBody = z
  .object({
    matter_id: ObjectIdParam,
    wallet_ids: z
      .array(NonBlankText(200))
      .min(1, "must not be empty (leave it out to weigh every wallet)")
      .max(100, "must have at most 100 wallets")
      .optional()
      .meta({
        description:
          "wallet addresses of the matter (its parties' wallets or its signals' wallets); only signals on these are correlated",
      }),
    signal_ids: z
      .array(NonBlankText(64))
      .min(1, "must not be empty (leave it out to weigh every signal)")
      .max(100, "must have at most 100 signals")
      .optional()
      .meta({ description: "signals of the matter to weigh; all of them when left out" }),
  })
  .meta({
    id: "LegacyCorrelateNetworkSignalsBody",
    example: { matter_id: EXAMPLE_MATTER, wallet_ids: [EXAMPLE_WALLET] },
  });
export type CorrelateSignalsBody = z.infer<typeof CorrelateSignalsBody>;

export const NetworkCorrelation = z
  .object({
    subject: z.string().meta({ description: "the wallet address the signal points at, as recorded" }),
    signal_id: z.string(),
    confidence_level: ConfidenceLevel,
    explanation: z.string().meta({ description: "what corroborates what, and the level it gives" }),
    review_required: z.literal(true),
    corroborating_signal_ids: z.array(z.string()),
  })
  .meta({ id: "LegacyNetworkCorrelation" });

export const NetworkCorrelationResult = z
  .object({
    object: z.literal("network_correlation"),
    matter_id: z.string(),
    correlations: z.array(NetworkCorrelation),
  })
  .meta({ id: "LegacyNetworkCorrelationResult" });
export type NetworkCorrelationResult = z.infer<typeof NetworkCorrelationResult>;

export const networkAttributionOperations = {
  recordSignal: defineOperation({
    id: "legacyRecordNetworkSignal",
    method: "POST",
    path: "/v1/network-attribution/signals",
    scope: "network:write",
    tag: "Network attribution",
    summary:
      "Record a network attribution signal of a matter's wallet, redacted: a raw IP address in raw_value_redacted is refused.",
    successStatus: 201,
    body: RecordSignalBody,
    response: NetworkAttribution,
    idempotent: true,
    events: ["matter.updated"],
    alsoAnswers: {
      404: { description: "Unknown matter_id" },
      409: { description: "The matter is closed, or the Idempotency-Key was reused or is in flight" },
    },
    rpc: false,
    surface: "legacy",
    successor: JOB_VERBS_SUCCESSOR,
  }),
  correlate: defineOperation({
    id: "legacyCorrelateNetworkSignals",
    method: "POST",
    path: "/v1/network-attribution/correlate",
    scope: "network:correlate",
    tag: "Network attribution",
    summary:
      "Weigh a matter's recorded signals: one correlation per signal with its confidence (L0 alone, up to L3 when corroborated) and its explanation; always for review; records nothing.",
    successStatus: 200,
    body: CorrelateSignalsBody,
    response: NetworkCorrelationResult,
    idempotent: true,
    events: [],
    alsoAnswers: { 404: { description: "Unknown matter_id, or a signal_ids entry that is not the caller's" } },
    rpc: false,
    surface: "legacy",
    successor: JOB_VERBS_SUCCESSOR,
  }),
  get: defineOperation({
    id: "legacyRetrieveNetworkAttribution",
    method: "GET",
    path: "/v1/network-attribution/{network_attribution_id}",
    scope: "network:read",
    tag: "Network attribution",
    summary: "Retrieve a network attribution signal, with its confidence derived from the matter's signals.",
    successStatus: 200,
    response: NetworkAttribution,
    idempotent: false,
    events: [],
    rpc: false,
    surface: "legacy",
    successor: JOB_VERBS_SUCCESSOR,
  }),
};
