import --from topograph inputs/topograph-bad.yaml -o $OUT/never.yaml || (s=$?; ls -A $OUT; exit $s)
