#!/usr/bin/env bash
# `npm ci`, or the tree an earlier `npm ci` of the same inputs made on this machine: CI's `npm ci` took 53-79 s and
# ~115 CPU-seconds of a run (docs/testing.md, "Where a CI run's CPU goes"); a copy of its result takes ~18 s and ~8.
#
# The copy is keyed by everything `npm ci` reads (package.json, package-lock.json, .npmrc, Node's and npm's versions,
# the machine's architecture) and taken right after `npm ci` made the tree, before anything writes into it (the type
# check's cache, Prisma's client, which go to node_modules/.cache and generated/), so a restored tree is what `npm ci`
# would make. A real copy, not hard links: a tool writing a file of node_modules in place would otherwise change the
# cache under every later run. One entry is kept (1.5 GB), in ${XDG_CACHE_HOME:-~/.cache}/therapy-care/node-modules.
# THERAPY_NPM_CI_CACHE=off runs `npm ci` alone.
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

if [ "${THERAPY_NPM_CI_CACHE:-on}" != off ] && [ -d "$entry" ]; then
  rm -rf node_modules
  cp -a "$entry" node_modules
  echo "[ci] node_modules: the tree npm ci made for these inputs ($key), copied from $cache_root" >&2
  exit 0
fi

npm ci --no-audit --no-fund
[ "${THERAPY_NPM_CI_CACHE:-on}" = off ] && exit 0

mkdir -p "$cache_root"
staging="$cache_root/.$key.$$"
# Renamed into place once whole, so a run stopped mid-copy (or one beside it) never finds half a tree.
if cp -a node_modules "$staging" && mv -T "$staging" "$entry" 2>/dev/null; then
  find "$cache_root" -mindepth 1 -maxdepth 1 ! -name "$key" -exec rm -rf {} +
  echo "[ci] node_modules kept for the next run ($key)" >&2
else
  rm -rf "$staging"
fi
