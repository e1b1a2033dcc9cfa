compare inputs/bad-syntax.yaml inputs/jobs-bad.yaml
