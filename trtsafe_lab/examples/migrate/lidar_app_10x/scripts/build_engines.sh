#!/usr/bin/env bash
set -euo pipefail
OUT=${OUT:-build}
COMMON="--safe --restricted --fp16"

trtexec --onnx=models/segmenter.onnx $COMMON \
    --saveEngine=$OUT/segmenter.engine \
    --remoteAutoTuningConfig="ssh://ci@192.0.2.30:22?remote_exec_path=/opt/trt/bin&remote_lib_path=/opt/trt/lib"

scp $OUT/segmenter.engine root@orin:/opt/lidar/
ssh root@orin "trtexec_safe --loadEngine=/opt/lidar/segmenter.engine --useCudaGraph"
