/**
 * The checker's reads once the settle time has passed: every session's turn list
 * (all its pages, bounded) and the exact status of every admitted prompt, each
 * session loaded first if no node holds it live. With `loadAll` false, a seeded
 * half of the sessions is left alone (no read, no load): what nobody loads again
 * must still settle on its own. Resolves with those sessions' ids.
 */
export async function finalReads(workload, { loadAll = true, random } = {}) {
  const options = { final: true };
  const client = workload.client('final', options);
  const unloaded = new Set(loadAll || !random ? [] : workload.sessions.filter(() => random.chance(0.5)).map((s) => s.sessionId));
  for (const { sessionId } of workload.sessions) {
    if (unloaded.has(sessionId)) continue;
    await workload
      .withLoad(
        'final',
        sessionId,
        async () => {
          let pages = 0;
          for await (const page of client.listTurns(sessionId, { limit: 100 })) if (++pages >= 5 || !page.nextPageToken) break;
        },
        options,
      )
      .catch(() => undefined);
  }
  const seen = new Set();
  for (const { sessionId, promptId } of workload.admitted) {
    if (seen.has(promptId) || unloaded.has(sessionId)) continue;
    seen.add(promptId);
    await workload.withLoad('final', sessionId, () => client.getTurn(sessionId, promptId), options).catch(() => undefined);
  }
  return [...unloaded].sort();
}
