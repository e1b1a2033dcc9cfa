# A built-in as a file to start from: topoplan's own format with its parameters applied, which reads back.
export dgx-h100 --to native -o $OUT/dgx.yaml && cat $OUT/dgx.yaml && "$bin" topology show $OUT/dgx.yaml | head -n 3
