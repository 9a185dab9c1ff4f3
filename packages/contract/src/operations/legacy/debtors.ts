import { PARTY_TYPES, REVIEW_STATUSES } from "@crs/core";
import { z } from "zod";
import { DEBTOR_SUCCESSOR_NOTE } from "../../legacy";
import { defineOperation } from "../../operation";
import { JsonObject, ListQuery, listOf, NonBlankText, ObjectIdParam, Timestamp } from "../../schemas/common";
import { Aliases, PARTY_WRITE_ANSWERS, Wallet, Wallets } from "../parties";

/**
 * Debtors (2026-06-11): a debtor is a party with role `debtor`, its `debtor_id` the party's id. These
 * operations read and write the same party rows as `/v1/parties`; nothing is copied.
 */

const EXAMPLE_MATTER = "matter_01k1z9r5ht3q7mxw2c4d8e6f0g";

export const DebtorReviewState = z
  .object({
    review_required: z.boolean(),
    review_status: z.enum(REVIEW_STATUSES),
    reasons: z.array(z.string()).meta({ description: "why a review is required (one per open sanctions hit)" }),
  })
  .meta({
    id: "LegacyDebtorReviewState",
    description:
      "Derived from the party's sanctions hits: `pending` while any is open, else `not_required`. An operator clears a hit (operator.clearSanctionsHit).",
  });

export const Debtor = z
  .object({
    object: z.literal("debtor"),
    id: z.string(),
    debtor_id: z.string().meta({ description: "the party id of the debtor" }),
    matter_id: z.string(),
    type: z.enum(PARTY_TYPES).nullable(),
    legal_name: z.string().meta({ description: "the party's legal name, or its name when it has none" }),
    aliases: z.array(z.string()),
    identifiers: JsonObject,
    wallets: z.array(Wallet),
    review_state: DebtorReviewState,
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: "LegacyDebtor" });
export type Debtor = z.infer<typeof Debtor>;

export const CreateDebtorBody = z
  .object({
    matter_id: NonBlankText(64),
    type: z.enum(PARTY_TYPES).nullable().optional(),
    legal_name: NonBlankText(200),
    aliases: Aliases.optional(),
    identifiers: JsonObject.optional(),
    wallets: Wallets.optional(),
  })
  .meta({
    id: "LegacyCreateDebtorBody",
    example: {
      matter_id: EXAMPLE_MATTER,
      type: "individual",
      legal_name: "Jane Roe",
      aliases: ["J. Roe"],
      identifiers: { passport: "X1234567" },
    },
  });
export type CreateDebtorBody = z.infer<typeof CreateDebtorBody>;

export const UpdateDebtorBody = z
  .object({
    legal_name: NonBlankText(200).optional(),
    aliases: Aliases.optional(),
    identifiers: JsonObject.optional(),
    wallets: Wallets.optional(),
    review_state: DebtorReviewState.partial().nullable().optional().meta({
      description:
        "Derived, so only accepted unchanged: null, or a `review_status` equal to the debtor's own, changes nothing; another status is a 422 (an operator clears the sanctions hits it follows).",
    }),
  })
  .meta({ id: "LegacyUpdateDebtorBody", example: { aliases: ["J. Roe", "Janie Roe"] } });
export type UpdateDebtorBody = z.infer<typeof UpdateDebtorBody>;

export const ListDebtorsQuery = ListQuery.extend({ matter_id: ObjectIdParam.optional() });

export const debtorOperations = {
  create: defineOperation({
    id: "legacyCreateDebtor",
    method: "POST",
    path: "/v1/debtors",
    scope: "debtors:write",
    tag: "Debtors",
    summary: "Add a debtor to a matter: a party with role debtor, screened against the sanctions list.",
    successStatus: 201,
    body: CreateDebtorBody,
    response: Debtor,
    idempotent: true,
    events: ["party.created", "matter.updated"],
    alsoAnswers: { 404: { description: "Unknown matter_id" }, ...PARTY_WRITE_ANSWERS },
    rpc: false,
    surface: "legacy",
    successor: { operation: "createParty", note: DEBTOR_SUCCESSOR_NOTE },
  }),
  list: defineOperation({
    id: "legacyListDebtors",
    method: "GET",
    path: "/v1/debtors",
    scope: "debtors:read",
    tag: "Debtors",
    summary: "List debtors (parties with role debtor), most recent first, optionally of one matter.",
    successStatus: 200,
    query: ListDebtorsQuery,
    response: listOf(Debtor, "LegacyDebtorList"),
    idempotent: false,
    events: [],
    rpc: false,
    surface: "legacy",
    successor: { operation: "listParties", note: DEBTOR_SUCCESSOR_NOTE },
  }),
  get: defineOperation({
    id: "legacyRetrieveDebtor",
    method: "GET",
    path: "/v1/debtors/{debtor_id}",
    scope: "debtors:read",
    tag: "Debtors",
    summary: "Retrieve a debtor; a party of another role is not one (404).",
    successStatus: 200,
    response: Debtor,
    idempotent: false,
    events: [],
    rpc: false,
    surface: "legacy",
    successor: { operation: "retrieveParty", note: DEBTOR_SUCCESSOR_NOTE },
  }),
  update: defineOperation({
    id: "legacyUpdateDebtor",
    method: "PATCH",
    path: "/v1/debtors/{debtor_id}",
    scope: "debtors:write",
    tag: "Debtors",
    summary: "Update a debtor's legal name, aliases, identifiers or wallets; changed ones are screened again.",
    successStatus: 200,
    body: UpdateDebtorBody,
    response: Debtor,
    idempotent: true,
    events: ["party.updated", "matter.updated"],
    alsoAnswers: PARTY_WRITE_ANSWERS,
    rpc: false,
    surface: "legacy",
    successor: { operation: "updateParty", note: DEBTOR_SUCCESSOR_NOTE },
  }),
};
