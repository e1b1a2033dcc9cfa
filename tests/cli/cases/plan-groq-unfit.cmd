plan groq inputs/jobs-groq-unfit.yaml
