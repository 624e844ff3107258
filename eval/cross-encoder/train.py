"""Cross-encoder fine-tuned from all-MiniLM-L6-v2 (local files only): BertModel + linear head on the mean-pooled
tokens of '[CLS] question [SEP] heading: span [SEP]' (max 128 tokens), BCE loss, AdamW, linear warm-up/decay.

  train.py --name NAME --train-folds 0,1 [--no-corpus] [--epochs 2] [--lr 4e-5] --score-splits tuning:2
  train.py --name final --train-folds 0,1,2 --score-splits tuning,held-out,outside

--train-folds: the tuning folds whose pairs train the model (never held-out or outside: there are no such pairs).
--score-splits: after training, score every unique candidate span of these splits ('tuning:2' = tuning fold 2 only);
written to data/scores-NAME.json. The model is saved to ~/.cache/xenc/models/NAME when --save is given.
"""
import os
os.environ['HF_HUB_OFFLINE'] = '1'
os.environ['TRANSFORMERS_OFFLINE'] = '1'
import argparse, json, random, time, resource
import torch
from transformers import AutoTokenizer, BertModel
from xutil import DATA, span_input, fold_of, load_candidates, unique_spans

BASE = os.path.expanduser('~/.cache/xenc/base/model')
MAXLEN = 128


class CrossEncoder(torch.nn.Module):
    def __init__(self, path):
        super().__init__()
        self.bert = BertModel.from_pretrained(path, local_files_only=True, add_pooling_layer=False)
        self.head = torch.nn.Linear(self.bert.config.hidden_size, 1)

    def forward(self, input_ids, attention_mask, token_type_ids):
        h = self.bert(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).last_hidden_state
        m = attention_mask.unsqueeze(-1).to(h.dtype)
        pooled = (h * m).sum(1) / m.sum(1).clamp(min=1)
        return self.head(pooled).squeeze(-1)


def encode(tok, a, b):
    return tok(a, b, truncation='only_second', max_length=MAXLEN, padding=True, return_tensors='pt')


def score_pairs(model, tok, pairs, bs=64):
    """pairs: list of (a, b) -> probabilities; batched by length."""
    model.eval()
    order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
    out = [0.0] * len(pairs)
    with torch.inference_mode():
        for i in range(0, len(order), bs):
            idx = order[i:i + bs]
            enc = encode(tok, [pairs[j][0] for j in idx], [pairs[j][1] for j in idx])
            p = torch.sigmoid(model(**enc)).tolist()
            for j, v in zip(idx, p):
                out[j] = v
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--name', required=True)
    ap.add_argument('--train-folds', default='0,1,2')
    ap.add_argument('--k', type=int, default=3, help='number of tuning folds (fold = crc32(id) mod k)')
    ap.add_argument('--no-corpus', action='store_true')
    ap.add_argument('--epochs', type=int, default=2)
    ap.add_argument('--lr', type=float, default=5e-5)
    ap.add_argument('--bs', type=int, default=16)
    ap.add_argument('--pos-oversample', type=int, default=2)
    ap.add_argument('--score-splits', default='')
    ap.add_argument('--save', action='store_true')
    args = ap.parse_args()
    torch.set_num_threads(2)
    torch.manual_seed(57)
    random.seed(57)
    folds = {int(x) for x in args.train_folds.split(',') if x != ''}
    tuning = [json.loads(l) for l in open(f'{DATA}/pairs-tuning.jsonl')]
    train = [p for p in tuning if fold_of(p['qid'], args.k) in folds]
    if not args.no_corpus:
        train += [json.loads(l) for l in open(f'{DATA}/pairs-corpus.jsonl')]
    train += [p for p in train if p['label'] == 1] * (args.pos_oversample - 1)
    npos = sum(p['label'] for p in train)
    print(f'[{args.name}] train pairs (after x{args.pos_oversample} positives): {len(train)} ({npos} positive); '
          f'folds {sorted(folds)} corpus={not args.no_corpus} epochs={args.epochs} lr={args.lr} bs={args.bs}', flush=True)

    tok = AutoTokenizer.from_pretrained(BASE, local_files_only=True)
    model = CrossEncoder(BASE)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    steps = args.epochs * ((len(train) + args.bs - 1) // args.bs)
    warm = max(1, steps // 10)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min((s + 1) / warm, max(0.0, (steps - s) / (steps - warm))))
    lossf = torch.nn.BCEWithLogitsLoss()
    t0 = time.time()
    step = 0
    for ep in range(args.epochs):
        model.train()
        # Length-bucketed batches (less padding on CPU), batch order shuffled.
        random.shuffle(train)
        chunks = [sorted(train[i:i + args.bs * 20], key=lambda p: len(p['a']) + len(p['b']))
                  for i in range(0, len(train), args.bs * 20)]
        batches = [c[i:i + args.bs] for c in chunks for i in range(0, len(c), args.bs)]
        random.shuffle(batches)
        tot = 0.0
        for batch in batches:
            enc = encode(tok, [p['a'] for p in batch], [p['b'] for p in batch])
            y = torch.tensor([float(p['label']) for p in batch])
            loss = lossf(model(**enc), y)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            step += 1
            tot += loss.item() * len(batch)
            if step % 20 == 0:
                print(f'  step {step}/{steps} loss {loss.item():.4f} {time.time() - t0:.0f}s', flush=True)
        print(f'[{args.name}] epoch {ep + 1}: mean loss {tot / len(train):.4f}, {time.time() - t0:.0f}s', flush=True)
    train_s = time.time() - t0
    if args.save:
        d = os.path.expanduser(f'~/.cache/xenc/models/{args.name}')
        os.makedirs(d, exist_ok=True)
        torch.save(model.state_dict(), f'{d}/model.pt')
        tok.save_pretrained(d)

    scores = {}
    t1 = time.time()
    if args.score_splits:
        want = []
        for s in args.score_splits.split(','):
            split, _, fold = s.partition(':')
            want.append((split, int(fold) if fold else None))
        recs = [r for r in load_candidates()
                if any(r['split'] == sp and (f is None or fold_of(r['id'], args.k) == f) for sp, f in want)]
        pairs, where = [], []
        for r in recs:
            for s in unique_spans(r):
                pairs.append((r['question'], span_input(s)))
                where.append(f"{r['split']}|{r['id']}")
        probs = score_pairs(model, tok, pairs)
        for w, p in zip(where, probs):
            scores.setdefault(w, []).append(p)
        print(f'[{args.name}] scored {len(pairs)} pairs of {len(recs)} questions in {time.time() - t1:.0f}s', flush=True)
    json.dump({'name': args.name, 'args': vars(args), 'train_pairs': len(train), 'train_seconds': train_s,
               'peak_rss_mb': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 'scores': scores},
              open(f'{DATA}/scores-{args.name}.json', 'w'))
    print(f'[{args.name}] train {train_s:.0f}s; peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB', flush=True)


if __name__ == '__main__':
    main()
