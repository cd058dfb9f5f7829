#!/usr/bin/env bash
# One time-boxed GPU run: build geometry-only training data with CUDA queries (no renderer, no Open3D), then
# train the shape VAE and the part segmenter side by side on the GPU, both warm-started from the shipped
# weights, and leave fp16 model folders (tarred) and logs in OUT.
#
#   OUT=/tmp/gpu BUDGET_S=540 scripts/gpu_train.sh                       # both models
#   OUT=/tmp/gpu BUDGET_S=540 MODELS=geometry-vae scripts/gpu_train.sh  # one of them, with the whole GPU
#   VAE_ARGS="--trainable decoder --model-option light_queries=true --model-option head_width=192" ...  # VAE options
#
# Made for a bare CUDA machine whose python3 has torch, numpy, scipy, safetensors and tqdm: the one missing
# package, manifold3d, comes as a wheel in .whl/ (ignored by git), fetched beforehand for that python, e.g.
#   python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
#     --platform manylinux_2_28_x86_64 -d .whl manifold3d==3.5.4
# On a CPU machine it runs too (DEVICE=cpu QUERIES=torch, small CHUNK and BUDGET_S) to check the script itself.
# Step counts are sized from a short probe of both trainers running together, so that each cosine schedule
# ends inside the budget; the probe's steps are the first steps of the run (it resumes from them, and the
# learning rate of those steps is the warm-up's either way).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:?set OUT to the folder that receives the results}
BUDGET_S=${BUDGET_S:-540}      # wall-clock seconds for the whole script
DATA_S=${DATA_S:-150}          # seconds after which no further data chunk is started
CHUNK=${CHUNK:-1280}           # samples per data build step (a multiple of the 64 samples per shard)
MAX_COUNT=${MAX_COUNT:-12800}
WORKERS=${WORKERS:-$(( $(nproc) - 1 ))}
DEVICE=${DEVICE:-cuda}
QUERIES=${QUERIES:-cuda}
VAE_BATCH=${VAE_BATCH:-32}
SEG_BATCH=${SEG_BATCH:-32}
PROBE=${PROBE:-60}
MODELS=${MODELS:-geometry-vae part-seg}   # which of the two to train
# further options of seed3d train geometry-vae; the default keeps the shipped VAE's light query path (v4), whose
# tensors a run with the default (full) path would not copy but start afresh
VAE_ARGS=${VAE_ARGS:---model-option light_queries=true --model-option head_width=192}
WORK=${WORK:-/tmp/seed3d-gpu}
T0=$(date +%s)
elapsed() { echo $(( $(date +%s) - T0 )); }
mkdir -p "$OUT" "$WORK"
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    || exit 1
  export PYTHONPATH=/tmp/site:$PWD
else
  export PYTHONPATH=$PWD
fi
export PYTHONUNBUFFERED=1
seed3d() { python3 -m seed3d.cli "$@"; }
python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.cuda.is_available(), \
torch.cuda.get_device_name() if torch.cuda.is_available() else '')"

# 1. data: chunks of CHUNK samples (a build of a larger count reuses the shards already written)
count=0
while [ $count -eq 0 ] || { [ $count -lt "$MAX_COUNT" ] && [ "$(elapsed)" -lt "$DATA_S" ]; }; do
  count=$(( count + CHUNK ))
  seed3d data build --out "$WORK/data" --split train --count $count --workers "$WORKERS" --no-renders \
    --queries "$QUERIES" --surface-points 8192 --sharp-points 2048 --volume-points 4096 --near-points 4096 \
    --grid-resolution 4 2>&1 | tr '\r' '\n' | grep -v "sample [0-9]*/" | tail -4 | tee -a "$OUT/build.log"
  [ -f "$WORK/data/train/manifest.json" ] || { echo "data build failed"; exit 1; }
  echo "data: $count samples at $(elapsed) s" | tee -a "$OUT/build.log"
done

