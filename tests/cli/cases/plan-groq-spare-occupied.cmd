# A plan's spare GroqNode stays free under --occupied: the 8 free LPUs are
# that node, so a later 8-LPU job does not fit.
plan groq:racks=2 ../../samples/jobs-groq.yaml -o $OUT/plan.yaml >/dev/null && grep spare_nodes $OUT/plan.yaml && "$bin" plan groq:racks=2 inputs/jobs-groq-late.yaml --occupied $OUT/plan.yaml
