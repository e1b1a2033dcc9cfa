# The kernel goes into the plan file and comes back: evaluate prices the EP parts as plan did.
plan dgx-h100:nodes=12 inputs/jobs-moe-kernels.yaml -o $OUT/plan.yaml >/dev/null && grep -E "ep_kernel|ep_message" $OUT/plan.yaml && "$bin" evaluate dgx-h100:nodes=12 $OUT/plan.yaml | grep -E "^moe|  ep "
