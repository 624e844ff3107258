#!/usr/bin/env bash
# 3-fold cross-validation on the tuning split, same settings as the final model, run one after another.
set -e
cd "$(dirname "$0")"
PY=~/.cache/xenc/venv/bin/python
for f in 0 1 2; do
  train=$(echo 0 1 2 | tr ' ' '\n' | grep -v "^$f$" | paste -sd,)
  /usr/bin/time -v $PY train.py --name cv$f --k 3 --train-folds $train --score-splits tuning:$f > logs/cv$f.log 2>&1
done
