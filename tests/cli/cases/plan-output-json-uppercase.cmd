# -o picks JSON by the extension in any case, as render does.
plan gb200-nvl72:racks=2 inputs/jobs-acceptance.yaml -o $OUT/PLAN.JSON >/dev/null && head -c 1 $OUT/PLAN.JSON && echo && "$bin" evaluate gb200-nvl72:racks=2 $OUT/PLAN.JSON | head -n 1
