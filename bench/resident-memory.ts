import { readFileSync } from "node:fs";

/** VmRSS and VmHWM (the peak since the process started) of a process, in MiB, from /proc (Linux). */
export function residentMiB(pid: number | "self"): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN);
  return { rss: kib("VmRSS") / 1024, peak: kib("VmHWM") / 1024 };
}
