import { describe, expect, it } from "vitest";
import { openStoredAnswer, sealStoredAnswer } from "../src/write/sealed-answers";

const KEY = Buffer.alloc(32, 7);
const CONTEXT = "idempotency:org_a:sandbox:create-the-endpoint";
const ANSWER = JSON.stringify({
  object: "webhook_endpoint",
  id: "we_01h00000000000000000000000",
  signing_secret: "whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA",
  url: "https://hooks.example.com/",
});

describe("secrets in a stored idempotent answer", () => {
  it("are stored encrypted and given back byte for byte", () => {
    const stored = sealStoredAnswer(ANSWER, ["signing_secret"], KEY, CONTEXT);
    expect(stored).not.toContain("whsec_");
    expect(JSON.parse(stored)).toMatchObject({
      id: "we_01h00000000000000000000000",
      url: "https://hooks.example.com/",
    });
    expect(openStoredAnswer(stored, ["signing_secret"], KEY, CONTEXT)).toBe(ANSWER);
  });

  it("open only in the record they were sealed for", () => {
    const stored = sealStoredAnswer(ANSWER, ["signing_secret"], KEY, CONTEXT);
    expect(() => openStoredAnswer(stored, ["signing_secret"], KEY, `${CONTEXT}-other`)).toThrow();
    expect(() => openStoredAnswer(stored, ["signing_secret"], Buffer.alloc(32, 8), CONTEXT)).toThrow();
  });

  it("leave answers without the field, error envelopes and null secrets as they are", () => {
    const error = JSON.stringify({ error: { code: "invalid_request" }, audit_ref: "req_x" });
    const cleared = JSON.stringify({ object: "webhook_fallback", url: null, signing_secret: null });
    for (const text of [error, cleared]) {
      expect(sealStoredAnswer(text, ["signing_secret"], KEY, CONTEXT)).toBe(text);
      expect(openStoredAnswer(text, ["signing_secret"], KEY, CONTEXT)).toBe(text);
    }
    expect(sealStoredAnswer(ANSWER, [], KEY, CONTEXT)).toBe(ANSWER);
  });
});
