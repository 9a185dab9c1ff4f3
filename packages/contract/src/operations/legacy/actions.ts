import { ACTION_PRIORITIES, ACTION_STATUSES } from "@crs/core";
import { z } from "zod";
import { JOB_VERBS_SUCCESSOR } from "../../legacy";
import { defineOperation } from "../../operation";
import {
  Audit,
  DateTimeInput,
  ListQuery,
  listOf,
  NonBlankText,
  ObjectIdParam,
  SourceRefInput,
  Text,
  Timestamp,
} from "../../schemas/common";
import { SourceRef } from "../packets";

/**
 * Actions (2026-06-11): the operator task queue. An action is a task on a matter, with an owner, a
 * priority, a due time and a status that moves only along open → in_progress → completed | canceled.
 * Every write is an enforcement step: it needs granted authority on the matter and no open sanctions hit.
 */

const EXAMPLE_MATTER = "matter_01k1z9r5ht3q7mxw2c4d8e6f0g";

const OwnerId = NonBlankText(200).meta({
  description: "who the action is assigned to: the caller's own reference for a person or team (kept as sent)",
});

export const Action = z
  .object({
    object: z.literal("action"),
    id: z.string(),
    action_id: z.string(),
    matter_id: z.string(),
    campaign_id: z.string().nullable().meta({ description: "the claw campaign the action belongs to, if any" }),
    type: z.string(),
    title: z.string(),
    owner_id: z.string().nullable(),
    priority: z.enum(ACTION_PRIORITIES),
    status: z.enum(ACTION_STATUSES),
    due_at: Timestamp.nullable(),
    linked_packet_id: z.string().nullable(),
    assignment_notes: z.string().nullable().meta({ description: "the notes of the latest assign" }),
    completion_notes: z.string().nullable(),
    review_required: z.boolean().meta({
      description: "a review blocker on its campaign's board until the action is completed or canceled",
    }),
    evidence_refs: z.array(SourceRef),
    completed_at: Timestamp.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
    audit: Audit,
  })
  .meta({ id: "LegacyAction" });
export type Action = z.infer<typeof Action>;

export const CreateActionBody = z
  .object({
    matter_id: NonBlankText(64),
    type: NonBlankText(100).meta({ description: "what kind of task, in the caller's words (e.g. `call_exchange`)" }),
    title: NonBlankText(500),
    campaign_id: NonBlankText(64)
      .nullable()
      .optional()
      .meta({ description: "a claw campaign of the same matter (404 otherwise); its gates then apply" }),
    owner_id: OwnerId.nullable().optional(),
    priority: z.enum(ACTION_PRIORITIES).optional().meta({ description: "default `normal`" }),
    due_at: DateTimeInput.nullable().optional(),
    linked_packet_id: NonBlankText(64)
      .nullable()
      .optional()
      .meta({ description: "a packet of the same matter (404 otherwise)" }),
    review_required: z.boolean().optional().meta({ description: "default false" }),
  })
  .meta({
    id: "LegacyCreateActionBody",
    example: {
      matter_id: EXAMPLE_MATTER,
      type: "call_exchange",
      title: "Call the exchange's compliance desk about the freeze",
      owner_id: "jane.counsel",
      priority: "high",
      due_at: "2026-07-01T17:00:00Z",
    },
  });
export type CreateActionBody = z.infer<typeof CreateActionBody>;

export const UpdateActionBody = z
  .object({
    title: NonBlankText(500).optional(),
    status: z.enum(ACTION_STATUSES).optional().meta({
      description:
        "open → in_progress, in_progress → canceled; `completed` only through POST /v1/actions/{action_id}/complete",
    }),
    priority: z.enum(ACTION_PRIORITIES).optional(),
    owner_id: OwnerId.nullable().optional(),
    due_at: DateTimeInput.nullable().optional(),
  })
  .meta({ id: "LegacyUpdateActionBody", example: { status: "in_progress", priority: "urgent" } });
export type UpdateActionBody = z.infer<typeof UpdateActionBody>;

export const AssignActionBody = z.object({ owner_id: OwnerId, notes: Text(10_000).nullable().optional() }).meta({
  id: "LegacyAssignActionBody",
  example: { owner_id: "sam.paralegal", notes: "Sam has the exchange contact." },
});

export const CompleteActionBody = z
  .object({
    completion_notes: NonBlankText(10_000),
    evidence_refs: z.array(SourceRefInput).max(200, "must have at most 200 evidence refs").optional(),
  })
  .meta({
    id: "LegacyCompleteActionBody",
    example: {
      completion_notes: "Exchange confirmed the freeze by email.",
      evidence_refs: [{ source_id: "email-2026-07-01", source_type: "email", title: "Freeze confirmation" }],
    },
  });

