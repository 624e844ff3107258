#!/usr/bin/env bash
# `npm ci`, or the tree an earlier `npm ci` of the same inputs made on this machine: CI's `npm ci` took 53-79 s and
# ~115 CPU-seconds of a run (docs/testing.md, "Where a CI run's CPU goes"); linking its result in takes ~2 s.
#
# The tree is keyed by everything `npm ci` reads (package.json, package-lock.json, .npmrc, Node's and npm's versions,
# the machine's architecture) and kept right after `npm ci` made it, before anything writes into it (the type check's
# cache, vitest's, which go to new files under node_modules/.cache; Prisma's client goes to generated/).
#
# Hard links, not copies (a copy of the 1.5 GB took 18-40 s): the clone's node_modules and the cache share each file.
# Nothing in a CI run writes into a file npm installed (checked after a whole run: only new files under .cache), but a
# tool that did would change the cache under every later run. So the cache keeps a manifest of its files' sizes and
# modification times, and an entry whose files no longer match it is dropped and `npm ci` runs again.
# One entry is kept, in ${XDG_CACHE_HOME:-~/.cache}/therapy-care/node-modules. THERAPY_NPM_CI_CACHE=off runs `npm ci`
# alone.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."

cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/therapy-care/node-modules"
key=$( {
  cat package.json package-lock.json .npmrc
  node --version
  npm --version
  uname -m
} | sha256sum | cut -c1-24)
entry="$cache_root/$key"

# Every file of a tree, with its size and modification time: what a write into one of them changes.
manifest() { (cd "$1" && find . -type f -printf '%P %s %T@\n' | LC_ALL=C sort | sha256sum | cut -c1-64); }

if [ "${THERAPY_NPM_CI_CACHE:-on}" != off ] && [ -d "$entry/tree" ]; then
  if [ "$(manifest "$entry/tree")" = "$(cat "$entry/manifest" 2>/dev/null)" ]; then
    rm -rf node_modules
    cp -al "$entry/tree" node_modules
    echo "[ci] node_modules: the tree npm ci made for these inputs ($key), linked from $cache_root" >&2
    exit 0
  fi
  echo "[ci] node_modules cache $key: a file changed since it was kept; dropped, npm ci runs" >&2
fi
# Whatever is left under the key is unusable (changed, half made, or of an older layout of this cache).
rm -rf "$entry"

npm ci --no-audit --no-fund
[ "${THERAPY_NPM_CI_CACHE:-on}" = off ] && exit 0

mkdir -p "$cache_root"
staging="$cache_root/.$key.$$"
rm -rf "$staging"
mkdir -p "$staging"
# Renamed into place once whole, so a run stopped midway (or one beside it) never finds half a tree.
if cp -al node_modules "$staging/tree" && manifest "$staging/tree" >"$staging/manifest" &&
  mv -T "$staging" "$entry" 2>/dev/null; then
  find "$cache_root" -mindepth 1 -maxdepth 1 ! -name "$key" -exec rm -rf {} +
  echo "[ci] node_modules kept for the next run ($key)" >&2
else
  rm -rf "$staging"
fi
