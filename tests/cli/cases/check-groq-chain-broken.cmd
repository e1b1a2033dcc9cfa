# A hand-edited plan whose chain jumps between chips with no direct link.
check groq inputs/plan-groq-broken.yaml
