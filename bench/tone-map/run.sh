#!/usr/bin/env bash
# Chooses the tone map of HDR sources' SDR renditions (docs/decisions/encoding.md, "HDR sources").
#
# The reference is the SDR picture an HDR master was made from: SDR content placed in HDR as
# ITU-R BT.2408 does (SDR reference white at 203 cd/m², BT.2020 primaries; PQ, and HLG the same way),
# with a band of highlights above it (a neutral ramp from 203 to 1000 cd/m², what SDR cannot hold).
# Each candidate tone map brings the master back to SDR BT.709 and is scored against the original
# on the part without the band (PSNR and SSIM of the luma, the mean luma), and on the band by the
# luma range it keeps of the highlights (0: clipped flat).
#
#   bash bench/tone-map/run.sh            prints one line per candidate and source transfer
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ff() { ffmpeg -hide_banner -loglevel error -y "$@"; }

size=1280x720
# The SDR originals: colours, gradients and motion (testsrc2), a natural-looking fractal (mandelbrot), bars.
sources=(
  "testsrc2=s=$size:r=5:d=2"
  "mandelbrot=s=$size:r=5,trim=duration=2"
  "smptehdbars=s=$size:r=5:d=2"
)
# The band of highlights: the bottom 15 % of the picture.
band_top=0.85

linear_from_sdr='zscale=tin=bt709:pin=bt709:min=bt709:rin=tv:t=linear:p=bt709,format=gbrpf32le,zscale=p=bt2020'

i=0
for src in "${sources[@]}"; do
  ff -f lavfi -i "$src,format=yuv420p" -c:v ffv1 "$work/sdr$i.mkv"
  # PQ: linear 1.0 (SDR white) at 203 cd/m². HLG: zimg's display-referred HLG (1000 cd/m² display).
  ff -i "$work/sdr$i.mkv" -vf "$linear_from_sdr,zscale=t=smpte2084:m=bt2020nc:r=tv:npl=203,format=yuv420p10le" \
    -c:v ffv1 "$work/pq-base$i.mkv"
  ff -i "$work/sdr$i.mkv" -vf "$linear_from_sdr,zscale=t=arib-std-b67:m=bt2020nc:r=tv:npl=203,format=yuv420p10le" \
    -c:v ffv1 "$work/hlg-base$i.mkv"
  i=$((i + 1))
done

# The band: a neutral ramp of highlights, 203 to 1000 cd/m², written in each transfer's code values.
# PQ(203) = 0.5807, PQ(1000) = 0.7518; in 10-bit limited range 64 + 876 v.
ramp() { # $1 low code, $2 high code
  echo "geq=lum='if(gte(Y,H*$band_top),$1+($2-$1)*X/W,lum(X,Y))':cb='if(gte(Y,H*$band_top),512,cb(X,Y))':cr='if(gte(Y,H*$band_top),512,cr(X,Y))'"
}
# HLG: 203 cd/m² on the 1000 cd/m² reference display is signal 0.75; 1000 cd/m² is 1.0.
for k in $(seq 0 $((i - 1))); do
  ff -i "$work/pq-base$k.mkv" -vf "$(ramp 573 723)" -c:v ffv1 "$work/pq$k.mkv"
  ff -i "$work/hlg-base$k.mkv" -vf "$(ramp 721 940)" -c:v ffv1 "$work/hlg$k.mkv"
done

stat() { # $1 file, $2 crop -> "YAVG YMIN YMAX" averaged over frames
  ffmpeg -hide_banner -loglevel error -i "$1" -vf "$2,signalstats,metadata=print:file=-" -f null - |
    awk -F= '/YAVG/{a+=$2;n++} /YLOW/{l+=$2} /YHIGH/{h+=$2} END{printf "%.1f %.1f %.1f", a/n, l/n, h/n}'
}

