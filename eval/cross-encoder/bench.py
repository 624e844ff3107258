"""CPU cost per query of the cross-encoder: scoring the bi-encoder's top 8 / top 16 / all unique candidate spans of a
question as one batch, 1 thread. Timing questions: the tuning split (labels unused).

  bench.py --engine torch            # PyTorch fp32, torch.set_num_threads(1)
  bench.py --engine export           # writes ~/.cache/xenc/models/final/model.onnx (+ model.int8.onnx)
  bench.py --engine onnx [--int8]    # onnxruntime, intra_op_num_threads=1
Peak RSS is the process's (ru_maxrss), model and tokenizer loaded.
"""
import os
os.environ['HF_HUB_OFFLINE'] = '1'
import argparse, json, resource, statistics, time
from xutil import DATA, load_candidates, unique_spans, span_input

MD = os.path.expanduser('~/.cache/xenc/models/final')


def queries(n):
    recs = [r for r in load_candidates() if r['split'] == 'tuning'][:n]
    out = []
    for r in recs:
        spans = sorted(unique_spans(r), key=lambda s: -s['score'])
        out.append((r['question'], [span_input(s) for s in spans]))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--engine', required=True)
    ap.add_argument('--int8', action='store_true')
    ap.add_argument('--n', type=int, default=40)
    args = ap.parse_args()
    from transformers import AutoTokenizer
    tok = AutoTokenizer.from_pretrained(MD, local_files_only=True)
    if args.engine in ('torch', 'export'):
        import torch
        torch.set_num_threads(1)
        from train import CrossEncoder, BASE
        model = CrossEncoder(BASE)
        model.load_state_dict(torch.load(f'{MD}/model.pt'))
        model.eval()
    if args.engine == 'export':
        enc = tok(['a question'] * 2, ['a span of text'] * 2, return_tensors='pt', padding=True)
        torch.onnx.export(model, (enc['input_ids'], enc['attention_mask'], enc['token_type_ids']), f'{MD}/model.onnx',
                          input_names=['input_ids', 'attention_mask', 'token_type_ids'], output_names=['logit'],
                          dynamic_axes={k: {0: 'b', 1: 't'} for k in ['input_ids', 'attention_mask', 'token_type_ids']} | {'logit': {0: 'b'}},
                          opset_version=17, dynamo=False)
        from onnxruntime.quantization import quantize_dynamic, QuantType
        quantize_dynamic(f'{MD}/model.onnx', f'{MD}/model.int8.onnx', weight_type=QuantType.QInt8)
        for f in ('model.pt', 'model.onnx', 'model.int8.onnx'):
            print(f, os.path.getsize(f'{MD}/{f}') / 1e6, 'MB')
        return
    if args.engine == 'onnx':
        import numpy as np
        import onnxruntime as ort
        so = ort.SessionOptions()
        so.intra_op_num_threads = 1
        so.inter_op_num_threads = 1
        sess = ort.InferenceSession(f"{MD}/{'model.int8.onnx' if args.int8 else 'model.onnx'}", so, providers=['CPUExecutionProvider'])

        def run(q, spans):
            enc = tok([q] * len(spans), spans, truncation='only_second', max_length=128, padding=True, return_tensors='np')
            return sess.run(None, {k: enc[k].astype(np.int64) for k in ['input_ids', 'attention_mask', 'token_type_ids']})[0]
    else:
        def run(q, spans):
            with torch.inference_mode():
                enc = tok([q] * len(spans), spans, truncation='only_second', max_length=128, padding=True, return_tensors='pt')
                return model(**enc)

    qs = queries(args.n)
    run(*qs[0])  # warm-up
    res = {}
    for label, n in (('top 8', 8), ('top 16', 16), ('all', None)):
        wall, cpu, count = [], [], []
        for q, spans in qs:
            s = spans[:n] if n else spans
            t0, c0 = time.perf_counter(), time.process_time()
            run(q, s)
            wall.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
            count.append(len(s))
        res[label] = {'spans_mean': statistics.mean(count), 'cpu_ms_mean': statistics.mean(cpu),
                      'cpu_ms_p50': statistics.median(cpu), 'cpu_ms_max': max(cpu),
                      'wall_ms_mean': statistics.mean(wall), 'wall_ms_p50': statistics.median(wall)}
    name = args.engine + (' int8' if args.int8 else '')
    out = {'engine': name, 'questions': len(qs), 'peak_rss_mb': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 'results': res}
    print(json.dumps(out, indent=1))
    json.dump(out, open(os.path.join(DATA, f"bench-{name.replace(' ', '-')}.json"), 'w'))


if __name__ == '__main__':
    main()
