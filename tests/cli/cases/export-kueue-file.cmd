export gb200-nvl72 --to kueue --style yaml -o $OUT/kueue.yaml && wc -l <$OUT/kueue.yaml && tail -n 8 $OUT/kueue.yaml
