/**
 * The checker's reads once the settle time has passed: every session's turn list
 * (all its pages, bounded) and the exact status of every admitted prompt, each
 * session loaded first if no node holds it live.
 */
export async function finalReads(workload) {
  const options = { final: true };
  const client = workload.client('final', options);
  for (const { sessionId } of workload.sessions) {
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
    if (seen.has(promptId)) continue;
    seen.add(promptId);
    await workload.withLoad('final', sessionId, () => client.getTurn(sessionId, promptId), options).catch(() => undefined);
  }
}
