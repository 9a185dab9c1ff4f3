import { describe, expect, it } from "vitest";
import { NodeList } from "../../src/tracing/node-list";

describe("NodeList", () => {
  it("keeps addresses in push order past its first room, and a view keeps its length", () => {
    const list = new NodeList();
    const pushed = Array.from({ length: 1000 }, (_, i) => (i * 7919) % 100_003);
    for (const node of pushed.slice(0, 300)) list.push(node);
    const early = list.view();
    for (const node of pushed.slice(300)) list.push(node);
    expect(list.length).toBe(1000);
    expect([...list]).toEqual(pushed);
    expect(list.at(999)).toBe(pushed[999]);
    expect([...early]).toEqual(pushed.slice(0, 300));
  });

  it("is empty after clear and takes new addresses from the start", () => {
    const list = new NodeList();
    for (let i = 0; i < 600; i++) list.push(i);
    list.clear();
    expect(list.length).toBe(0);
    expect([...list]).toEqual([]);
    list.push(42);
    list.push(7);
    expect([...list]).toEqual([42, 7]);
    expect([...list.view()]).toEqual([42, 7]);
  });
});
