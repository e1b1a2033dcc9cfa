# Llama-3.3-70B FP8 disaggregated on DGX H100, as JSON (the report's keys).
plan dgx-h100:nodes=8 ../../samples/serving-llama70b-h100.yaml --format json
