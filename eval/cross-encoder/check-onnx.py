"""Agreement of the ONNX (fp32, int8) exports with the torch model on 10 tuning questions' spans (probabilities)."""
import os
os.environ['HF_HUB_OFFLINE'] = '1'
import numpy as np, torch, onnxruntime as ort
from transformers import AutoTokenizer
from train import CrossEncoder, BASE
from bench import queries, MD
torch.set_num_threads(1)
tok = AutoTokenizer.from_pretrained(MD, local_files_only=True)
m = CrossEncoder(BASE); m.load_state_dict(torch.load(f'{MD}/model.pt')); m.eval()
sess = {n: ort.InferenceSession(f'{MD}/{f}', providers=['CPUExecutionProvider']) for n, f in (('fp32', 'model.onnx'), ('int8', 'model.int8.onnx'))}
diff = {'fp32': [], 'int8': []}; top = {'fp32': 0, 'int8': 0}
qs = queries(10)
for q, spans in qs:
    enc = tok([q] * len(spans), spans, truncation='only_second', max_length=128, padding=True, return_tensors='np')
    feed = {k: enc[k].astype(np.int64) for k in ['input_ids', 'attention_mask', 'token_type_ids']}
    with torch.inference_mode():
        pt = torch.sigmoid(m(**{k: torch.from_numpy(v) for k, v in feed.items()})).numpy()
    for n, s in sess.items():
        p = 1 / (1 + np.exp(-s.run(None, feed)[0]))
        diff[n].append(np.abs(p - pt).max()); top[n] += int(p.argmax() == pt.argmax())
for n in diff:
    print(f'{n}: max |prob diff| {max(diff[n]):.5f}; same top span {top[n]}/{len(qs)}')
