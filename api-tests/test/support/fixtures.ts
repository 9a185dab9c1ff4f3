import { Event, Judgment, JudgmentValidation, Matter, Party, RecoveryEvent } from "@crs/contract";
import { expect } from "vitest";
import { z } from "zod";
import { expectStandardHeaders } from "./expectations";
import type { TestApp, TestKey, TestResponse } from "./test-app";

export interface CreatedMatter {
  response: TestResponse;
  matter: Matter;
}

/** POST /v1/matters over HTTP; fails the test unless it answers 201. */
export async function createMatter(
  app: TestApp,
  owner: TestKey,
  body: Record<string, unknown> = { name: "Acme Holdings v. Doe" },
): Promise<CreatedMatter> {
  const response = await app.request("POST", "/v1/matters", { key: owner.key, body });
  expectStandardHeaders(response);
  expect({ status: response.status, body: response.json }).toMatchObject({ status: 201 });
  return { response, matter: Matter.parse(response.json) };
}

/** POST /v1/parties over HTTP; fails the test unless it answers 201. */
export async function createParty(
  app: TestApp,
  owner: TestKey,
  body: Record<string, unknown>,
): Promise<{ response: TestResponse; party: Party }> {
  const response = await app.request("POST", "/v1/parties", { key: owner.key, body });
  expectStandardHeaders(response);
  expect({ status: response.status, body: response.json }).toMatchObject({ status: 201 });
  return { response, party: Party.parse(response.json) };
}

/** A judgment body whose creditor and debtor are the parties createCase adds. */
export function judgmentBody(matterId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    matter_id: matterId,
    court: "Superior Court of California, County of Los Angeles",
    case_number: "23STCV01234",
    jurisdiction: "US-CA",
    creditor: "Acme Holdings LLC",
    debtor: "Doe Trading Ltd",
    amount: { amount: 250000, currency: "USD" },
    date_entered: "2024-03-15",
    ...overrides,
  };
}

/** POST /v1/judgments/intake over HTTP; fails the test unless it answers 201. */
export async function intakeJudgment(
  app: TestApp,
  owner: TestKey,
  body: Record<string, unknown>,
): Promise<{ response: TestResponse; judgment: Judgment }> {
  const response = await app.request("POST", "/v1/judgments/intake", { key: owner.key, body });
  expectStandardHeaders(response);
  expect({ status: response.status, body: response.json }).toMatchObject({ status: 201 });
  return { response, judgment: Judgment.parse(response.json) };
}

export interface Case {
  matter: Matter;
  debtor: Party;
  claimants: Party[];
  judgment: Judgment;
}

/**
 * The start of the canonical flow: a matter (lead counsel Jane Counsel), its debtor (an entity,
 * so no consumer-debt question), two claimants 0.6 / 0.4, and a judgment naming them.
 */
export async function createCase(
  app: TestApp,
  owner: TestKey,
  judgmentOverrides: Record<string, unknown> = {},
): Promise<Case> {
  const { matter } = await createMatter(app, owner, {
    name: "Acme Holdings v. Doe Trading",
    lead_counsel: "Jane Counsel",
  });
  const debtor = (
    await createParty(app, owner, {
      matter_id: matter.id,
      role: "debtor",
      name: "Doe Trading",
      legal_name: "Doe Trading Ltd",
      type: "entity",
    })
  ).party;
  const claimants = [
    (
      await createParty(app, owner, {
        matter_id: matter.id,
        role: "claimant",
        name: "Acme Holdings",
        legal_name: "Acme Holdings LLC",
        type: "entity",
        share: 0.6,
      })
    ).party,
    (await createParty(app, owner, { matter_id: matter.id, role: "claimant", name: "Beta Fund", share: 0.4 })).party,
  ];
  const { judgment } = await intakeJudgment(app, owner, judgmentBody(matter.id, judgmentOverrides));
  return { matter, debtor, claimants, judgment };
}

/** POST /v1/judgments/{id}/validate over HTTP (current version); fails the test unless it answers 200. */
export async function validate(
  app: TestApp,
  owner: TestKey,
  judgmentId: string,
  body: Record<string, unknown> = {},
): Promise<{ response: TestResponse; validation: JudgmentValidation }> {
  const response = await app.request("POST", `/v1/judgments/${judgmentId}/validate`, {
    key: owner.key,
    body,
    headers: { "svc-version": "2026-07-05" },
  });
  expect({ status: response.status, body: response.json }).toMatchObject({ status: 200 });
  return { response, validation: JudgmentValidation.parse(response.json) };
}

export const EventList = z.object({
  object: z.literal("list"),
  data: z.array(Event),
  has_more: z.boolean(),
  url: z.string(),
  audit_ref: z.string(),
});

/** Every event of the key's organization, oldest first (pages through GET /v1/events). */
export async function allEvents(app: TestApp, owner: TestKey, matterId?: string): Promise<Event[]> {
  const events: Event[] = [];
  let cursor: string | undefined;
  for (;;) {
    const query = new URLSearchParams({ limit: "100" });
    if (cursor) query.set("starting_after", cursor);
    if (matterId) query.set("matter_id", matterId);
    const response = await app.request("GET", `/v1/events?${query}`, { key: owner.key });
    expect(response.status).toBe(200);
    const page = EventList.parse(response.json);
    events.push(...page.data);
    if (!page.has_more) break;
    cursor = page.data.at(-1)?.id;
  }
  return events.reverse();
}

/** The events a write produced: those carrying its request id as audit_ref. */
export async function eventsOfRequest(app: TestApp, owner: TestKey, requestId: string): Promise<Event[]> {
  return (await allEvents(app, owner)).filter((event) => event.audit_ref === requestId);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** POST /v1/ledger/recovery-events over HTTP; fails the test unless it answers 201. */
export async function recordRecovery(
  app: TestApp,
  owner: TestKey,
  body: Record<string, unknown>,
): Promise<{ response: TestResponse; recoveryEvent: RecoveryEvent }> {
  const response = await app.request("POST", "/v1/ledger/recovery-events", { key: owner.key, body });
  expectStandardHeaders(response);
  expect({ status: response.status, body: response.json }).toMatchObject({ status: 201 });
  return { response, recoveryEvent: RecoveryEvent.parse(response.json) };
}
