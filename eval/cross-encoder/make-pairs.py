"""Training pairs for the cross-encoder. NEVER the outside set, never held-out.
(a) tuning split: positives = candidate spans whose quote contains an expected answer; negatives = the other candidate
    spans of the question and every span of tuning unanswerable questions.
(b) corpus pseudo-pairs from eval/corpus chunks (as parsed/chunked by the production code, dumped by
    dump-candidates.ts): heading -> each span under it (negatives: spans under other headings of the same document);
    table header cell + row key -> the row (negatives: other rows of the table).
Writes data/pairs-tuning.jsonl and data/pairs-corpus.jsonl.
"""
import json, random
from collections import defaultdict
from xutil import DATA, span_input, fold_of, load_candidates, unique_spans

random.seed(57)
recs = [r for r in load_candidates() if r['split'] == 'tuning']
assert all(r['split'] == 'tuning' for r in recs)
# Hard negatives only (CPU budget): a question's positives, plus its bi-encoder top TUNE_NEG other spans.
TUNE_NEG = 10
tuning = []
for r in recs:
    spans = sorted(unique_spans(r), key=lambda s: -s['score'])
    negs = [s for s in spans if not s['contains']][:TUNE_NEG]
    for s in [s for s in spans if s['contains']] + negs:
        tuning.append({'qid': r['id'], 'fold': fold_of(r['id']), 'a': r['question'], 'b': span_input(s),
                       'label': 1 if s['contains'] else 0, 'kind': r['kind']})
with open(f'{DATA}/pairs-tuning.jsonl', 'w') as f:
    for p in tuning:
        f.write(json.dumps(p) + '\n')

chunks = json.load(open(f'{DATA}/corpus-chunks.json'))
NEG = 3
corpus = []
by_doc = defaultdict(list)
for c in chunks:
    for s in c['spans']:
        by_doc[c['document']].append((tuple(c['headingPath']), c, s))


def b_of(c, s, drop_last_heading):
    path = c['headingPath'][:-1] if drop_last_heading else c['headingPath']
    head = ' > '.join(path[-2:])
    text = s['embeddingText'].split(': ', 1)[1] if ': ' in s['embeddingText'] and c['headingPath'] else s['text']
    return ' '.join(((head + ': ' if head else '') + text).split())


# (b1) heading -> spans under it. The heading is the pseudo-question, so the span's own last heading is left out of
# its input (else the pair is a string match); negatives are spans under other headings of the same document.
for doc, items in by_doc.items():
    groups = defaultdict(list)
    for path, c, s in items:
        if len(path) >= 2:
            groups[path].append((c, s))
    for path, members in groups.items():
        q = path[-1].strip().lstrip('0123456789. ').strip()
        if len(q) < 3:
            continue
        others = [(c, s) for p, c, s in items if p != path]
        for c, s in members:
            if c['context']:
                continue  # table rows get their own pairs below
            corpus.append({'qid': f'h:{doc}:{"/".join(path)}', 'a': q, 'b': b_of(c, s, True), 'label': 1, 'src': 'heading'})
        for c, s in random.sample(others, min(NEG, len(others))):
            corpus.append({'qid': f'h:{doc}:{"/".join(path)}', 'a': q, 'b': b_of(c, s, True), 'label': 0, 'src': 'heading'})

# (b2) tables: "<column> for <first cell>?" -> the row; other rows negative.
tables = defaultdict(list)
for c in chunks:
    if c['context']:
        tables[(c['document'], c['context'], tuple(c['headingPath']))].append(c)
for (doc, header, path), rows in tables.items():
    names = [x.strip() for x in header.strip().strip('|').split('|')]
    parsed = []
    for c in rows:
        cells = [x.strip() for x in c['content'].strip().strip('|').split('|')]
        if len(cells) == len(names) and c['spans']:
            parsed.append((c, cells))
    for i, (c, cells) in enumerate(parsed):
        # key: the cell most likely to be asked about by name (the longest non-numeric one)
        key_j = max(range(len(cells)), key=lambda j: (not any(ch.isdigit() for ch in cells[j]), len(cells[j])))
        for j, name in enumerate(names):
            if j == key_j:
                continue
            q = f'{name} of {cells[key_j]}?'
            corpus.append({'qid': f't:{doc}:{i}:{j}', 'a': q, 'b': b_of(c, c['spans'][0], False), 'label': 1, 'src': 'table'})
            negs = [p for k, p in enumerate(parsed) if k != i and p[1][key_j] != cells[key_j]]
            for nc, _ in random.sample(negs, min(3, len(negs))):
                corpus.append({'qid': f't:{doc}:{i}:{j}', 'a': q, 'b': b_of(nc, nc['spans'][0], False), 'label': 0, 'src': 'table'})

with open(f'{DATA}/pairs-corpus.jsonl', 'w') as f:
    for p in corpus:
        f.write(json.dumps(p) + '\n')


def summary(name, ps):
    pos = sum(p['label'] for p in ps)
    print(f'{name}: {len(ps)} pairs ({pos} positive, {len(ps) - pos} negative), {len(set(p["qid"] for p in ps))} questions')


summary('tuning', tuning)
summary('corpus', corpus)
summary('corpus/heading', [p for p in corpus if p['src'] == 'heading'])
summary('corpus/table', [p for p in corpus if p['src'] == 'table'])
for k in range(3):
    summary(f'tuning fold {k}', [p for p in tuning if p['fold'] == k])
for p in random.sample(corpus, 6):
    print(p)
