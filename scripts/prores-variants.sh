#!/usr/bin/env bash
# Encodes the ProRes encoder-variant matrix the GPU decoder is checked on:
# every profile, slices of 1/2/4/8 macroblocks, each quantisation matrix,
# 8- and 16-bit alpha, interlaced (both field orders, with alpha), sizes that
# are not multiples of 16, very high and very low bit rates (large levels and
# escape codes; mostly-zero blocks), from FFmpeg's prores_ks and prores_aw.
# Sources carry strong temporal grain so that every code path is exercised.
#
#   scripts/prores-variants.sh OUTDIR [FFMPEG]      (FFMPEG defaults to ffmpeg)
#
# Prints the clip names it wrote, one per line. Used by the tests
# (GPUDecoderTests) and by the benchmark set (gpu-machine.sh).
set -euo pipefail
OUT=$1
FF=${2:-ffmpeg}
mkdir -p "$OUT"
FRAMES=2
size=256x144        # 16 x 9 macroblocks: rows of 8+1 slices by default
odd=251x147         # neither dimension a multiple of 16 (nor of 2)
grain="noise=alls=40:allf=t+u"
alpha="geq=lum='lum(X,Y)':cb='cb(X,Y)':cr='cr(X,Y)':a='clip(X*4+Y*3+N*97,0,1023)'"

enc() { # NAME SIZE PIXFMT FILTERS ENCODER ARGS...
  local name=$1 sz=$2 pix=$3 filters=$4; shift 4
  "$FF" -hide_banner -nostdin -v error -y -f lavfi -i "testsrc2=size=$sz:rate=25,format=$pix,$filters,format=$pix" \
    -frames:v "$FRAMES" -an -threads 1 -c:v "$@" -flags +bitexact "$OUT/$name.mov"
  echo "$name.mov"
}

for p in proxy lt standard hq; do
  enc "ks-$p" $size yuv422p10le "$grain" prores_ks -profile:v $p
done
enc ks-4444-a16 $size yuva444p10le "$grain,$alpha" prores_ks -profile:v 4444 -alpha_bits 16
enc ks-4444-a8 $size yuva444p10le "$grain,$alpha" prores_ks -profile:v 4444 -alpha_bits 8
enc ks-4444-noalpha $size yuv444p10le "$grain" prores_ks -profile:v 4444
enc ks-4444xq-a16 $size yuva444p10le "$grain,$alpha" prores_ks -profile:v 4444xq -alpha_bits 16
for m in 1 2 4 8; do
  enc "ks-hq-mbs$m" $size yuv422p10le "$grain" prores_ks -profile:v hq -mbs_per_slice $m
  enc "ks-4444-mbs$m" $size yuva444p10le "$grain,$alpha" prores_ks -profile:v 4444 -alpha_bits 16 -mbs_per_slice $m
done
for q in default proxy lt standard hq; do
  enc "ks-hq-qmat-$q" $size yuv422p10le "$grain" prores_ks -profile:v hq -quant_mat $q
done
enc ks-hq-bits8000 $size yuv422p10le "$grain" prores_ks -profile:v hq -bits_per_mb 8000
enc ks-4444xq-bits8000 $size yuva444p10le "$grain,$alpha" prores_ks -profile:v 4444xq -alpha_bits 16 -bits_per_mb 8000
enc ks-proxy-bits128 $size yuv422p10le "$grain" prores_ks -profile:v proxy -bits_per_mb 128
enc ks-hq-odd $odd yuv422p10le "$grain" prores_ks -profile:v hq -mbs_per_slice 4
enc ks-4444-odd $odd yuva444p10le "$grain,$alpha" prores_ks -profile:v 4444 -alpha_bits 16 -mbs_per_slice 2
enc ks-hq-tff 256x146 yuv422p10le "$grain,setfield=tff" prores_ks -profile:v hq -flags +ildct+ilme
enc ks-hq-bff 256x146 yuv422p10le "$grain,setfield=bff" prores_ks -profile:v hq -flags +ildct+ilme
enc ks-4444-tff-a16 $odd yuva444p10le "$grain,$alpha,setfield=tff" prores_ks -profile:v 4444 -alpha_bits 16 -flags +ildct+ilme
enc ks-4444-bff-a8 $size yuva444p10le "$grain,$alpha,setfield=bff" prores_ks -profile:v 4444 -alpha_bits 8 -flags +ildct+ilme
for p in 0 1 2 3; do
  enc "aw-$p" $size yuv422p10le "$grain" prores_aw -profile:v $p
done
enc aw-4444 $size yuv444p10le "$grain" prores_aw -profile:v 4
enc aw-4444-alpha $size yuva444p10le "$grain,$alpha" prores_aw -profile:v 4
enc aw-hq-odd $odd yuv422p10le "$grain" prores_aw -profile:v 3
