import { describe, expect, it } from "vitest";
import {
  buildCronItems,
  createTaskList,
  IDEMPOTENCY_SWEEP,
  MONITORING_SWEEP_TASK,
  type TaskDeps,
  WEBHOOK_RECOVERY,
  type WorkerTask,
  workerTasks,
} from "../src/tasks";

// Building the task list only binds handlers; none runs here, so nothing is connected.
const deps = {} as TaskDeps;
const at = (min: number, hour = 3) => ({ min, hour, date: 1, month: 1, dow: 4 });

describe("worker schedule", () => {
  it("runs idempotency.sweep every 10 minutes, at most one queued, 5 attempts, no backfill", () => {
    const sweep = buildCronItems().find((item) => item.task === IDEMPOTENCY_SWEEP);
    expect(sweep).toBeDefined();
    if (!sweep) return;
    expect(sweep.identifier).toBe(IDEMPOTENCY_SWEEP);
    expect([0, 10, 20, 30, 40, 50].every((min) => sweep.match(at(min)))).toBe(true);
    expect([1, 5, 9, 15, 59].some((min) => sweep.match(at(min)))).toBe(false);
    expect(sweep.options).toMatchObject({
      maxAttempts: 5,
      jobKey: IDEMPOTENCY_SWEEP,
      jobKeyMode: "replace",
      backfillPeriod: 0,
    });
  });

  it("runs webhook.recover every minute, at most one queued, no backfill", () => {
    const recovery = buildCronItems().find((item) => item.task === WEBHOOK_RECOVERY);
    expect(recovery).toBeDefined();
    if (!recovery) return;
    expect([0, 1, 2, 17, 59].every((min) => recovery.match(at(min)))).toBe(true);
    expect(recovery.options).toMatchObject({ jobKey: WEBHOOK_RECOVERY, jobKeyMode: "replace", backfillPeriod: 0 });
  });

  it("runs monitoring.sweep every 5 minutes, at most one queued, no backfill", () => {
    const sweep = buildCronItems().find((item) => item.task === MONITORING_SWEEP_TASK);
    expect(sweep).toBeDefined();
    if (!sweep) return;
    expect([0, 5, 10, 55].every((min) => sweep.match(at(min)))).toBe(true);
    expect([1, 4, 6, 59].some((min) => sweep.match(at(min)))).toBe(false);
    expect(sweep.options).toMatchObject({ jobKey: MONITORING_SWEEP_TASK, jobKeyMode: "replace", backfillPeriod: 0 });
  });

  it("binds a handler for every task and schedules only the periodic ones", () => {
    const unscheduled: WorkerTask = { identifier: "trace.run", create: () => async () => {} };
    const tasks = [...workerTasks, unscheduled];
    expect(buildCronItems(tasks).map((item) => item.task)).toEqual(
      workerTasks.filter((t) => t.schedule).map((t) => t.identifier),
    );
    expect(Object.keys(createTaskList(deps, tasks)).sort()).toEqual(tasks.map((t) => t.identifier).sort());
  });

  it("refuses two tasks with the same identifier", () => {
    expect(() => createTaskList(deps, [...workerTasks, ...workerTasks])).toThrow(/Duplicate/);
  });
});
