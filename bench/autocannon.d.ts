// The part of autocannon's API the bench uses (the package ships no types).
declare module "autocannon" {
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    method?: string;
    headers?: Record<string, string> | undefined;
    body?: string | undefined;
  }
  interface Result {
    non2xx: number;
    errors: number;
    requests: { average: number; total: number };
  }
  export default function autocannon(options: Options): Promise<Result>;
}
