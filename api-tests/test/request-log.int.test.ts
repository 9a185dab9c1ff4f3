import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createMatter } from "./support/fixtures";
import { useTestApp } from "./support/test-app";

/** Every line both apps wrote, parsed: each must be one JSON object. */
const lines: string[] = [];
const app = useTestApp({ logStream: { write: (line: string) => void lines.push(line) } });

const RequestLine = z.object({
  msg: z.literal("request"),
  level: z.literal(30),
  time: z.number(),
  request_id: z.string().startsWith("req_"),
  surface: z.enum(["rest", "trpc"]),
  method: z.string(),
  route: z.string().nullable(),
  status: z.number().int(),
  duration_ms: z.number().nonnegative(),
  organization_id: z.string().nullable(),
  environment: z.string().nullable(),
  key_id: z.string().nullable(),
});

/** The request lines of one request id (the finish hook runs just after the answer is sent). */
async function requestLines(requestId: string | null) {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const found = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((entry) => entry.msg === "request" && entry.request_id === requestId);
    if (found.length > 0) return found.map((entry) => RequestLine.parse(entry));
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return [];
}

describe("request log: one JSON line per request", () => {
  it("REST: the route template, status, duration and the caller, under the answer's request id", async () => {
    const owner = await app().mintKey();
    const { matter } = await createMatter(app(), owner);
    const response = await app().request("GET", `/v1/matters/${matter.id}`, { key: owner.key });
    expect(response.status).toBe(200);
    const logged = await requestLines(response.headers.get("svc-request-id"));
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({
      surface: "rest",
      method: "GET",
      route: "/v1/matters/{matter_id}",
      status: 200,
      organization_id: owner.organizationId,
      environment: "sandbox",
      key_id: owner.keyId,
    });
    // The id in the URL is not the route: the line groups by template.
    expect(JSON.stringify(logged[0])).not.toContain(owner.key);
  });

  it("REST: a refused request is logged with its status and no caller; an unknown URL has no route", async () => {
    const refused = await app().request("GET", "/v1/matters", { key: null });
    expect(refused.status).toBe(401);
    expect(await requestLines(refused.headers.get("svc-request-id"))).toMatchObject([
      { route: "/v1/matters", status: 401, organization_id: null, key_id: null },
    ]);
    const unknown = await app().request("GET", "/v1/no-such-thing", { key: null });
    expect(unknown.status).toBe(404);
    expect(await requestLines(unknown.headers.get("svc-request-id"))).toMatchObject([{ route: null, status: 404 }]);
  });

  it("tRPC: the procedure name and the caller", async () => {
    const owner = await app().mintKey();
    const response = await app().rpc("query", "matters.list", { key: owner.key });
    expect(response.status).toBe(200);
    expect(await requestLines(response.headers.get("svc-request-id"))).toMatchObject([
      {
        surface: "trpc",
        method: "GET",
        route: "matters.list",
        status: 200,
        organization_id: owner.organizationId,
        key_id: owner.keyId,
      },
    ]);
  });

  it("every line either app wrote is a single JSON object", () => {
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
  });
});
