import { findShareProblem, PARTY_ROLES, PARTY_STATUSES, PARTY_TYPES, SANCTIONS_ENTRY_KINDS } from "@crs/core";
import { z } from "zod";
import { defineOperation } from "../operation";
import { Audit, JsonObject, ListQuery, listOf, NonBlankText, ObjectIdParam, Text, Timestamp } from "../schemas/common";

const SHARE_MESSAGES = {
  not_finite: "must be a number between 0 and 1",
  out_of_range: "must be between 0 and 1",
  too_precise: "must have at most 6 decimal places",
} as const;

/** A claimant's share of what is distributed: 0 to 1, in millionths at most. */
export const Share = z
  .number()
  .check((ctx) => {
    const problem = findShareProblem(ctx.value);
    if (problem) ctx.issues.push({ code: "custom", message: SHARE_MESSAGES[problem], input: ctx.value });
  })
  .meta({ description: "0 to 1 with at most 6 decimals; the claimants of one matter never sum above 1" });

export const WalletInput = z
  .union([
    NonBlankText(200),
    z.object({
      address: NonBlankText(200),
      network: Text(50).nullable().optional(),
      label: Text(200).nullable().optional(),
    }),
  ])
  .meta({
    id: "WalletInput",
    description:
      "A wallet object, or its address alone. A plain string is stored as {address, network: null, label: null}: the network is never guessed from the address, since one address format serves many chains.",
  });

export const Wallet = z
  .object({ address: z.string(), network: z.string().nullable(), label: z.string().nullable() })
  .meta({ id: "Wallet" });

export const Aliases = z.array(NonBlankText(200)).max(50, "must have at most 50 aliases");
export const Wallets = z.array(WalletInput).max(100, "must have at most 100 wallets");

const PARTY_EXAMPLE_MATTER = "matter_01k1z9r5ht3q7mxw2c4d8e6f0g";

export const CreatePartyBody = z
  .object({
    matter_id: NonBlankText(64),
    role: z.enum(PARTY_ROLES),
    name: NonBlankText(200),
    legal_name: NonBlankText(200).nullable().optional(),
    type: z.enum(PARTY_TYPES).nullable().optional(),
    aliases: Aliases.optional(),
    identifiers: JsonObject.optional(),
    wallets: Wallets.optional(),
    economics: JsonObject.optional(),
    contact: JsonObject.optional(),
    notes: Text(10_000).nullable().optional(),
    share: Share.nullable().optional(),
  })
  .superRefine(
    (body, ctx) => {
      // Runs beside the field checks so one 422 names every bad field.
      if (typeof body !== "object" || body === null) return;
      const { role, share } = body as { role?: unknown; share?: unknown };
      if (share !== undefined && share !== null && role !== undefined && role !== "claimant") {
        ctx.addIssue({ code: "custom", path: ["share"], message: "applies only to claimants", input: share });
      }
    },
    { when: () => true },
  )
  .meta({
    id: "CreatePartyBody",
    example: {
      matter_id: PARTY_EXAMPLE_MATTER,
      role: "claimant",
      name: "Acme Holdings",
      legal_name: "Acme Holdings LLC",
      type: "entity",
      aliases: ["Acme"],
      identifiers: { ein: "12-3456789" },
      wallets: [{ address: "0x8ba1f109551bD432803012645Ac136ddd64DBA72", network: "ethereum", label: "treasury" }],
      contact: { email: "claims@acme.example" },
      share: 0.6,
    },
  });
export type CreatePartyBody = z.infer<typeof CreatePartyBody>;

export const UpdatePartyBody = z
  .object({
    name: NonBlankText(200).optional(),
    legal_name: NonBlankText(200).nullable().optional(),
    role: z.enum(PARTY_ROLES).optional(),
    type: z.enum(PARTY_TYPES).nullable().optional(),
    aliases: Aliases.optional(),
    identifiers: JsonObject.optional(),
    wallets: Wallets.optional(),
    economics: JsonObject.optional(),
    contact: JsonObject.optional(),
    notes: Text(10_000).nullable().optional(),
    status: z.enum(PARTY_STATUSES).optional(),
    share: Share.nullable().optional(),
  })
  .meta({
    id: "UpdatePartyBody",
    example: {
      aliases: ["Acme", "Acme Recovery"],
      wallets: ["bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"],
      share: 0.4,
    },
  });
export type UpdatePartyBody = z.infer<typeof UpdatePartyBody>;

export const SANCTIONS_MATCH_FIELDS = ["name", "legal_name", "alias", "wallet", "identifier"] as const;
export const SANCTIONS_HIT_STATUSES = ["open", "cleared"] as const;

