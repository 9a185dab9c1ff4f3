import { growInt32 } from "./typed-growth";

/**
 * A list of address ids in a typed column that grows by doubling and keeps its room across `clear`.
 * A trace's state lists every address it reaches, up to hundreds of thousands; a plain array emptied
 * with `length = 0` gives its room back, and growing it again element by element cost a large trace
 * more than 10 ms.
 */
export class NodeList implements Iterable<number> {
  private items = new Int32Array(256);
  length = 0;

  push(node: number): void {
    if (this.length === this.items.length) this.items = growInt32(this.items, this.length + 1);
    this.items[this.length++] = node;
  }

  /** The `i`th address (0 ≤ i < length). */
  at(i: number): number {
    return this.items[i]!;
  }

  clear(): void {
    this.length = 0;
  }

  /**
   * The addresses so far, as a view: later pushes do not change it, but once the list is cleared the
   * next pushes write over it.
   */
  view(): Int32Array {
    return this.items.subarray(0, this.length);
  }

  /** Over the addresses there were when the loop began: ones pushed during it are not visited. */
  [Symbol.iterator](): IterableIterator<number> {
    return this.view()[Symbol.iterator]();
  }
}
