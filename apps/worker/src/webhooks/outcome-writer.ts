/**
 * Group commit for attempt outcomes: the first outcome is written at once; the ones that arrive while a
 * write is in flight wait for it and then go together in the next statement. An outcome is never held back
 * when nothing is being written, so this adds no latency on an idle worker, and under load the number of
 * statements follows the database's pace rather than the number of deliveries.
 */
export interface GroupWriter<Item, Result> {
  /** resolves with this item's result once the statement that carried it committed; rejects if it failed */
  write(item: Item): Promise<Result>;
}

/** `writeMany` writes items in one statement and returns their results in the same order. */
export function createGroupWriter<Item, Result>(
  writeMany: (items: Item[]) => Promise<Result[]>,
  maxBatch: number,
): GroupWriter<Item, Result> {
  const waiting: { item: Item; resolve: (result: Result) => void; reject: (error: unknown) => void }[] = [];
  let writing = false;

  async function drain(): Promise<void> {
    writing = true;
    try {
      while (waiting.length > 0) {
        const batch = waiting.splice(0, maxBatch);
        try {
          const results = await writeMany(batch.map((entry) => entry.item));
          for (const [index, entry] of batch.entries()) entry.resolve(results[index] as Result);
        } catch (error) {
          for (const entry of batch) entry.reject(error);
        }
      }
    } finally {
      writing = false;
    }
  }

  return {
    write(item) {
      return new Promise<Result>((resolve, reject) => {
        waiting.push({ item, resolve, reject });
        if (!writing) void drain();
      });
    },
  };
}
