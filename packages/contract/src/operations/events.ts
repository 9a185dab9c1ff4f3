import { defineOperation } from "../operation";
import { listOf } from "../schemas/common";
import { ChainCheckpoint, ChainVerification, Event, ListEventsQuery, VerifyChainQuery } from "../schemas/events";

export const eventOperations = {
  list: defineOperation({
    id: "listEvents",
    method: "GET",
    path: "/v1/events",
    scope: "events:read",
    tag: "Events",
    summary: "List events, most recent first.",
    successStatus: 200,
    query: ListEventsQuery,
    response: listOf(Event, "EventList"),
    idempotent: false,
    events: [],
  }),
  verifyChain: defineOperation({
    id: "verifyEventChain",
    method: "GET",
    path: "/v1/events/verify-chain",
    scope: "events:read",
    tag: "Events",
    summary:
      "Walk the event log (all of it, or from a signed checkpoint), recompute every hash and signature, " +
      "compare its end with the recorded head and a kept checkpoint, and report the first break.",
    successStatus: 200,
    query: VerifyChainQuery,
    response: ChainVerification,
    idempotent: false,
    events: [],
  }),
  checkpoint: defineOperation({
    id: "retrieveEventCheckpoint",
    method: "GET",
    path: "/v1/events/checkpoint",
    scope: "events:read",
    tag: "Events",
    summary: "The chain's current head (sequence, hash, issued_at), signed with the event signing key.",
    successStatus: 200,
    response: ChainCheckpoint,
    idempotent: false,
    events: [],
  }),
  get: defineOperation({
    id: "retrieveEvent",
    method: "GET",
    path: "/v1/events/{event_id}",
    scope: "events:read",
    tag: "Events",
    summary: "Retrieve an event exactly as it was signed.",
    successStatus: 200,
    response: Event,
    idempotent: false,
    events: [],
  }),
};
