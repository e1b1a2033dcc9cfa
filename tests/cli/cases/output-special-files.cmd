# -o keeps devices, links and permissions: /dev/null stays a device, a link
# keeps its target (which is replaced), a replaced file keeps its mode.
export gb200-nvl72 --to slurm-block -o /dev/null && test -c /dev/null && echo "/dev/null is still a device" && touch $OUT/conf && chmod 640 $OUT/conf && ln -s conf $OUT/link && "$bin" export gb200-nvl72 --to slurm-block -o $OUT/link && test -L $OUT/link && stat -c '%a' $OUT/conf && grep -c BlockName $OUT/conf
