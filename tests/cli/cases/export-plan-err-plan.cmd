export-plan dgx-h100:nodes=2 inputs/plan-hand.yaml --to slurm -o $OUT/submit.sh; echo "exit $?"; ls $OUT
