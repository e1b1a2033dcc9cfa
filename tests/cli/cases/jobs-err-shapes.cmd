# Every bad shape field, each at its value.
plan groq:racks=2 inputs/jobs-shapes-bad.yaml
