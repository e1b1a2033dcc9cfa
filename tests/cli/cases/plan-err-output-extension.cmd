# An extension that is no plan format is refused before any work, and no file is left.
--version >/dev/null; cd $OUT && "$bin" plan gb200-nvl72:racks=2 $OLDPWD/inputs/jobs-acceptance.yaml -o plan.txt; echo "status $?"; ls
