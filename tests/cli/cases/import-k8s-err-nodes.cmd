import --from k8s-nodes inputs/k8s-bad-nodes.yaml -o $OUT/cluster.yaml || (s=$?; ls -A $OUT; exit $s)
