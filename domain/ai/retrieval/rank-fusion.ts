/**
 * @module Reciprocal rank fusion (Cormack, Clarke and Büttcher, SIGIR 2009): each ranking gives an item
 * 1 / (k + rank), and the sums order the fused list. It needs no calibration between the rankers' scores (a cosine
 * and a BM25 sum are not on one scale), and k = 60 is the paper's constant, which keeps one ranker's top item from
 * outweighing agreement between both.
 */
export const RRF_K = 60

/**
 * Fuses rankings of ids (best first) into one, best first, with each id's fused score.
 * @param weights - per ranking (weighted RRF), 1 each by default
 */
export function reciprocalRankFusion(
  rankings: string[][],
  weights: number[] = rankings.map(() => 1),
  k = RRF_K
): Array<{ id: string; score: number }> {
  const scores = new Map<string, number>()
  for (const [r, ranking] of rankings.entries()) {
    const weight = weights[r] ?? 1
    for (const [rank, id] of ranking.entries()) scores.set(id, (scores.get(id) ?? 0) + weight / (k + rank + 1))
  }
  return [...scores].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
}
