import { Counter } from 'prom-client';
import type { ClusterView } from '../sessions/cluster-view.js';
import { TURNS_CHANNELS } from '../telemetry/turns-channels.js';
import type { MetricSeries } from './metric-series.js';

/** The cluster's series (in cluster mode only): forwards to a session's owner, lease renewals and losses, Redis. */
export function registerClusterSeries(series: MetricSeries, cluster: ClusterView): void {
  const { registers } = series;
  const forwards = new Counter({
    name: 'turns_cluster_forwards_total',
    help: 'Requests forwarded to their session owner, by outcome',
    labelNames: ['outcome'],
    registers,
  });
  series.on(TURNS_CHANNELS.clusterForward, ({ outcome }) => forwards.labels(outcome).inc());
  const renewals = new Counter({ name: 'turns_cluster_lease_renewals_total', help: 'Session leases renewed', registers });
  const losses = new Counter({
    name: 'turns_cluster_lease_losses_total',
    help: 'Session leases another node took (the session closed here)',
    registers,
  });
  series.on(TURNS_CHANNELS.clusterLeaseRenewal, ({ renewed, lost }) => {
    renewals.inc(renewed);
    losses.inc(lost);
  });
  series.gauge('turns_cluster_redis_up', '1 while the cluster directory (Redis) answers', () =>
    cluster.clusterState().redis === 'up' ? 1 : 0,
  );
  series.gauge('turns_cluster_leases', 'Session leases this node holds', () => cluster.clusterState().leases);
}