/** Filters of the action lists; each bad value is a 400 naming it. */
const ActionFilters = {
  owner_id: NonBlankText(200).optional(),
  campaign_id: ObjectIdParam.optional(),
  status: z.enum(ACTION_STATUSES).optional(),
  priority: z.enum(ACTION_PRIORITIES).optional(),
  due_after: DateTimeInput.optional().meta({ description: "due at or after this time" }),
  due_before: DateTimeInput.optional().meta({ description: "due strictly before this time" }),
};

export const ListActionsQuery = ListQuery.extend({ matter_id: ObjectIdParam.optional(), ...ActionFilters });
export type ListActionsQuery = z.infer<typeof ListActionsQuery>;
export const ListMatterActionsQuery = ListQuery.extend(ActionFilters);

const ActionList = listOf(Action, "LegacyActionList");

const GATES =
  "Refused with 403 authority_required without granted authority on the matter, and 403 sanctions_gate while a sanctions hit on it awaits review.";
const ACTION_WRITE_ANSWERS = {
  403: { description: `The key lacks the scope, or a gate refused the write. ${GATES}` },
  409: {
    description:
      "The matter is closed, the status move is not allowed from the action's status (details.allowed), or the Idempotency-Key was reused or is in flight",
  },
} as const;
const legacy = { rpc: false, surface: "legacy", successor: JOB_VERBS_SUCCESSOR } as const;

export const actionOperations = {
  create: defineOperation({
    id: "legacyCreateAction",
    method: "POST",
    path: "/v1/actions",
    scope: "actions:write",
    tag: "Actions",
    summary: "Add an open action to a matter. Needs granted authority and no open sanctions hit.",
    successStatus: 201,
    body: CreateActionBody,
    response: Action,
    idempotent: true,
    events: ["matter.updated"],
    alsoAnswers: {
      404: {
        description: "Unknown matter_id, linked_packet_id or campaign_id (or a packet or campaign of another matter)",
      },
      ...ACTION_WRITE_ANSWERS,
      409: {
        description: `${ACTION_WRITE_ANSWERS[409].description}; stay_in_effect when the named campaign's judgment is stayed`,
      },
    },
    ...legacy,
  }),
  list: defineOperation({
    id: "legacyListActions",
    method: "GET",
    path: "/v1/actions",
    scope: "actions:read",
    tag: "Actions",
    summary: "List actions, most recent first, by matter, owner, campaign, status, priority or due time.",
    successStatus: 200,
    query: ListActionsQuery,
    response: ActionList,
    idempotent: false,
    events: [],
    ...legacy,
  }),
  get: defineOperation({
    id: "legacyRetrieveAction",
    method: "GET",
    path: "/v1/actions/{action_id}",
    scope: "actions:read",
    tag: "Actions",
    summary: "Retrieve an action.",
    successStatus: 200,
    response: Action,
    idempotent: false,
    events: [],
    ...legacy,
  }),
  update: defineOperation({
    id: "legacyUpdateAction",
    method: "PATCH",
    path: "/v1/actions/{action_id}",
    scope: "actions:write",
    tag: "Actions",
    summary: "Change an action's title, priority, owner, due time, or status (start or cancel it).",
    successStatus: 200,
    body: UpdateActionBody,
    response: Action,
    idempotent: true,
    events: ["matter.updated"],
    alsoAnswers: ACTION_WRITE_ANSWERS,
    ...legacy,
  }),
  assign: defineOperation({
    id: "legacyAssignAction",
    method: "POST",
    path: "/v1/actions/{action_id}/assign",
    scope: "actions:assign",
    tag: "Actions",
    summary: "Assign an action to an owner, with notes.",
    successStatus: 200,
    body: AssignActionBody,
    response: Action,
    idempotent: true,
    events: ["matter.updated"],
    alsoAnswers: ACTION_WRITE_ANSWERS,
    ...legacy,
  }),
  complete: defineOperation({
    id: "legacyCompleteAction",
    method: "POST",
    path: "/v1/actions/{action_id}/complete",
    scope: "actions:complete",
    tag: "Actions",
    summary: "Complete an in-progress action, with completion notes (required) and evidence refs.",
    successStatus: 200,
    body: CompleteActionBody,
    response: Action,
    idempotent: true,
    events: ["matter.updated"],
    alsoAnswers: ACTION_WRITE_ANSWERS,
    ...legacy,
  }),
  listOfMatter: defineOperation({
    id: "legacyListMatterActions",
    method: "GET",
    path: "/v1/actions/matters/{matter_id}",
    scope: "actions:read",
    tag: "Actions",
    summary: "List one matter's actions, most recent first, with the same filters as the action list.",
    successStatus: 200,
    query: ListMatterActionsQuery,
    response: ActionList,
    idempotent: false,
    events: [],
    alsoAnswers: { 404: { description: "Unknown matter_id" } },
    ...legacy,
  }),
};
