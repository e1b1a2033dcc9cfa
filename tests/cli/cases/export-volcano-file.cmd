export mi300x:nodes=2 --to volcano -o $OUT/hypernodes.yaml && cat $OUT/hypernodes.yaml
