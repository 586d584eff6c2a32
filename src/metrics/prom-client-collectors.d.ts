// prom-client's default collectors one by one (its `collectDefaultMetrics` takes them all or none).
declare module 'prom-client/lib/metrics/*.js' {
  import type { Registry } from 'prom-client';
  const collector: (registry: Registry, config: object) => void;
  export default collector;
}
