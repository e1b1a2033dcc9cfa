# A JSON plan of shaped jobs reads back: its devices keep the pipeline order
# (the same hops), its spare node comes back, the keys it reports are accepted.
plan groq:racks=2 ../../samples/jobs-groq.yaml -o $OUT/plan.json >/dev/null && "$bin" evaluate groq:racks=2 $OUT/plan.json | grep -E "hops|spare|placed"
