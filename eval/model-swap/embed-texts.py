"""Embeds the texts an evaluation run recorded (EVAL_RECORD_TEXTS) with a sentence-transformers model through
Hugging Face transformers' own forward pass (the reference implementation of the architecture), then, with --onnx,
exports the model to ONNX, quantizes it to int8 as onnxruntime does, and checks both against the reference
(README.md beside this file).

    python embed-texts.py MODEL_DIR TEXTS_JSON OUT_JSON --name NAME [--onnx ONNX_DIR] [--max-tokens 384]

Writes {model, texts, vectors} for eval/model-swap/table-embeddings.ts. Mean pooling over the real tokens and L2
normalisation, as the model's sentence-transformers modules (1_Pooling, 2_Normalize) say.
"""
import argparse
import json
import os
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
import numpy as np
import torch
from transformers import AutoModel, AutoTokenizer

p = argparse.ArgumentParser()
p.add_argument("model_dir")
p.add_argument("texts")
p.add_argument("out")
p.add_argument("--name", required=True)
p.add_argument("--onnx")
p.add_argument("--max-tokens", type=int, default=384)
p.add_argument("--batch", type=int, default=32)
args = p.parse_args()

torch.set_num_threads(2)
tok = AutoTokenizer.from_pretrained(args.model_dir, local_files_only=True)
model = AutoModel.from_pretrained(args.model_dir, local_files_only=True).eval()
texts = json.load(open(args.texts))


def pool(hidden, mask):
    m = mask.unsqueeze(-1).to(hidden.dtype)
    v = (hidden * m).sum(1) / m.sum(1).clamp(min=1e-9)
    return torch.nn.functional.normalize(v, dim=-1)


def reference(batch):
    enc = tok(batch, padding=True, truncation=True, max_length=args.max_tokens, return_tensors="pt")
    with torch.no_grad():
        out = model(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"])
    return pool(out.last_hidden_state, enc["attention_mask"]).numpy()


t0 = time.time()
order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
vectors = np.zeros((len(texts), model.config.hidden_size), dtype=np.float32)
for i in range(0, len(order), args.batch):
    idx = order[i : i + args.batch]
    vectors[idx] = reference([texts[j] for j in idx])
print(f"reference: {len(texts)} texts in {time.time() - t0:.1f} s")

# Sanity: sentence-transformers' model card pair ordering (paraphrase above unrelated).
a, b, c = reference(["A man is eating food.", "A man is eating a piece of bread.", "A man is riding a horse."])
print(f"sanity: eating/bread {a @ b:.4f}, eating/horse {a @ c:.4f}")

json.dump({"model": args.name, "texts": texts, "vectors": vectors.round(6).tolist()}, open(args.out, "w"))

if args.onnx:
    import onnxruntime as ort
    from onnxruntime.quantization import QuantType, quantize_dynamic

    os.makedirs(args.onnx, exist_ok=True)
    fp32 = os.path.join(args.onnx, "model-fp32.onnx")
    int8 = os.path.join(args.onnx, "model.onnx")
    sample = tok(["a sentence to trace", "and another one"], padding=True, return_tensors="pt")

    class Wrapped(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, input_ids, attention_mask):
            return self.m(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state

    torch.onnx.export(
        Wrapped(model),
        (sample["input_ids"], sample["attention_mask"]),
        fp32,
        input_names=["input_ids", "attention_mask"],
        output_names=["last_hidden_state"],
        dynamic_axes={"input_ids": {0: "b", 1: "t"}, "attention_mask": {0: "b", 1: "t"}, "last_hidden_state": {0: "b", 1: "t"}},
        opset_version=17,
        dynamo=False,
    )
    quantize_dynamic(fp32, int8, weight_type=QuantType.QInt8)
    for name, path in (("fp32", fp32), ("int8", int8)):
        so = ort.SessionOptions()
        so.intra_op_num_threads = 1
        sess = ort.InferenceSession(path, so)
        worst, total, n = 1.0, 0.0, 0
        t0 = time.time()
        for i in range(0, len(order), args.batch):
            idx = order[i : i + args.batch]
            enc = tok([texts[j] for j in idx], padding=True, truncation=True, max_length=args.max_tokens, return_tensors="np")
            (hidden,) = sess.run(None, {"input_ids": enc["input_ids"].astype(np.int64), "attention_mask": enc["attention_mask"].astype(np.int64)})
            v = pool(torch.from_numpy(hidden), torch.from_numpy(enc["attention_mask"])).numpy()
            cos = (v * vectors[idx]).sum(1)
            worst, total, n = min(worst, float(cos.min())), total + float(cos.sum()), n + len(idx)
        print(f"{name}: cosine to the reference min {worst:.5f} mean {total / n:.5f}; {time.time() - t0:.1f} s one thread; {os.path.getsize(path) / 1e6:.0f} MB")