export const SanctionsHit = z
  .object({
    object: z.literal("sanctions_hit"),
    id: z.string(),
    hit_id: z.string(),
    matter_id: z.string(),
    party_id: z.string().nullable().meta({ description: "the party screened; null for a hit of a sanctions screen" }),
    screen_id: z
      .string()
      .nullable()
      .meta({ description: "the 2026-06-11 sanctions screen that raised it (`sanc_…`); null for a party's hit" }),
    subject: z
      .enum(["wallet", "entity", "counterparty"])
      .nullable()
      .meta({ description: "what a sanctions screen's hit screened; null for a party's hit" }),
    status: z.enum(SANCTIONS_HIT_STATUSES).meta({ description: "open until a reviewer clears it" }),
    matched: z.object({
      field: z.enum(SANCTIONS_MATCH_FIELDS),
      value: z.string(),
      network: z.string().nullable(),
      path: z.string().nullable().meta({ description: "where in `identifiers` the value sits" }),
    }),
    list_entry: z.object({
      kind: z.enum(SANCTIONS_ENTRY_KINDS),
      value: z.string(),
      network: z.string().nullable(),
      program: z.string().nullable(),
      source: z.string(),
    }),
    created_at: Timestamp,
    cleared_at: Timestamp.nullable(),
    clear_notes: z.string().nullable(),
  })
  .meta({ id: "SanctionsHit" });
export type SanctionsHit = z.infer<typeof SanctionsHit>;

export const Party = z
  .object({
    object: z.literal("party"),
    id: z.string(),
    party_id: z.string(),
    matter_id: z.string(),
    livemode: z.boolean(),
    role: z.enum(PARTY_ROLES),
    name: z.string(),
    legal_name: z.string().nullable(),
    type: z.enum(PARTY_TYPES).nullable(),
    aliases: z.array(z.string()),
    identifiers: JsonObject,
    wallets: z.array(Wallet),
    economics: JsonObject,
    contact: JsonObject,
    notes: z.string().nullable(),
    share: z.number().nullable(),
    status: z.enum(PARTY_STATUSES),
    sanctions_hits: z
      .array(SanctionsHit)
      .meta({ description: "every time the party's names, wallets or identifiers were found on the sanctions list" }),
    created_at: Timestamp,
    updated_at: Timestamp,
    audit: Audit,
  })
  .meta({ id: "Party" });
export type Party = z.infer<typeof Party>;

export const ListPartiesQuery = ListQuery.extend({
  role: z.enum(PARTY_ROLES).optional(),
  matter_id: ObjectIdParam.optional(),
});
export type ListPartiesQuery = z.infer<typeof ListPartiesQuery>;

export const ListMatterPartiesQuery = ListQuery.extend({ role: z.enum(PARTY_ROLES).optional() });

const PartyList = listOf(Party, "PartyList");

/** Writes to a party lock its matter first; these are what the lock can refuse. */
export const PARTY_WRITE_ANSWERS = {
  409: { description: "The matter is closed, or the Idempotency-Key was reused or is in flight" },
} as const;

export const partyOperations = {
  create: defineOperation({
    id: "createParty",
    method: "POST",
    path: "/v1/parties",
    scope: "parties:write",
    tag: "Parties",
    summary:
      "Add a debtor, claimant or counterparty to a matter. Claimant shares of one matter never sum above 1; names, wallets and identifiers are screened against the sanctions list.",
    successStatus: 201,
    body: CreatePartyBody,
    response: Party,
    idempotent: true,
    events: ["party.created", "matter.updated"],
    alsoAnswers: { 404: { description: "Unknown matter_id" }, ...PARTY_WRITE_ANSWERS },
  }),
  list: defineOperation({
    id: "listParties",
    method: "GET",
    path: "/v1/parties",
    scope: "parties:read",
    tag: "Parties",
    summary: "List parties, most recent first, optionally by role and matter.",
    successStatus: 200,
    query: ListPartiesQuery,
    response: PartyList,
    idempotent: false,
    events: [],
  }),
  get: defineOperation({
    id: "retrieveParty",
    method: "GET",
    path: "/v1/parties/{party_id}",
    scope: "parties:read",
    tag: "Parties",
    summary: "Retrieve a party with its sanctions hits.",
    successStatus: 200,
    response: Party,
    idempotent: false,
    events: [],
  }),
  update: defineOperation({
    id: "updateParty",
    method: "PATCH",
    path: "/v1/parties/{party_id}",
    scope: "parties:write",
    tag: "Parties",
    summary:
      "Update a party's names, role, wallets, identifiers, contact, economics, status or share; changed names, wallets and identifiers are screened again.",
    successStatus: 200,
    body: UpdatePartyBody,
    response: Party,
    idempotent: true,
    events: ["party.updated", "matter.updated"],
    alsoAnswers: PARTY_WRITE_ANSWERS,
  }),
  listByMatter: defineOperation({
    id: "listMatterParties",
    method: "GET",
    path: "/v1/matters/{matter_id}/parties",
    scope: "parties:read",
    tag: "Parties",
    summary: "List a matter's parties, most recent first, optionally by role.",
    successStatus: 200,
    query: ListMatterPartiesQuery,
    response: PartyList,
    idempotent: false,
    events: [],
  }),
};