top="crop=iw:floor(ih*$band_top/2)*2:0:0"
band="crop=iw:ih*0.1:0:ih*0.88"
tonemap_chain() { # $1 input transfer, $2 npl, $3 tonemap options
  echo "zscale=tin=$1:pin=bt2020:min=bt2020nc:t=linear:p=bt2020:npl=$2,format=gbrpf32le,zscale=p=bt709,tonemap=$3,zscale=t=bt709,format=gbrp16le,zscale=m=bt709:r=tv,format=yuv420p"
}
candidates=(
  "100 tonemap=clip"
  "100 tonemap=linear:peak=10"
  "100 tonemap=reinhard:desat=0"
  "100 tonemap=hable:desat=0"
  "100 tonemap=mobius:desat=0"
  "203 tonemap=clip"
  "203 tonemap=reinhard:desat=0:peak=4.926"
  "203 tonemap=hable:desat=0:peak=4.926"
  "203 tonemap=mobius:desat=0:peak=4.926"
  "203 tonemap=mobius:param=0.5:desat=0:peak=4.926"
  "203 tonemap=mobius:param=0.7:desat=0:peak=4.926"
)
printf '%-8s %-50s %8s %7s %7s %7s %13s\n' transfer candidate psnr_y ssim_y dmean dp10/90 band_range
for transfer in pq hlg; do
  zin=$([ $transfer = pq ] && echo smpte2084 || echo arib-std-b67)
  for candidate in "${candidates[@]}"; do
    npl=${candidate%% *}
    options=${candidate#* }
    psnr=0 ssim=0 dmean=0 dpct=0 range=0
    for k in $(seq 0 $((i - 1))); do
      ff -i "$work/$transfer$k.mkv" -vf "$(tonemap_chain "$zin" "$npl" "$options")" -c:v ffv1 "$work/out.mkv"
      scores=$(ffmpeg -hide_banner -i "$work/out.mkv" -i "$work/sdr$k.mkv" -lavfi \
        "[0:v]$top,extractplanes=y[a];[1:v]$top,extractplanes=y[b];[a][b]ssim;[0:v]$top,extractplanes=y[c];[1:v]$top,extractplanes=y[d];[c][d]psnr" \
        -f null - 2>&1)
      p=$(grep -o 'PSNR y:[0-9.inf]*' <<<"$scores" | head -1 | cut -d: -f2)
      [ "$p" = inf ] && p=99
      s=$(grep -o 'SSIM Y:[0-9.]*' <<<"$scores" | head -1 | cut -d: -f2)
      read -r om ol oh <<<"$(stat "$work/out.mkv" "$top")"
      read -r rm rl rh <<<"$(stat "$work/sdr$k.mkv" "$top")"
      read -r _ bl bh <<<"$(stat "$work/out.mkv" "$band")"
      psnr=$(awk -v a="$psnr" -v b="$p" 'BEGIN{print a+b}')
      ssim=$(awk -v a="$ssim" -v b="$s" 'BEGIN{print a+b}')
      dmean=$(awk -v a="$dmean" -v o="$om" -v r="$rm" 'BEGIN{print a+(o-r)}')
      dpct=$(awk -v a="$dpct" -v ol="$ol" -v rl="$rl" -v oh="$oh" -v rh="$rh" 'BEGIN{d1=ol-rl; d2=oh-rh; if(d1<0)d1=-d1; if(d2<0)d2=-d2; print a+(d1>d2?d1:d2)}')
      range=$(awk -v a="$range" -v l="$bl" -v h="$bh" 'BEGIN{print a+(h-l)}')
    done
    awk -v t=$transfer -v c="npl=$npl $options" -v p=$psnr -v s=$ssim -v m=$dmean -v d=$dpct -v r=$range -v n=$i \
      'BEGIN{printf "%-8s %-50s %8.2f %7.4f %+7.1f %7.1f %13.1f\n", t, c, p/n, s/n, m/n, d/n, r/n}'
  done
done
