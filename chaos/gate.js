import { readFileSync } from 'node:fs';

/** How many violations of each signature the JSON report quotes (the counts are whole). */
const QUOTED = 3;

/** chaos/known-gaps.json: `{ gaps: [{ signature, issue, reason }] }`, each an open gap CI lets pass, with why. */
export function readKnownGaps(file) {
  const { gaps } = JSON.parse(readFileSync(file, 'utf8'));
  if (!Array.isArray(gaps)) throw new Error(`${file}: no "gaps" array`);
  for (const gap of gaps) {
    if (typeof gap.signature !== 'string' || typeof gap.reason !== 'string' || gap.reason.trim() === '')
      throw new Error(`${file}: every gap needs a signature and a reason`);
  }
  return gaps;
}

/**
 * The JSON report CI prints and gates on: each schedule's figures and violation count, each signature seen (listed
 * in known-gaps.json or not), the listed gaps no schedule showed, and a few violations of each signature.
 * `ok` is false when a violation's signature is not listed or a schedule did not complete.
 */
export function gateReport({ seed, durationS, runs, gaps }) {
  const listed = new Map(gaps.map((gap) => [gap.signature, gap]));
  const violations = runs.flatMap((run) =>
    (run.result?.properties ?? []).flatMap((property) =>
      property.violations.map((violation) => ({
        run: run.name,
        property: property.name,
        kind: violation.kind ?? 'violation',
        signature: violation.signature ?? `${property.name}:${violation.kind ?? 'violation'}`,
        message: violation.message,
      })),
    ),
  );
  const counts = new Map();
  for (const violation of violations) counts.set(violation.signature, (counts.get(violation.signature) ?? 0) + 1);
  const signatures = [...counts]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([signature, count]) => ({
      signature,
      count,
      listed: listed.has(signature),
      ...(listed.has(signature) && { reason: listed.get(signature).reason }),
    }));
  const unlisted = signatures.filter((s) => !s.listed).map((s) => s.signature);
  const incomplete = runs.filter((run) => !run.result).map((run) => run.name);
  return {
    seed: String(seed),
    durationS,
    ok: unlisted.length === 0 && incomplete.length === 0,
    schedules: runs.map((run) => ({
      name: run.name,
      completed: Boolean(run.result),
      violations: (run.result?.properties ?? []).reduce((n, p) => n + p.violations.length, 0),
      failover: run.result?.figures.failover,
      duplicates: run.result?.figures.duplicates,
    })),
    signatures,
    unlisted,
    listedNotSeen: gaps.map((gap) => gap.signature).filter((signature) => !counts.has(signature)),
    incomplete,
    violations: signatures.flatMap(({ signature }) => violations.filter((v) => v.signature === signature).slice(0, QUOTED)),
  };
}
