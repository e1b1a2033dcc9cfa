# A link of a chain fails: its compiled schedule is void, so the job is
# recompiled and re-placed; the same failure inside an unshaped job only
# slows it down.
whatif groq inputs/plan-groq-chain.yaml --fail groq-r000-n0/lpu0--groq-r000-n1/lpu0 groq-r000-n2/lpu0--groq-r000-n2/lpu1
