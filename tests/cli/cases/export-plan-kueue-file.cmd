export-plan gb200-nvl72:racks=2 inputs/plan-export.yaml --to kueue -o $OUT/patches.yaml && grep -c "^kind: PodTemplate$" $OUT/patches.yaml
