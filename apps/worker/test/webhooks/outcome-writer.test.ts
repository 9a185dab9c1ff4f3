import { describe, expect, it } from "vitest";
import { createGroupWriter } from "../../src/webhooks/outcome-writer";
import { deferred } from "../helpers";

/** A writeMany that records each call's items and finishes only when the test says so. */
function controlledWrites() {
  const calls: { items: number[]; done: ReturnType<typeof deferred<void>>; fail: boolean }[] = [];
  const writeMany = async (items: number[]) => {
    const call = { items, done: deferred<void>(), fail: false };
    calls.push(call);
    await call.done.promise;
    if (call.fail) throw new Error(`write of ${items.join(",")} failed`);
    return items.map((item) => item * 10);
  };
  return { calls, writeMany };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("the outcome group writer", () => {
  it("writes the first item at once and groups the ones that arrive while that write is in flight", async () => {
    const { calls, writeMany } = controlledWrites();
    const writer = createGroupWriter(writeMany, 100);
    const first = writer.write(1);
    await settle();
    expect(calls.map((call) => call.items)).toEqual([[1]]);
    const rest = [writer.write(2), writer.write(3), writer.write(4)];
    await settle();
    expect(calls).toHaveLength(1);
    calls[0]?.done.resolve();
    expect(await first).toBe(10);
    await settle();
    expect(calls.map((call) => call.items)).toEqual([[1], [2, 3, 4]]);
    calls[1]?.done.resolve();
    expect(await Promise.all(rest)).toEqual([20, 30, 40]);
  });

  it("keeps each statement under its size limit", async () => {
    const { calls, writeMany } = controlledWrites();
    const writer = createGroupWriter(writeMany, 2);
    const all = [1, 2, 3, 4, 5].map((item) => writer.write(item));
    for (let i = 0; i < 3; i++) {
      await settle();
      calls[i]?.done.resolve();
    }
    expect(await Promise.all(all)).toEqual([10, 20, 30, 40, 50]);
    expect(calls.map((call) => call.items)).toEqual([[1], [2, 3], [4, 5]]);
  });

  it("rejects only the items of a write that failed, and goes on writing the next ones", async () => {
    const { calls, writeMany } = controlledWrites();
    const writer = createGroupWriter(writeMany, 100);
    const first = writer.write(1);
    await settle();
    const second = writer.write(2);
    if (calls[0]) calls[0].fail = true;
    calls[0]?.done.resolve();
    await expect(first).rejects.toThrow("write of 1 failed");
    await settle();
    calls[1]?.done.resolve();
    expect(await second).toBe(20);
  });
});
