"""Figures from the dump and the cross-encoder scores. Thresholds are chosen on the tuning split only (maximising
answered-with-citation rate + declined rate; a second operating point: the lowest threshold whose tuning declined rate
is >= 0.9) and then applied unchanged to held-out and outside.

  evaluate.py [--cv cv0,cv1,cv2] [--final final] [--tag ''] > figures
Methods: today's answerer (as dumped); bi-encoder (rank by the answerer's mixed span score, one threshold); the
cross-encoder reranking all unique candidate spans, or only the bi-encoder's top 8 / top 16.
"""
import argparse, json, os
from xutil import DATA, load_candidates, unique_spans, fold_of

SPLITS = ['tuning', 'held-out', 'outside']


def outcomes(recs, scorer, topn=None):
    """Per question: (answerable, top score, top contains, top-2 contains)."""
    out = []
    for r in recs:
        spans = unique_spans(r)
        bi = sorted(range(len(spans)), key=lambda i: -spans[i]['score'])
        if topn:
            bi = bi[:topn]
        s = scorer(r, spans)
        order = sorted(bi, key=lambda i: -s[i])
        if not order:
            out.append((r['kind'] == 'answerable', -1e9, False, False))
            continue
        c1 = spans[order[0]]['contains']
        c2 = c1 or (len(order) > 1 and spans[order[1]]['contains'])
        out.append((r['kind'] == 'answerable', s[order[0]], c1, c2))
    return out


def rates(outs, th):
    a = [o for o in outs if o[0]]
    u = [o for o in outs if not o[0]]
    ans = sum(1 for o in a if o[1] >= th and o[2]) / len(a)
    ans2 = sum(1 for o in a if o[1] >= th and o[3]) / len(a)
    dec = sum(1 for o in u if o[1] < th) / len(u)
    return ans, dec, ans2


def choose(outs):
    cands = sorted({o[1] for o in outs}) + [1e9]
    vals = [(rates(outs, t)[0] + rates(outs, t)[1], t) for t in cands]
    best = max(v for v, _ in vals)
    tied = [t for v, t in vals if v == best]
    th_best = tied[len(tied) // 2]
    th90 = next((t for t in cands if rates(outs, t)[1] >= 0.9), 1e9)
    return th_best, th90


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--cv', default='')
    ap.add_argument('--final', default='')
    ap.add_argument('--tag', default='')
    args = ap.parse_args()
    recs = load_candidates()
    by = {s: [r for r in recs if r['split'] == s] for s in SPLITS}
    rows = []

    def n(split):
        return f"{split} ({sum(r['kind'] == 'answerable' for r in by[split])}/{sum(r['kind'] != 'answerable' for r in by[split])})"

    # Today's answerer, as dumped (sanity check against docs/benchmarks.md).
    for s in SPLITS:
        a = [r for r in by[s] if r['kind'] == 'answerable']
        u = [r for r in by[s] if r['kind'] != 'answerable']
        rows.append(('today (extractive-v3, dump)', n(s), '—', sum(r['today']['containsAnswer'] for r in a) / len(a),
                     sum(not r['today']['answered'] for r in u) / len(u), None))
    # Ceiling: any candidate span contains the answer.
    for s in SPLITS:
        a = [r for r in by[s] if r['kind'] == 'answerable']
        rows.append(('ceiling: some candidate span contains it', n(s), '—',
                     sum(any(x['contains'] for x in r['spans']) for r in a) / len(a), None, None))

    def method(label, scorer_for, topn, tuning_scorer=None, tuning_label='tuning'):
        """scorer_for(split) -> scorer; the threshold comes from tuning (tuning_scorer if given: out-of-fold)."""
        tun = outcomes(by['tuning'], tuning_scorer or scorer_for('tuning'), topn)
        th, th90 = choose(tun)
        for thname, t in (('max ans+dec', th), ('dec>=0.9 on tuning', th90)):
            if tuning_scorer:
                a, d, a2 = rates(tun, t)
                rows.append((label, f'tuning k-fold {n("tuning")[7:]}', f'{thname} {t:.3f}', a, d, a2))
                ins = outcomes(by['tuning'], scorer_for('tuning'), topn)
                ti, ti90 = choose(ins)
                tt = ti if thname.startswith('max') else ti90
                a, d, a2 = rates(ins, tt)
                rows.append((label, f'tuning in-sample', f'{thname} {tt:.3f} (in-sample)', a, d, a2))
            for s in SPLITS:
                if tuning_scorer and s == 'tuning':
                    continue
                a, d, a2 = rates(outcomes(by[s], scorer_for(s), topn), t)
                rows.append((label, n(s), f'{thname} {t:.3f}', a, d, a2))

    bi = lambda split: (lambda r, spans: [x['score'] for x in spans])
    method('bi-encoder (mixed span score)', bi, None)

    if args.final:
        fin = json.load(open(f'{DATA}/scores-{args.final}.json'))['scores']
        oof = {}
        for name in [x for x in args.cv.split(',') if x]:
            oof.update(json.load(open(f'{DATA}/scores-{name}.json'))['scores'])
        ce = lambda split: (lambda r, spans: fin[f"{r['split']}|{r['id']}"])
        ce_oof = (lambda r, spans: oof[f"{r['split']}|{r['id']}"]) if oof else None
        for topn in (None, 8, 16):
            lab = f"cross-encoder{args.tag}, {'all spans' if topn is None else f'bi-encoder top {topn}'}"
            method(lab, ce, topn, ce_oof)

    print('| method | split (answerable/unanswerable) | threshold | answered with citation | unanswerable declined | answered, top 2 quoted |')
    print('|---|---|---|---|---|---|')
    f = lambda v: '—' if v is None else f'{v:.3f}'
    for m, s, t, a, d, a2 in rows:
        print(f'| {m} | {s} | {t} | {f(a)} | {f(d)} | {f(a2)} |')


if __name__ == '__main__':
    main()
