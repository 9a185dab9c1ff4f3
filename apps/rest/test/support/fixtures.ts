import { Event, Matter } from "@crs/contract";
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
