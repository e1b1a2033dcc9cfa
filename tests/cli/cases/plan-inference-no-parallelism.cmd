# An inference replica without parallelism communicates nothing: "none", not "0.0 us"; the plan YAML writes step_seconds as a number.
plan gb200-nvl72 inputs/jobs-inference-plain.yaml -o $OUT/p.yaml && grep step_seconds $OUT/p.yaml
