/**
 * The part of autocannon 9's programmatic API the bench uses (the package ships no types and
 * @types/autocannon is not a dependency). Shapes follow lib/aggregateResult.js and lib/run.js.
 */
declare module "autocannon" {
  namespace autocannon {
    interface Request {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
      /** Called before each request is sent; return the request to send (or a falsy value to skip). */
      setupRequest?: (request: Request, context: Record<string, unknown>) => Request | null | undefined;
    }

    interface Options {
      url: string;
      title?: string;
      /** concurrent connections */
      connections?: number;
      /** seconds */
      duration?: number;
      /** seconds before a request counts as a timeout */
      timeout?: number;
      pipelining?: number;
      method?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
      requests?: Request[];
    }

    /** hdr-histogram-percentiles-obj summary: averages and percentiles (p50, p97_5, p99, ...). */
    interface Histogram {
      average: number;
      mean: number;
      stddev: number;
      min: number;
      max: number;
      total?: number;
      sent?: number;
      p50: number;
      p90: number;
      p97_5: number;
      p99: number;
      [percentile: `p${string}`]: number;
    }

    interface Result {
      title?: string;
      url: string;
      connections: number;
      /** seconds */
      duration: number;
      errors: number;
      timeouts: number;
      non2xx: number;
      resets: number;
      "1xx": number;
      "2xx": number;
      "3xx": number;
      "4xx": number;
      "5xx": number;
      statusCodeStats: Record<string, { count: number }>;
      /** milliseconds */
      latency: Histogram;
      /** requests per second, sampled each second */
      requests: Histogram;
      /** bytes per second */
      throughput: Histogram;
    }
  }

  /** Without a callback, resolves with the result when the run ends. */
  function autocannon(options: autocannon.Options): Promise<autocannon.Result>;
  export = autocannon;
}
