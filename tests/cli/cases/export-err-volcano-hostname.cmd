export inputs/k8s-hostnames.yaml --to volcano -o $OUT/hypernodes.yaml || (s=$?; ls -A $OUT; exit $s)