# 2. probe both trainers together, then size each run to end inside the budget
train() {  # name out batch lr steps [options]
  seed3d train "$1" --data "$WORK/data" --out "$WORK/$1" --device "$DEVICE" --batch "$3" --lr "$4" --steps "$5" \
    --init-from "weights/$2" --max-minutes "$(python3 -c "print(($BUDGET_S - $(elapsed) - 25) / 60)")" "${@:6}" \
    > "$WORK/$1.out" 2>&1
}
train_all() {  # steps per model name (probe: PROBE for each), all models side by side
  for name in $MODELS; do
    case $name in
      geometry-vae) train geometry-vae geometry-vae "$VAE_BATCH" 5e-4 "${1:-$PROBE}" $VAE_ARGS & ;;  # split on spaces
      part-seg) train part-seg part-segmenter "$SEG_BATCH" 7e-4 "${2:-$PROBE}" & ;;
      *) echo "unknown model $name"; exit 1 ;;
    esac
  done
  wait
}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(( 8 / $(echo $MODELS | wc -w) ))}
train_all
for name in $MODELS; do
  [ -f "$WORK/$name/log.jsonl" ] || { echo "$name probe failed:"; tr '\r' '\n' < "$WORK/$name.out" | tail -n 20; }
done
steps_for() {  # run folder -> the step count that fills the time left (rate from the probe's later half), or nothing
  python3 - "$WORK/$1/log.jsonl" "$(( BUDGET_S - $(elapsed) - 40 ))" <<'EOF'
import json, os, sys
rows = [json.loads(x) for x in open(sys.argv[1])] if os.path.isfile(sys.argv[1]) else []
if len(rows) < 2:  # the probe logged too little to time it: train_all keeps the probe's count
    sys.exit(print(f"{sys.argv[1]}: {len(rows)} logged steps, too few to size the run", file=sys.stderr))
a, b = rows[len(rows) // 3], rows[-1]
rate = (b["seconds"] - a["seconds"]) / max(b["step"] - a["step"], 1)
print(max(b["step"] + 10, int(b["step"] + float(sys.argv[2]) / rate)))
EOF
}
VAE_STEPS=$(case " $MODELS " in *" geometry-vae "*) steps_for geometry-vae ;; esac)
SEG_STEPS=$(case " $MODELS " in *" part-seg "*) steps_for part-seg ;; esac)
echo "probe done at $(elapsed) s: geometry-vae ${VAE_STEPS:--} steps, part-seg ${SEG_STEPS:--} steps"
train_all "$VAE_STEPS" "$SEG_STEPS"
echo "training done at $(elapsed) s"

# 3. fp16 model folders and logs back
python3 - "$WORK" "$OUT" $MODELS <<'EOF'
import shutil, sys, tarfile
from pathlib import Path
import torch
from seed3d.geometry.vae import ShapeVAE
from seed3d.parts.model import PartSegmenter
work, out = Path(sys.argv[1]), Path(sys.argv[2])
for name, cls in (("geometry-vae", ShapeVAE), ("part-seg", PartSegmenter)):
    if name not in sys.argv[3:]:
        continue
    run = work / name
    shutil.copy(run / "log.jsonl", out / f"{name}.log.jsonl") if (run / "log.jsonl").is_file() else None
    if not (run / "model").is_dir():
        print(name, "has no model"); continue
    half = work / f"{name}-fp16"
    cls.from_pretrained(run / "model").save_pretrained(half, overwrite=True, dtype=torch.float16)
    for extra in ("training.json", "size_prior.json"):
        if (run / "model" / extra).is_file():
            shutil.copy(run / "model" / extra, half / extra)
    with tarfile.open(out / f"{name}.tar", "w") as tar:
        tar.add(half, arcname=name)
    print(name, "->", out / f"{name}.tar")
EOF
for name in $MODELS; do echo "$name:"; tr '\r' '\n' < "$WORK/$name.out" | tail -n 4; done
echo "all done at $(elapsed) s"
